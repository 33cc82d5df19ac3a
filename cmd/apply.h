/* SPDX-License-Identifier: GPL-2.0 */
/* What apply and watch share: converging to a parsed file (cmd/apply.c). */
#ifndef QDISCCTL_APPLY_H
#define QDISCCTL_APPLY_H

#include <stdbool.h>

#include "core/config.h"

struct qd_apply_opts {
	bool dry_run; /* print the plan, change nothing */
	bool force;   /* after a refusal, go on with the next statement */
	bool quiet;   /* print only what changed or failed (watch) */
	/*
	 * Only the qdisc statements of one device (watch): ifindex in the
	 * namespace netns names (NULL: where apply runs). 0: everything.
	 */
	int ifindex;
	const char *netns;
};

/*
 * Plan every statement of c, then (unless dry_run) carry out what is not
 * yet so: an exit code. It prints a line (or, inside the caller's JSON
 * array, an object) for each statement and device. home is an fd of the network namespace
 * statements without a netns line apply to.
 */
int qd_apply(const struct qd_config *c, const struct qd_apply_opts *o, int home);

#endif
