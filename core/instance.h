/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One instance of one of qdiscctl's kinds, as the commands handle it: the
 * kernel check before anything, the lock and the registration a new one
 * goes into, making it, finding the slot of one that exists, and the
 * lookup a listing keeps so that each registration is read once.
 */
#ifndef QDISCCTL_CORE_INSTANCE_H
#define QDISCCTL_CORE_INSTANCE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "core/registry.h"
#include "core/target.h"
#include "kinds/kind.h"
#include "lib/spec.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

/* 0 when the kernel can run k's BPF qdisc; else says why, returns the exit code. */
int qd_check_kernel(const struct qd_kind *k);

/*
 * Take qdiscctl's lock, clear what a killed run left (before it could be
 * mistaken for ours), and open a registration of k with room for need
 * more instances and the capacities the options in cfg need, registering
 * one (sized for the host and rt's namespace) if there is none. Returns
 * the lock, or -1 with the reason said.
 */
int qd_lock_and_open(struct rtnl *rt, const struct qd_kind *k, struct qd_reg *reg, uint32_t need,
		     const void *cfg);

/* A qdisc request for s's place and handle: QD_EXIT_OK, or the kernel's refusal printed. */
int qd_send_qdisc(struct rtnl *rt, uint16_t type, unsigned int nlflags, const struct qdisc_spec *s,
		  const char *kind);

/*
 * One instance of reg's kind at s's place (lock held, reg open): its
 * options through the pending map, or rewritten in place by a replace of
 * an instance of the same kind. An exit code, errors said.
 */
int qd_new_instance(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_reg *reg,
		    const struct qd_place *place, const void *cfg, unsigned int nlflags);

/*
 * The registration of t's instance opened into reg and its slot: 0,
 * -ENOENT when no registration has t's kind id, -ESRCH when it has no slot
 * for t (an instance whose .init failed owns none). Prints nothing.
 */
int qd_target_slot(const struct qd_target *t, struct qd_reg *reg, uint32_t *id);

/* CLOCK_MONOTONIC in ns: the clock BPF programs stamp their deadlines with. */
uint64_t qd_inst_now(void);

#define QD_LOOKUP_KINDS 16

/*
 * What a listing of qdiscs reads: the filter, the namespace, the name of
 * the last device printed (a dump lists a device's qdiscs together), and
 * the registrations of qdiscctl's kinds, opened on first use with their
 * instances read once (looking each qdisc up in the map would cost a
 * syscall a slot, for every qdisc listed).
 */
struct qd_lookup {
	const struct qdisc_spec *filter;
	__u64 netns;
	int name_fd; /* the rtnetlink socket: devices are named in its namespace */
	int name_ifindex;
	char name[IF_NAMESIZE];
	struct qd_reg regs[QD_LOOKUP_KINDS];
	int ok[QD_LOOKUP_KINDS]; /* 1 open, -1 absent, 0 not looked at yet */
	struct qd_insts insts[QD_LOOKUP_KINDS];
	/* qd_lookup_inst's buffer: one for every instance listed, not one each. */
	void *inst;
	size_t inst_max;
};

/* l for a listing of what filter names, in rt's namespace. */
void qd_lookup_init(struct qd_lookup *l, struct rtnl *rt, const struct qdisc_spec *filter);
void qd_lookup_free(struct qd_lookup *l);
/* Does qi pass the filter's parent and handle? */
bool qd_lookup_wanted(const struct qd_lookup *l, const struct qdisc_info *qi);
/* The device name to print (NULL when filtering by dev, as tc): buf (IF_NAMESIZE) or NULL. */
const char *qd_lookup_dev(struct qd_lookup *l, const struct qdisc_info *qi, char *buf);
/* The registration and slot of qi when it is an instance of one of qdiscctl's kinds. */
const struct qd_reg *qd_lookup_instance(struct qd_lookup *l, const struct qdisc_info *qi,
					uint32_t *id);
/*
 * The same, with its options read into cfg (QD_CFG_MAX bytes): its
 * registration, or NULL when qi is none of qdiscctl's or cannot be read.
 */
const struct qd_reg *qd_lookup_cfg(struct qd_lookup *l, const struct qdisc_info *qi, uint32_t *id,
				   void *cfg);
/*
 * The "insts" value of slot id of reg, with cfg its options as
 * qd_lookup_cfg read them: reg->inst_len bytes in a buffer of l's that the
 * next read reuses, or NULL when it cannot be read.
 */
const void *qd_lookup_inst(struct qd_lookup *l, const struct qd_reg *reg, uint32_t id,
			   const void *cfg);

#endif
