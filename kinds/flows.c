// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/flows.h"
#include "lib/json_print.h"
#include "lib/units.h"

#define CELL_BUF 64

static uint64_t col_get(const struct qd_col *c, const void *val)
{
	const char *p = (const char *)val + c->off;
	uint32_t v32;
	uint64_t v64;

	if (c->width == 4) {
		memcpy(&v32, p, sizeof(v32));
		return c->type == QD_COL_INT ? (uint64_t)(int64_t)(int32_t)v32 : v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

bool qd_flow_used(const struct qd_flows *f, const void *val)
{
	for (const struct qd_col *c = f->cols; c->name; c++)
		if ((c->flags & QD_COL_USED) && !col_get(c, val))
			return false;
	return true;
}

const struct qd_col *qd_flows_col(const struct qd_flows *f, const char *name)
{
	for (const struct qd_col *c = f->cols; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int by_col(const void *pa, const void *pb, void *arg)
{
	const struct qd_flow_entry *a = pa, *b = pb;
	const struct qd_col *c = arg;
	uint64_t va = col_get(c, a->val), vb = col_get(c, b->val);
	int r;

	switch (c->type) {
	case QD_COL_COUNT:
		r = cmp_u64(vb, va);
		break;
	case QD_COL_INT:
		r = (int64_t)vb < (int64_t)va ? -1 : (int64_t)vb > (int64_t)va;
		break;
	case QD_COL_DEADLINE:
		/* None (0) sorts after every real deadline. */
		r = cmp_u64(va - 1, vb - 1);
		break;
	default:
		r = cmp_u64(va, vb);
		break;
	}
	return r ? r : cmp_u64(a->index, b->index);
}

void qd_flows_sort(struct qd_flow_entry *e, size_t n, const struct qd_col *col)
{
	qsort_r(e, n, sizeof(*e), by_col, (void *)col);
}

static const char *name_of(const struct qd_col *c, uint64_t v)
{
	for (uint64_t i = 0; c->names[i]; i++)
		if (i == v)
			return c->names[i];
	return "?";
}

/* The text of one cell. */
static const char *cell(const struct qd_col *c, const struct qd_flow_entry *e, uint64_t now,
			char *buf)
{
	uint64_t v = col_get(c, e->val);

	switch (c->type) {
	case QD_COL_COUNT:
		snprintf(buf, CELL_BUF, "%" PRIu64, v);
		break;
	case QD_COL_INT:
		snprintf(buf, CELL_BUF, "%" PRId64, (int64_t)v);
		break;
	case QD_COL_DEADLINE:
		if (!v)
			return "-";
		if (v <= now)
			return "now";
		sprint_time(v - now, buf, CELL_BUF);
		break;
	case QD_COL_NAME:
		return name_of(c, v);
	case QD_COL_CUSTOM:
		c->format(e->val, e->index, buf, CELL_BUF);
		break;
	}
	return buf;
}

static void print_json_entry(const struct qd_flows *f, const struct qd_flow_entry *e, uint64_t now)
{
	char buf[CELL_BUF];

	open_json_object(NULL);
	for (const struct qd_col *c = f->cols; c->name; c++) {
		uint64_t v = col_get(c, e->val);

		switch (c->type) {
		case QD_COL_COUNT:
			print_uint(PRINT_JSON, c->name, NULL, v);
			break;
		case QD_COL_INT:
			print_int(PRINT_JSON, c->name, NULL, (int64_t)v);
			break;
		case QD_COL_DEADLINE:
			if (v)
				print_uint(PRINT_JSON, c->name, NULL, v > now ? v - now : 0);
			else
				print_null(PRINT_JSON, c->name, NULL, NULL);
			break;
		case QD_COL_NAME:
		case QD_COL_CUSTOM:
			print_string(PRINT_JSON, c->name, NULL, cell(c, e, now, buf));
			break;
		}
	}
	close_json_object();
}

static bool left_aligned(const struct qd_col *c)
{
	return c->type == QD_COL_NAME || c->type == QD_COL_CUSTOM;
}

#define MAX_COLS 32

/* One line: the cells two blanks apart, indented by two; no trailing blanks. */
static void print_row(const struct qd_col *cols, const int *width, const char *const *text)
{
	char line[MAX_COLS * (CELL_BUF + 2) + 2];
	size_t len = 0;

	for (int i = 0; cols[i].name && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len,
				left_aligned(&cols[i]) ? "  %-*s" : "  %*s", width[i], text[i]);
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	while (len && line[len - 1] == ' ')
		len--;
	line[len] = '\0';
	print_text("%s\n", line);
}

static size_t ncols(const struct qd_flows *f)
{
	size_t n = 0;

	while (f->cols[n].name && n < MAX_COLS - 1)
		n++;
	return n;
}

/* The totals row: "total" in the first column, sums where summed, blanks elsewhere. */
static void totals_text(const struct qd_flows *f, const uint64_t *sum, size_t n,
			char (*buf)[CELL_BUF], const char **text)
{
	for (size_t i = 0; i < ncols(f); i++) {
		const struct qd_col *c = &f->cols[i];

		if (c->flags & QD_COL_TOTAL) {
			snprintf(buf[i], CELL_BUF, "%" PRIu64, sum[i]);
			text[i] = buf[i];
		} else {
			text[i] = "";
		}
	}
	snprintf(buf[0], CELL_BUF, "total %zu", n);
	text[0] = buf[0];
}

void qd_flows_print(const struct qd_flows *f, const struct qd_flow_entry *e, size_t n, uint64_t now,
		    bool totals)
{
	static const struct qd_col none = {};
	size_t nc = ncols(f);
	struct qd_col cols[MAX_COLS];
	char buf[MAX_COLS][CELL_BUF];
	const char *text[MAX_COLS] = {};
	uint64_t sum[MAX_COLS] = {};
	int width[MAX_COLS] = {};

	memcpy(cols, f->cols, nc * sizeof(*cols));
	cols[nc] = none;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nc; j++)
			if (cols[j].flags & QD_COL_TOTAL)
				sum[j] += col_get(&cols[j], e[i].val);

	if (out_is_json()) {
		open_json_array(PRINT_JSON, "flows");
		for (size_t i = 0; i < n; i++)
			print_json_entry(f, &e[i], now);
		close_json_array(PRINT_JSON, NULL);
		if (!totals)
			return;
		open_json_object("total");
		print_uint(PRINT_JSON, "flows", NULL, n);
		for (size_t j = 0; j < nc; j++)
			if (cols[j].flags & QD_COL_TOTAL)
				print_uint(PRINT_JSON, cols[j].name, NULL, sum[j]);
		close_json_object();
		return;
	}

	/* Text: the widest cell of each column first, then the rows. */
	for (size_t j = 0; j < nc; j++)
		width[j] = strlen(cols[j].name);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < nc; j++) {
			int w = strlen(cell(&cols[j], &e[i], now, buf[j]));

			if (w > width[j])
				width[j] = w;
		}
	}
	if (totals) {
		totals_text(f, sum, n, buf, text);
		for (size_t j = 0; j < nc; j++)
			if ((int)strlen(text[j]) > width[j])
				width[j] = strlen(text[j]);
	}
	for (size_t j = 0; j < nc; j++)
		text[j] = cols[j].name;
	print_row(cols, width, text);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < nc; j++)
			text[j] = cell(&cols[j], &e[i], now, buf[j]);
		print_row(cols, width, text);
	}
	if (totals) {
		totals_text(f, sum, n, buf, text);
		print_row(cols, width, text);
	}
}

