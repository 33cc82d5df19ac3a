/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The qdisc a command names by place (dev, parent, handle), and the slot
 * of its instance when it is one of qdiscctl's kinds: what change and an
 * in-place replace both act on.
 */
#ifndef QDISCCTL_TARGET_H
#define QDISCCTL_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "core/registry.h"
#include "kinds/kind.h"
#include "lib/spec.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

struct qd_target {
	struct qdisc_info cur;	    /* the qdisc there, as the kernel reports it */
	const struct qd_kind *kind; /* cur's kind when it is one of qdiscctl's, else NULL */
	struct qd_place place;
};

/*
 * What sits at s's place (s resolved, with a parent): 0; -ENOENT when
 * nothing does, or when s names a handle the qdisc there does not have;
 * another -errno when netlink fails. Prints nothing.
 */
int qd_target_lookup(struct rtnl *rt, const struct qdisc_spec *s, struct qd_target *t);

/* "dev va root", "dev va parent 1:1 handle 10:" for messages. */
const char *qd_target_where(const struct qdisc_spec *s, char *buf, size_t len);

/* Rewrite the options of t's instance, slot id of reg: 0, or prints and returns -errno. */
int qd_target_write(struct qd_reg *reg, const struct qd_target *t, uint32_t id, const void *cfg);

#endif
