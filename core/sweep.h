/* SPDX-License-Identifier: GPL-2.0 */
/* Removing what no qdisc uses any more, or what a killed run left half-made. */
#ifndef QDISCCTL_CORE_SWEEP_H
#define QDISCCTL_CORE_SWEEP_H

#include "core/registry.h"

/*
 * What a sweep removed: a registration (reason "incomplete" or "no
 * instance"), stale pending options, or an egress link no instance
 * needs. what names the item, reg the registration's directory.
 */
typedef void (*qd_sweep_report)(const char *what, const char *reg, const char *detail, void *data);

/*
 * With the lock held: remove what no qdisc uses any more, or what a killed
 * run left half-made: registrations without a link, maps or version
 * record, or without instances (unless net.core.default_qdisc names it
 * or a process holds it, qd_reg_hold), pending options (no add is
 * running), egress links no instance on their device needs any more.
 * Returns how many items it removed; report may be NULL.
 */
int qd_reg_sweep(qd_sweep_report report, void *data);
/* The same, taking the lock; does nothing where qdiscctl never registered. */
void qd_reg_tidy(void);
/*
 * Keep r's registration while it has no instance, for as long as the
 * returned fd is open (a shared flock on its directory, which sweeps
 * respect): watch holds the kinds of its file so that a device made again
 * gets its qdisc without the program being loaded again. -errno on failure.
 */
int qd_reg_hold(const struct qd_reg *r);

#endif
