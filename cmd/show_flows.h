/* SPDX-License-Identifier: GPL-2.0 */
/* show ... flows (cmd/show_flows.c), which cmd/show.c hands its listing to. */
#ifndef QDISCCTL_SHOW_FLOWS_H
#define QDISCCTL_SHOW_FLOWS_H

#include "core/instance.h"
#include "netlink/rtnl.h"

/* The entries in use of slot id, in *e and *vals: a count, or -errno (said). */
struct qd_flow_entry;
int show_flows_read(const struct qd_reg *reg, uint32_t id, struct qd_flow_entry **e, char **vals);

/* `show ... flows [sort COLUMN]` of what lk lists: an exit code. */
int show_flows(struct rtnl *rt, struct qd_lookup *lk, const char *sort);

#endif
