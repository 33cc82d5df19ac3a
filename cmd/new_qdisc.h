/* SPDX-License-Identifier: GPL-2.0 */
/* What add, replace and their mq form share (cmd/new_qdisc.c, cmd/mq.c). */
#ifndef QDISCCTL_NEW_QDISC_H
#define QDISCCTL_NEW_QDISC_H

#include <stdint.h>

#include "lib/registry.h"
#include "lib/spec.h"
#include "netlink/rtnl.h"

/* A qdisc request for s's place and handle: QD_EXIT_OK, or the kernel's refusal printed. */
int qd_send_qdisc(struct rtnl *rt, uint16_t type, unsigned int nlflags, const struct qdisc_spec *s,
		  const char *kind);

/*
 * Take qdiscctl's lock, clear what a killed run left (before it could be
 * mistaken for ours), and open a registration of k with room for need
 * more instances and the capacities the options in cfg need, registering
 * one (sized for the host and rt's namespace) if there is none. Returns
 * the lock, or -1 with the reason said.
 */
int qd_lock_and_open(struct rtnl *rt, const struct qd_kind *k, struct qd_reg *reg, uint32_t need,
		     const void *cfg);

/*
 * One instance of reg's kind at s's place (lock held, reg open): its
 * options through the pending map, or rewritten in place by a replace of
 * an instance of the same kind. An exit code, errors said.
 */
int qd_new_instance(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_reg *reg,
		    const struct qd_place *place, const void *cfg, unsigned int nlflags);

/* add/replace dev DEV root [handle H] mq KIND [OPTIONS]: an exit code. */
int qd_cmd_new_mq(const char *cmd, const struct qdisc_spec *s, unsigned int nlflags);

#endif
