/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every qdisc of a network namespace with its counters, basic and the
 * kind's own, read in one pass (the lookup show uses): what metrics print
 * and what monitor computes its rates from. And the registrations, which
 * are host-wide: their capacities, instances and map memory.
 */
#ifndef QDISCCTL_CORE_SNAPSHOT_H
#define QDISCCTL_CORE_SNAPSHOT_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "core/registry.h"
#include "kinds/kind.h"
#include "lib/spec.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

struct qd_snap_qdisc {
	struct qdisc_info qi; /* its options pointer cleared: the message is gone */
	char dev[IF_NAMESIZE];
	const struct qd_kind *kind; /* when one of qdiscctl's kinds: qi.kind is then its id */
	char reg[QD_ID_LEN];	    /* the registration it is an instance of, */
	uint32_t slot;		    /* and its slot there */
	struct qd_sample *samples;
	size_t nsamples;
	/* The options (kind->cfg_size bytes), which name the cgroups of ROWS samples. */
	void *cfg;
};

struct qd_snap {
	uint64_t at; /* CLOCK_MONOTONIC ns, just before the kernel was asked */
	int n, max;
	struct qd_snap_qdisc *q;
};

/* The qdiscs of rt's namespace that filter passes: 0 or -errno (rt->errmsg). */
int qd_snap_take(struct qd_snap *s, struct rtnl *rt, const struct qdisc_spec *filter);
void qd_snap_free(struct qd_snap *s);

struct qd_snap_reg {
	const struct qd_kind *kind;
	char id[QD_ID_LEN];
	uint32_t cap[QD_CAPS_MAX]; /* QD_CAP_INSTANCES, then the kind's (qd_kind_cap) */
	uint32_t used;		   /* instance slots taken */
	uint64_t memory;	   /* bytes of the maps it pins */
};

/* Every registration of every kind (malloc'd, *n of them): 0 or -ENOMEM. */
int qd_snap_regs(struct qd_snap_reg **regs, int *n);

#endif
