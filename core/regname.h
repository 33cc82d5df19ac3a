/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a kind's registrations, one per version of its program: the
 * first is KIND/ in bpffs with the descriptor's Qdisc_ops id, later ones
 * KIND-N/ with ID.N (N = 1..9; bpffs refuses dots in names, the kernel
 * does not). Pure logic, apart from bpffs and the kernel.
 */
#ifndef QDISCCTL_REGNAME_H
#define QDISCCTL_REGNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "kinds/kind.h"

/* A Qdisc_ops id, NUL included (IFNAMSIZ). */
#define QD_ID_LEN 16
/* ID and ID.1 .. ID.9: the versions of one kind that can coexist. */
#define QD_REG_VERSIONS 10
/* A fingerprint: 16 hex digits, NUL included. */
#define QD_FP_LEN 17
/* A registration's directory under the pin root. */
#define QD_DIR_LEN (QD_ID_LEN + 8)

/* Directory and id of version v of k: 0, or -ENAMETOOLONG when the id does not fit. */
int qd_reg_names(const struct qd_kind *k, int v, char dir[QD_DIR_LEN], char id[QD_ID_LEN]);
/* The kind and version a directory (id false) or a Qdisc_ops id (id true) names, or NULL. */
const struct qd_kind *qd_reg_parse(const char *name, bool id, int *v);
/* The fingerprint of k's embedded object: FNV-1a 64 of its ELF bytes, in hex. */
void qd_kind_fingerprint(const struct qd_kind *k, char fp[QD_FP_LEN]);

#endif
