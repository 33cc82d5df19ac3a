/* SPDX-License-Identifier: GPL-2.0 */
/* A kind's egress program, attached on tcx egress before its root instances. */
#ifndef QDISCCTL_CORE_EGRESS_H
#define QDISCCTL_CORE_EGRESS_H

#include <linux/types.h>

#include "bpf/abi.h"
#include "core/registry.h"

/*
 * Attach the kind's egress program to the device of an instance at p with
 * options cfg (about to be created, or changed) if the instance needs it
 * (qd_kind.egress_wanted); qd_reg_sweep detaches it once no instance there
 * does. 0 or -errno, said.
 */
int qd_reg_attach_egress(const struct qd_reg *r, const struct qd_place *p, const void *cfg);
/*
 * With the lock held: detach the egress program from p's device unless an
 * instance there still needs it (after its options changed). Returns
 * whether it did.
 */
int qd_reg_release_egress(const struct qd_reg *r, const struct qd_place *p);

/*
 * Detach r's egress programs from devices where no instance of l needs
 * them any more; gone hears of each pin removed.
 */
void qd_egress_sweep(const struct qd_reg *r, const struct qd_insts *l,
		     void (*gone)(const struct qd_reg *r, const char *pin, void *data), void *data);

#endif
