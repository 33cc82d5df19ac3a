// SPDX-License-Identifier: GPL-2.0
/*
 * A kind's own counters, read from its "insts" value and shown after the
 * basic statistics the way tc shows a native qdisc's xstats.
 */
#include <stdlib.h>
#include <string.h>

#include "kinds/kind.h"
#include "lib/cgroup.h"
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

static void print_stat(const struct qd_stat *s, uint64_t v)
{
	char buf[UNITS_BUF];

	print_uint(PRINT_JSON, s->name, NULL, v);
	/* The text's conversion is a %s: print_uint writes the number there. */
	if (s->type == QD_STAT_COUNT) {
		print_uint(PRINT_FP, NULL, s->text, v);
		return;
	}
	if (s->type == QD_STAT_RATE)
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

void qd_kind_print_rows(const struct qd_kind *k, const void *cfg, const void *inst, size_t size)
{
	const struct qd_stat_rows *r = k->rows;
	const struct qd_cgroup_val *e;
	const struct qd_opt *o;
	char path[4096];

	if (!r || !(o = qd_kind_named(k, r->opt)) || o->type != QD_OPT_CGROUPS)
		return;
	e = (const struct qd_cgroup_val *)((const char *)cfg + o->off);
	open_json_array(PRINT_JSON, r->name);
	for (unsigned int i = 0; i < o->count; i++) {
		size_t base = r->off + (size_t)i * r->stride;
		const char *row = (const char *)inst + base;
		uint64_t key = 0;

		if (!e[i].id)
			continue;
		if (base + r->stride <= size)
			memcpy(&key, row + r->key_off, sizeof(key));
		open_json_object(NULL);
		if (qd_cgroup_path(e[i].id, path, sizeof(path))) {
			print_text("  %s ", o->name);
			print_string(PRINT_ANY, "path", "%s:", path);
		} else {
			print_null(PRINT_JSON, "path", NULL, NULL);
			print_text("  %s (removed, id %llu):", o->name,
				   (unsigned long long)e[i].id);
		}
		print_uint(PRINT_JSON, "id", NULL, e[i].id);
		for (const struct qd_stat *s = r->stats; s->name; s++) {
			uint64_t v = 0;

			if (key == e[i].id && base + s->off + s->width <= size)
				memcpy(&v, row + s->off, s->width);
			print_stat(s, v);
		}
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
}

void qd_kind_print_table(const struct qd_kind *k, const void *inst, size_t size, const void *cfg)
{
	const struct qd_stat_table *t = k->table;
	unsigned int n;
	uint64_t v;

	char *recs;

	if (!t || !(recs = malloc((size_t)t->max * t->size)))
		return;
	n = t->fill(inst, size, cfg, recs);
	open_json_array(PRINT_JSON, t->name);
	for (unsigned int i = 0; i < n && i < t->max; i++) {
		const char *r = recs + (size_t)i * t->size;

		open_json_object(NULL);
		for (const struct qd_stat *s = t->stats; s->name; s++)
			if (stat_value(s, r, t->size, 0, &v))
				print_stat(s, v);
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
	free(recs);
}
