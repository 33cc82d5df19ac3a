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
enum qd_desc_list {
	QD_DESC_STATS, /* the counters of show -s (JSON keys) */
	QD_DESC_TABLE, /* the fields of the per-class records (qd_kind.table) */
	QD_DESC_FLOWS, /* the columns of show ... flows */
};

/*
 * A back end of the describer: what it prints for each part of a kind, in
 * this order: kind, option (each), options_end, then caps and the lists
 * (stats, table, flows, those the kind has), caps first or last. A hook
 * left NULL prints nothing.
 */
struct qd_describer {
	void (*kind)(const struct qd_kind *k, const char *synopsis);
	/* label as qd_opt_label says it; dflt as help shows it, NULL when required */
	void (*option)(const struct qd_opt *o, const char *label, const char *dflt);
	/* Each of a cgroup option o's optional fields f, after o: label "ceil RATE". */
	void (*field)(const struct qd_opt *o, const struct qd_opt *f, const char *label,
		      const char *dflt);
	void (*options_end)(const struct qd_kind *k);
	void (*list_begin)(enum qd_desc_list what, const struct qd_kind *k);
	void (*list_item)(const char *name, bool first);
	void (*list_end)(enum qd_desc_list what);
	/* The capacities a registration of k is made with (-C NAME=N sets them). */
	void (*caps)(const struct qd_kind *k);
	bool caps_first;
};

/* Walk k's description through back end be. */
void qd_kind_describe_to(const struct qd_kind *k, const struct qd_describer *be);
/*
 * One kind with its options, defaults and capacities, as text (detailed
 * for help, else one line and its options for `kinds`) or, when the
 * output is JSON, the members of an object the caller opens and closes.
 */
void qd_kind_describe(const struct qd_kind *k, bool detailed);

#endif
