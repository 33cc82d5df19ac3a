// SPDX-License-Identifier: GPL-2.0
/*
 * A kind's own counters, read from its "insts" value and shown after the
 * basic statistics the way tc shows a native qdisc's xstats.
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/opt.h"
#include "lib/json_print.h"
#include "lib/units.h"

/* The value to show, false when it is not shown (absent or quiet). */
static bool stat_value(const struct qd_stat *s, const void *inst, size_t size, uint64_t now,
		       uint64_t *v)
{
	const char *p = (const char *)inst + s->off;
	uint32_t v32;

	/* An "insts" value from another build of the program may be shorter. */
	if (s->off + s->width > size)
		return false;
	if (s->width == 4) {
		memcpy(&v32, p, sizeof(v32));
		*v = v32;
	} else {
		memcpy(v, p, sizeof(*v));
	}
	if (s->type == QD_STAT_DEADLINE)
		*v = *v > now ? *v - now : 0;
	return !(s->flags & QD_STAT_NONZERO) || *v;
}

/*
 * JSON the value, text the descriptor's .text with the value in tc's
 * units as its one %s (test_kinds checks every kind's texts).
 */
static void print_stat(const struct qd_stat *s, uint64_t v)
{
	char buf[UNITS_BUF];

	print_uint(PRINT_JSON, s->name, NULL, v);
	if (s->type == QD_STAT_COUNT)
		sprint_u64(v, "", buf, sizeof(buf));
	else if (s->type == QD_STAT_RATE)
		sprint_rate(v, buf, sizeof(buf));
	else if (s->type == QD_STAT_SIZE)
		sprint_size(v, buf, sizeof(buf));
	else
		sprint_time(v, buf, sizeof(buf));
	print_string(PRINT_FP, NULL, s->text, buf);
}

void qd_kind_print_stats(const struct qd_kind *k, const void *inst, size_t size, uint64_t now)
{
	const struct qd_stat *line, *s;
	uint64_t v;

	if (!k->stats)
		return;
	for (line = k->stats; line->name; line = s) {
		bool shown = false;

		for (s = line; s->name && (s == line || !(s->flags & QD_STAT_NEWLINE)); s++)
			shown |= stat_value(s, inst, size, now, &v);
		if (!shown)
			continue;
		for (s = line; s->name && (s == line || !(s->flags & QD_STAT_NEWLINE)); s++)
			if (stat_value(s, inst, size, now, &v))
				print_stat(s, v);
		print_nl();
	}
}

/*
 * The records of a table, one JSON object and one text line each. With o,
 * record i belongs to entry entry[i] of option o, whose label comes first.
 */
