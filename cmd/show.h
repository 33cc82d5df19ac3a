/* SPDX-License-Identifier: GPL-2.0 */
/* What show's listings share: the filter and the registrations they read. */
#ifndef QDISCCTL_SHOW_H
#define QDISCCTL_SHOW_H

#include <stdint.h>
#include <linux/types.h>

#include "lib/registry.h"
#include "lib/spec.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

#define SHOW_MAX_KINDS 16

struct show_ctx {
	const struct qdisc_spec *filter;
	__u64 netns;
	/* Registrations opened on first use; ok[i] < 0 when absent. */
	struct qd_reg regs[SHOW_MAX_KINDS];
	int ok[SHOW_MAX_KINDS];
	/* The qdisc being printed as the kernel reports it (show prints the kind's base id). */
	const struct qdisc_info *printing;
	/*
	 * Their instances, read once when opened: looking each qdisc up in
	 * the map would cost a syscall a slot, for every qdisc listed.
	 */
	struct qd_insts insts[SHOW_MAX_KINDS];
	/* Device names from one dump, when the listing names devices. */
	struct link_names names;
};

/* Does qi pass the filter's parent and handle? */
bool show_wanted(const struct show_ctx *ctx, const struct qdisc_info *qi);
/* The device name to print (NULL when filtering by dev, as tc): buf or NULL. */
const char *show_dev(const struct show_ctx *ctx, const struct qdisc_info *qi, char *buf);
/* The registration and slot of qi when it is an instance of one of qdiscctl's kinds. */
const struct qd_reg *show_instance(struct show_ctx *ctx, const struct qdisc_info *qi, uint32_t *id);
/* CLOCK_MONOTONIC in ns: the clock BPF programs stamp their deadlines with. */
uint64_t show_now(void);

/* `show ... flows [sort COLUMN]`: an exit code. */
int show_flows(struct rtnl *rt, struct show_ctx *ctx, const char *sort);

#endif
