/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel has at a place, read as show reads it: the qdisc's kind
 * and handle from rtnetlink, the options of qdiscctl's instances from
 * their registrations' cfgs, and the children of an mq root.
 */
#ifndef QDISCCTL_CURRENT_H
#define QDISCCTL_CURRENT_H

#include <stdint.h>
#include <linux/types.h>

#include "core/config.h"
#include "netlink/rtnl.h"

/* Into cur (freed with qd_current_free): 0, or -errno of netlink. */
int qd_current_read(struct rtnl *rt, __u64 netns, int ifindex, uint32_t parent,
		    struct qd_current *cur);
void qd_current_free(struct qd_current *cur);

#endif