/* The entry of old (sorted by index) at cur's index that is the same flow, or NULL. */
static const struct qd_flow_entry *same_flow(const struct qd_flows *f,
					     const struct qd_flow_entry *cur,
					     const struct qd_flow_entry *old, size_t nold)
{
	size_t lo = 0, hi = nold;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (old[mid].index < cur->index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nold && old[lo].index == cur->index &&
	    col_get(&f->cols[0], old[lo].val) == col_get(&f->cols[0], cur->val))
		return &old[lo];
	return NULL;
}

struct flow_rate {
	const struct qd_flow_entry *e, *old;
	double rank;
};

static int by_rank(const void *a, const void *b)
{
	const struct flow_rate *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	return x->e->index < y->e->index ? -1 : x->e->index > y->e->index;
}

static double col_rate(const struct qd_col *c, const struct flow_rate *r, double secs)
{
	uint64_t now = col_get(c, r->e->val), before = r->old ? col_get(c, r->old->val) : 0;

	/* A flow first seen in this interval counted all it has within it. */
	return now >= before ? (now - before) / secs : 0;
}

void qd_flows_print_rates(const struct qd_flows *f, const struct qd_flow_entry *cur, size_t n,
			  const struct qd_flow_entry *old, size_t nold, double secs, uint64_t now,
			  size_t max, const char *lead)
{
	const struct qd_col *rank = qd_flows_col(f, "bytes");
	struct flow_rate *r = calloc(n + 1, sizeof(*r));
	char buf[CELL_BUF], key[CELL_BUF + 16];

	for (const struct qd_col *c = f->cols; !(rank && (rank->flags & QD_COL_COUNTER)) && c->name;
	     c++)
		rank = c;
	if (!r || !rank || !(rank->flags & QD_COL_COUNTER) || secs <= 0) {
		free(r);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		r[i] = (struct flow_rate){ .e = &cur[i], .old = same_flow(f, &cur[i], old, nold) };
		r[i].rank = col_rate(rank, &r[i], secs);
	}
	qsort(r, n, sizeof(*r), by_rank);
	/* Not "flows": fq's count of flows has that key in the same object. */
	open_json_array(PRINT_JSON, "busiest_flows");
	/* Idle flows are not busy: those that sent nothing in the interval are left out. */
	for (size_t i = 0; i < n && i < max && r[i].rank > 0; i++) {
		open_json_object(NULL);
		print_text("%s", lead);
		for (const struct qd_col *c = f->cols; c->name; c++) {
			if (c->flags & QD_COL_COUNTER) {
				double v = col_rate(c, &r[i], secs);

				snprintf(key, sizeof(key), "%s_per_sec", c->name);
				print_uint(PRINT_JSON, key, NULL, (uint64_t)(v + 0.5));
				print_text(" %s %.0f/s", c->name, v);
				continue;
			}
			uint64_t v = col_get(c, r[i].e->val);

			if (c->type == QD_COL_COUNT)
				print_uint(PRINT_JSON, c->name, NULL, v);
			else if (c->type == QD_COL_DEADLINE && v)
				print_uint(PRINT_JSON, c->name, NULL, v > now ? v - now : 0);
			else if (c->type == QD_COL_DEADLINE)
				print_null(PRINT_JSON, c->name, NULL, NULL);
			else if (c->type == QD_COL_INT)
				print_int(PRINT_JSON, c->name, NULL, (int64_t)v);
			else
				print_string(PRINT_JSON, c->name, NULL, cell(c, r[i].e, now, buf));
			print_text(c == f->cols ? " %s%s:" : " %s %s", c == f->cols ? "" : c->name,
				   cell(c, r[i].e, now, buf));
		}
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	free(r);
}
