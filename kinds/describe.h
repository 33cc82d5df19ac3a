/* SPDX-License-Identifier: GPL-2.0 */
#ifndef QDISCCTL_DESCRIBE_H
#define QDISCCTL_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

#include "kinds/kind.h"

/* "fifo [limit PACKETS]" */
void qd_kind_synopsis(const struct qd_kind *k, char *buf, size_t len);
/* What the user types: "limit PACKETS", "nopacing | pacing". */
void qd_opt_label(const struct qd_opt *o, char *buf, size_t len);
/* The default as help shows it: "1000", "auto", "horizon_drop". */
const char *qd_opt_default_text(const struct qd_opt *o, char *buf, size_t len);
/*
 * One kind with its options, defaults and capacities, as text or the
 * members of a JSON object the caller opens and closes.
 */
void qd_kind_describe(const struct qd_kind *k, bool detailed);

#endif
