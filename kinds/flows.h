/* SPDX-License-Identifier: GPL-2.0 */
/* `show ... flows`: a kind's per-flow table, sorted and printed from its descriptor. */
#ifndef QDISCCTL_FLOWS_H
#define QDISCCTL_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinds/kind.h"

/* One entry of an instance's table: its index and its map value. */
struct qd_flow_entry {
	uint32_t index;
	const void *val;
};

/* Is the entry in use (no QD_COL_USED column holds 0)? */
bool qd_flow_used(const struct qd_flows *f, const void *val);
/* The column called name, or NULL. */
const struct qd_col *qd_flows_col(const struct qd_flows *f, const char *name);
/*
 * Order e by col: numbers largest first, deadlines soonest first (none
 * last), names and custom columns by their raw value; ties by index.
 */
void qd_flows_sort(struct qd_flow_entry *e, size_t n, const struct qd_col *col);
/*
 * e as a text table (a header row, one row an entry) or as a JSON
 * "flows" array of objects; with totals also a total row ("total" object)
 * summing the QD_COL_TOTAL columns. Deadlines are shown relative to now.
 */
void qd_flows_print(const struct qd_flows *f, const struct qd_flow_entry *e, size_t n, uint64_t now,
		    bool totals);

/*
 * The busiest max entries of cur (n, in index order) as monitor shows
 * them: each QD_COL_COUNTER column as a rate (JSON NAME_per_sec) against
 * the same entry in old (nold, in index order, read secs before; an entry
 * whose first column changed is another flow), the others as show prints
 * them, the most bytes (else the first counter) a second first, none
 * that sent nothing; a JSON
 * "busiest_flows" array, or text for an entry each starting with lead.
 */
void qd_flows_print_rates(const struct qd_flows *f, const struct qd_flow_entry *cur, size_t n,
			  const struct qd_flow_entry *old, size_t nold, double secs, uint64_t now,
			  size_t max, const char *lead);

#endif