static void print_records(const char *name, const struct qd_stat *stats, const char *recs,
			  unsigned int n, unsigned int size, const struct qd_opt *o,
			  const void *cfg, const unsigned int *entry)
{
	uint64_t v;

	open_json_array(PRINT_JSON, name);
	for (unsigned int i = 0; i < n; i++) {
		const char *r = recs + (size_t)i * size;

		open_json_object(NULL);
		if (o)
			qd_opt_ops(o)->print_entry(o, cfg, entry[i]);
		for (const struct qd_stat *s = stats; s->name; s++)
			if (stat_value(s, r, size, 0, &v))
				print_stat(s, v);
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
}

/*
 * Rows are a table whose records lie in the "insts" value itself, record i
 * for entry i of the option they follow: the entries configured, each with
 * its row, or zeros while the row has not counted for that entry's key.
 * The records (malloc'd, k->rows->stride bytes each) and the entries they
 * belong to into *recs and *entry: how many, 0 when there are none. cfg is
 * as read from the registration (qd_kind_entries_read).
 */
static unsigned int rows_records(const struct qd_kind *k, const void *cfg, const void *inst,
				 size_t size, const struct qd_opt **o, char **recs,
				 unsigned int **entry)
{
	const struct qd_stat_rows *r = k->rows;
	const struct qd_opt_ops *ops;
	unsigned int n = 0, used = 0, count;

	*recs = NULL;
	*entry = NULL;
	if (!r || !(*o = qd_kind_named(k, r->opt)) || !(ops = qd_opt_ops(*o))->entry_key)
		return 0;
	/* Room for the entries there are, not for all an instance may take (1,024 of edt's). */
	count = qd_kind_entries_read(k, *o, cfg);
	for (unsigned int i = 0; i < count; i++)
		used += !!ops->entry_key(*o, cfg, i);
	*recs = calloc(used ?: 1, r->stride);
	*entry = calloc(used ?: 1, sizeof(**entry));
	for (unsigned int i = 0; *recs && *entry && i < count; i++) {
		size_t base = r->off + (size_t)i * r->stride;
		uint64_t id = ops->entry_key(*o, cfg, i), key = 0;

		if (!id)
			continue;
		if (base + r->stride <= size)
			memcpy(&key, (const char *)inst + base + r->key_off, sizeof(key));
		if (key == id)
			memcpy(*recs + (size_t)n * r->stride, (const char *)inst + base, r->stride);
		(*entry)[n++] = i;
	}
	return *recs && *entry ? n : 0;
}

void qd_kind_print_rows(const struct qd_kind *k, const void *cfg, const void *inst, size_t size)
{
	const struct qd_opt *o;
	unsigned int *entry;
	char *recs;
	unsigned int n = rows_records(k, cfg, inst, size, &o, &recs, &entry);

	if (recs && entry)
		print_records(k->rows->name, k->rows->stats, recs, n, k->rows->stride, o, cfg,
			      entry);
	free(recs);
	free(entry);
}

/* t's records from an "insts" value (malloc'd; *n of them), or NULL. */
static char *table_fill(const struct qd_stat_table *t, const void *inst, size_t size,
			const void *cfg, unsigned int *n)
{
	char *recs;

	if (!t || !(recs = malloc((size_t)t->max * t->size)))
		return NULL;
	*n = t->fill(inst, size, cfg, recs);
	if (*n > t->max)
		*n = t->max;
	return recs;
}

void qd_kind_print_table(const struct qd_kind *k, const void *inst, size_t size, const void *cfg)
{
	unsigned int n;
	char *recs = table_fill(k->table, inst, size, cfg, &n);

	if (recs)
		print_records(k->table->name, k->table->stats, recs, n, k->table->size, NULL, NULL,
			      NULL);
	free(recs);
}

static size_t nstats(const struct qd_stat *s)
{
	size_t n = 0;

	while (s && s[n].name)
		n++;
	return n;
}

size_t qd_kind_samples_max(const struct qd_kind *k)
{
	const struct qd_opt *o;
	size_t n = nstats(k->stats);

	if (k->rows && (o = qd_kind_named(k, k->rows->opt)))
		n += (size_t)o->count * nstats(k->rows->stats);
	if (k->table)
		n += (size_t)k->table->max * nstats(k->table->stats);
	return n;
}

/* The QD_STAT_LABEL field of record r of t: its key. */
static uint64_t record_key(const struct qd_stat_table *t, const char *r)
{
	uint64_t v = 0;

	for (const struct qd_stat *s = t->stats; s->name; s++)
		if (s->flags & QD_STAT_LABEL) {
			stat_value(s, r, t->size, 0, &v);
			break;
		}
	return v;
}

/* Every stat of n records (size bytes each) as samples of group, keyed by key[i] or their label. */
static size_t record_samples(const struct qd_stat *stats, const char *recs, unsigned int n,
			     unsigned int size, enum qd_sample_group group,
			     const struct qd_stat_table *t, const uint64_t *key,
			     struct qd_sample *out)
{
	size_t m = 0;
	uint64_t v;

	for (unsigned int i = 0; i < n; i++) {
		const char *r = recs + (size_t)i * size;

		for (const struct qd_stat *s = stats; s->name; s++) {
			if (s->flags & QD_STAT_LABEL)
				continue;
			v = 0;
			stat_value(s, r, size, 0, &v);
			out[m++] = (struct qd_sample){
				.stat = s,
				.group = group,
				.key = t ? record_key(t, r) : key[i],
				.value = v,
			};
		}
	}
	return m;
}

size_t qd_kind_samples(const struct qd_kind *k, const void *inst, size_t size, const void *cfg,
		       uint64_t now, struct qd_sample *out)
{
	const struct qd_opt *o;
	unsigned int nrec, *entry;
	uint64_t *keys;
	size_t n = 0;
	char *recs;
	uint64_t v;

	for (const struct qd_stat *s = k->stats; s && s->name; s++) {
		v = 0;
		stat_value(s, inst, size, now, &v);
		out[n++] = (struct qd_sample){ .stat = s, .group = QD_SAMPLE_STATS, .value = v };
	}
	nrec = rows_records(k, cfg, inst, size, &o, &recs, &entry);
	keys = nrec ? calloc(nrec, sizeof(*keys)) : NULL;
	for (unsigned int i = 0; keys && i < nrec; i++)
		keys[i] = qd_opt_ops(o)->entry_key(o, cfg, entry[i]);
	if (keys)
		n += record_samples(k->rows->stats, recs, nrec, k->rows->stride, QD_SAMPLE_ROWS,
				    NULL, keys, out + n);
	free(keys);
	free(recs);
	free(entry);
	if ((recs = table_fill(k->table, inst, size, cfg, &nrec))) {
		n += record_samples(k->table->stats, recs, nrec, k->table->size, QD_SAMPLE_TABLE,
				    k->table, NULL, out + n);
		free(recs);
	}
	return n;
}

bool qd_stat_is_counter(const struct qd_stat *s)
{
	return s->type == QD_STAT_COUNT && !(s->flags & (QD_STAT_GAUGE | QD_STAT_LABEL));
}

const char *qd_stat_metric(const struct qd_stat *s)
{
	return s->metric ? s->metric : s->name;
}
