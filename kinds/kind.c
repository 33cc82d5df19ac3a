// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/kind.h"
#include "lib/cgroup.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"

extern const struct qd_kind *const __start_qdiscctl_kinds[];
extern const struct qd_kind *const __stop_qdiscctl_kinds[];

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct qd_kind *const *)a)->name,
		      (*(const struct qd_kind *const *)b)->name);
}

const struct qd_kind *const *qd_kinds(void)
{
	static const struct qd_kind **sorted;
	size_t n = __stop_qdiscctl_kinds - __start_qdiscctl_kinds;

	if (!sorted) {
		sorted = calloc(n + 1, sizeof(*sorted));
		if (!sorted)
			abort();
		memcpy(sorted, __start_qdiscctl_kinds, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), by_name);
	}
	return sorted;
}

const struct qd_kind *qd_kind_find(const char *name)
{
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		if (!strcmp((*k)->name, name) || !strcmp((*k)->id, name))
			return *k;
	return NULL;
}

const struct qd_cap qd_instances_cap = {
	.name = "instances",
	.help = "instance slots of one registration (default: one for every tx queue of the "
		"host's devices, at least 64; a further registration is made when they run out)",
	.min = 1,
	.max = QD_SLOTS_MAX,
};

int qd_kind_ncaps(const struct qd_kind *k)
{
	int n = 1;

	while (k->caps && k->caps[n - 1].name && n < QD_CAPS_MAX)
		n++;
	return n;
}

const struct qd_cap *qd_kind_cap(const struct qd_kind *k, int i)
{
	return i == QD_CAP_INSTANCES ? &qd_instances_cap : &k->caps[i - 1];
}

int qd_kind_cap_index(const struct qd_kind *k, const char *name, size_t len)
{
	for (int i = 0; i < qd_kind_ncaps(k); i++) {
		const char *n = qd_kind_cap(k, i)->name;

		if (strlen(n) == len && !strncmp(n, name, len))
			return i;
	}
	return -1;
}

int qd_kind_caps_parse(const struct qd_kind *k, const char *spec, uint32_t *cap, bool *named)
{
	const char *p = spec;

	while (p && *p) {
		const char *end = strchrnul(p, ','), *eq = memchr(p, '=', end - p);
		const struct qd_cap *c;
		unsigned long long v;
		char *vend;
		int i;

		if (!eq) {
			qd_err("--capacity: \"%.*s\" is not NAME=NUMBER", (int)(end - p), p);
			return -EINVAL;
		}
		i = qd_kind_cap_index(k, p, eq - p);
		if (i < 0) {
			qd_err("--capacity: %s has no capacity \"%.*s\" ('qdiscctl help %s' lists "
			       "them)",
			       k->name, (int)(eq - p), p, k->name);
			return -EINVAL;
		}
		c = qd_kind_cap(k, i);
		errno = 0;
		v = isdigit((unsigned char)eq[1]) ? strtoull(eq + 1, &vend, 0) : 0;
		if (!isdigit((unsigned char)eq[1]) || errno || vend != end || v < c->min ||
		    v > c->max || ((c->flags & QD_CAP_POW2) && (v & (v - 1)))) {
			qd_err("--capacity: %s %s \"%.*s\" is not %s from %u to %u", k->name,
			       c->name, (int)(end - eq - 1), eq + 1,
			       c->flags & QD_CAP_POW2 ? "a power of two" : "a number", c->min,
			       c->max);
			return -EINVAL;
		}
		cap[i] = v;
		if (named)
			named[i] = true;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int qd_kind_caps_check(const struct qd_kind *k, const char *spec)
{
	uint32_t cap[QD_CAPS_MAX];

	return qd_kind_caps_parse(k, spec, cap, NULL);
}

/* The capacity o's value needs: v, or the power of two above it. */
static uint64_t cap_need(const struct qd_cap *c, uint64_t v)
{
	uint64_t p = 1;

	if (!(c->flags & QD_CAP_POW2))
		return v;
	while (p < v)
		p <<= 1;
	return p;
}

void qd_kind_caps_for(const struct qd_kind *k, const void *cfg, uint32_t *want, bool *named)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int i = o->cap ? qd_kind_cap_index(k, o->cap, strlen(o->cap)) : -1;
		uint64_t v;

		if (i < 0)
			continue;
		v = cap_need(qd_kind_cap(k, i), qd_opt_get(o, cfg));
		if (v > UINT32_MAX)
			v = UINT32_MAX;
		if (!named[i] || want[i] < v)
			want[i] = v;
		named[i] = true;
	}
}

const struct qd_opt *qd_kind_caps_exceeded(const struct qd_kind *k, const void *cfg,
					   const uint32_t *cap)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int i = o->cap ? qd_kind_cap_index(k, o->cap, strlen(o->cap)) : -1;

		if (i >= 0 && qd_opt_get(o, cfg) > cap[i])
			return o;
	}
	return NULL;
}

const char *qd_opt_metavar(const struct qd_opt *o)
{
	if (o->metavar)
		return o->metavar;
	switch (o->type) {
	case QD_OPT_COUNT:
		return o->unit && !strcmp(o->unit, "p") ? "PACKETS" : "NUMBER";
	case QD_OPT_SIZE:
		return "BYTES";
	case QD_OPT_TIME:
		return "TIME";
	case QD_OPT_RATE:
		return "RATE";
	case QD_OPT_LIST:
		return "NUMBERS";
	case QD_OPT_CGROUPS:
		return "PATH";
	case QD_OPT_BOOL:
	case QD_OPT_WORD:
		break;
	}
	return NULL;
}

bool qd_opt_is_keyword(const struct qd_opt *o)
{
	return o->type == QD_OPT_BOOL || o->type == QD_OPT_WORD;
}

uint64_t qd_opt_get_at(const struct qd_opt *o, const void *cfg, unsigned int i)
{
	const char *p = (const char *)cfg + o->off + (size_t)i * o->width;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (o->width) {
	case 1:
		memcpy(&v8, p, sizeof(v8));
		return v8;
	case 2:
		memcpy(&v16, p, sizeof(v16));
		return v16;
	case 4:
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v64, p, sizeof(v64));
	return v64;
}

void qd_opt_set_at(const struct qd_opt *o, void *cfg, unsigned int i, uint64_t v)
{
	char *p = (char *)cfg + o->off + (size_t)i * o->width;
	uint8_t v8 = v;
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (o->width) {
	case 1:
		memcpy(p, &v8, sizeof(v8));
		break;
	case 2:
		memcpy(p, &v16, sizeof(v16));
		break;
	case 4:
		memcpy(p, &v32, sizeof(v32));
		break;
	default:
		memcpy(p, &v, sizeof(v));
	}
}

uint64_t qd_opt_get(const struct qd_opt *o, const void *cfg)
{
	return qd_opt_get_at(o, cfg, 0);
}

void qd_opt_set(const struct qd_opt *o, void *cfg, uint64_t v)
{
	qd_opt_set_at(o, cfg, 0, v);
}

unsigned int qd_opt_nvalues(const struct qd_opt *o)
{
	if (qd_opt_is_keyword(o))
		return 0;
	if (o->type == QD_OPT_CGROUPS)
		return 3; /* PATH SUB VALUE */
	return o->type == QD_OPT_LIST ? o->count : 1;
}

/* A keyword option's word for v; a value no keyword has (a map written by hand) shows as "?". */
static const char *keyword(const struct qd_opt *o, uint64_t v)
{
	for (uint64_t i = 0; o->choices[i]; i++)
		if (i == v)
			return o->choices[i];
	return "?";
}

const char *qd_opt_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	if (o->special && v == o->special_val)
		return o->special;
	switch (o->type) {
	case QD_OPT_COUNT:
		return sprint_u64(v, o->unit ? o->unit : "", buf, len);
	case QD_OPT_LIST:
		return sprint_u64(v, "", buf, len);
	case QD_OPT_SIZE:
		return sprint_size(v, buf, len);
	case QD_OPT_TIME:
		return sprint_time(v, buf, len);
	case QD_OPT_RATE:
		return sprint_rate(v, buf, len);
	case QD_OPT_CGROUPS:
		return "none";
	case QD_OPT_BOOL:
	case QD_OPT_WORD:
		break;
	}
	return keyword(o, v);
}

void qd_kind_defaults(const struct qd_kind *k, void *cfg)
{
	memset(cfg, 0, k->cfg_size);
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		if (o->type == QD_OPT_LIST) {
			for (unsigned int i = 0; i < o->count; i++)
				qd_opt_set_at(o, cfg, i, o->defs[i]);
		} else if (o->type != QD_OPT_CGROUPS) {
			qd_opt_set(o, cfg, o->def);
		}
	}
}

static const struct qd_opt *find_keyword(const struct qd_kind *k, const char *word, uint64_t *idx)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		if (!qd_opt_is_keyword(o))
			continue;
		for (uint64_t i = 0; o->choices[i]; i++) {
			if (!strcmp(o->choices[i], word)) {
				*idx = i;
				return o;
			}
		}
	}
	return NULL;
}

const struct qd_opt *qd_kind_named(const struct qd_kind *k, const char *word)
{
	for (const struct qd_opt *o = k->opts; o->name; o++)
		if (!qd_opt_is_keyword(o) && !strcmp(o->name, word))
			return o;
	return NULL;
}

const struct qd_opt *qd_kind_unset(const struct qd_kind *k, const char *word)
{
	for (const struct qd_opt *o = k->opts; o->name; o++)
		if (o->unset && !strcmp(o->unset, word))
			return o;
	return NULL;
}

bool qd_kind_knows(const struct qd_kind *k, const char *word)
{
	uint64_t idx;

	return qd_kind_named(k, word) || qd_kind_unset(k, word) || find_keyword(k, word, &idx);
}

static int parse_value(enum qd_opt_type type, const struct qd_opt *o, const char *s, uint64_t *v)
{
	int err;

	bool decimal = o->flags & QD_OPT_DECIMAL;

	switch (type) {
	case QD_OPT_COUNT:
	case QD_OPT_LIST:
		err = decimal ? parse_u64(s, v) : parse_u64_base0(s, v);
		if (!err && o->width <= 4 && *v > UINT32_MAX)
			err = -ERANGE;
		return err;
	case QD_OPT_SIZE:
		/* tc reads fq's quanta with get_unsigned: bare bytes in C's bases. */
		if (!decimal && !parse_u64_base0(s, v))
			return 0;
		return parse_size(s, v);
	case QD_OPT_TIME:
		return parse_time_bare(s, o->bare_ns ?: 1000, v);
	case QD_OPT_RATE:
		return parse_rate(s, v);
	case QD_OPT_BOOL:
	case QD_OPT_WORD:
	case QD_OPT_CGROUPS:
		break;
	}
	return -EINVAL;
}

/* The type of what an option's value word holds. */
static enum qd_opt_type value_type(const struct qd_opt *o)
{
	return o->type == QD_OPT_CGROUPS ? o->sub_type : o->type;
}

static void print_range(const struct qd_opt *o, char *buf, size_t len)
{
	char lo[UNITS_BUF], hi[UNITS_BUF];

	switch (value_type(o)) {
	case QD_OPT_SIZE:
		sprint_size(o->min, lo, sizeof(lo));
		sprint_size(o->max, hi, sizeof(hi));
		break;
	case QD_OPT_TIME:
		sprint_time(o->min, lo, sizeof(lo));
		sprint_time(o->max, hi, sizeof(hi));
		break;
	case QD_OPT_RATE:
		sprint_rate(o->min, lo, sizeof(lo));
		sprint_rate(o->max, hi, sizeof(hi));
		break;
	default:
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)o->min);
		snprintf(hi, sizeof(hi), "%llu", (unsigned long long)o->max);
		break;
	}
	if (o->special)
		snprintf(buf, len, "%s..%s or %s", lo, hi, o->special);
	else
		snprintf(buf, len, "%s..%s", lo, hi);
}

/* Check VALUE for option o into *v; prints why not and returns -EINVAL. */
static int parse_checked(const struct qd_kind *k, const struct qd_opt *o, const char *s,
			 uint64_t *v)
{
	const struct qd_opt sub = { .type = value_type(o) };
	char range[2 * UNITS_BUF + 32], name[64];

	/* An entry's value is named by both words: "cgroup rate". */
	if (o->type == QD_OPT_CGROUPS)
		snprintf(name, sizeof(name), "%s %s", o->name, o->sub);
	else
		snprintf(name, sizeof(name), "%s", o->name);
	print_range(o, range, sizeof(range));
	if (o->special && !strcmp(s, o->special)) {
		*v = o->special_val;
		return 0;
	}
	if (parse_value(sub.type, o, s, v)) {
		qd_err("%s: invalid %s \"%s\": expected %s %s", k->name, name, s,
		       o->type == QD_OPT_CGROUPS ? qd_opt_metavar(&sub) : qd_opt_metavar(o), range);
		return -EINVAL;
	}
	if ((*v < o->min || *v > o->max) && !(o->special && *v == o->special_val)) {
		qd_err("%s: %s \"%s\" is out of range %s", k->name, name, s, range);
		return -EINVAL;
	}
	/* sch_fq rounds buckets to a power of two; saying so beats a silent change. */
	if ((o->flags & QD_OPT_POW2) && (*v & (*v - 1))) {
		qd_err("%s: %s \"%s\" is not a power of two (%s)", k->name, o->name, s, range);
		return -EINVAL;
	}
	return 0;
}

static int parse_option(const struct qd_kind *k, const struct qd_opt *o, const char *s, void *cfg)
{
	uint64_t v;

	if (parse_checked(k, o, s, &v))
		return -EINVAL;
	qd_opt_set(o, cfg, v);
	return 0;
}

static struct qd_cgroup_val *cgroup_vals(const struct qd_opt *o, void *cfg)
{
	return (struct qd_cgroup_val *)((char *)cfg + o->off);
}

/* The cgroup a PATH word names; prints why not and returns -EINVAL. */
static int parse_cgroup(const struct qd_kind *k, const struct qd_opt *o, const char *path,
			uint64_t *id)
{
	int err = qd_cgroup_id(path, id);

	if (err == -ENOTDIR)
		qd_err("%s: %s \"%s\" is not a cgroup v2 directory", k->name, o->name, path);
	else if (err)
		qd_err("%s: %s \"%s\": %s", k->name, o->name, path, strerror(-err));
	return err ? -EINVAL : 0;
}

/*
 * "NAME PATH SUB VALUE": set the entry of PATH's cgroup, or take a free
 * one. Entries keep their places, so the program's per-entry state and
 * counters stay with their cgroup across changes.
 */
static int parse_cgroup_entry(const struct qd_kind *k, const struct qd_opt *o, char **words,
			      void *cfg)
{
	struct qd_cgroup_val *e = cgroup_vals(o, cfg), *slot = NULL;
	uint64_t id, v;

	if (parse_cgroup(k, o, words[0], &id))
		return -EINVAL;
	if (strcmp(words[1], o->sub)) {
		qd_err("%s: expected \"%s\" after %s %s, not \"%s\"", k->name, o->sub, o->name,
		       words[0], words[1]);
		return -EINVAL;
	}
	if (parse_checked(k, o, words[2], &v))
		return -EINVAL;
	for (unsigned int i = 0; i < o->count; i++) {
		if (e[i].id == id) {
			slot = &e[i];
			break;
		}
		if (!e[i].id && !slot)
			slot = &e[i];
	}
	if (!slot) {
		qd_err("%s: %s \"%s\": already %u cgroups, the most an instance takes", k->name,
		       o->name, words[0], o->count);
		return -EINVAL;
	}
	slot->id = id;
	slot->val = v;
	return 0;
}

static int parse_cgroup_unset(const struct qd_kind *k, const struct qd_opt *o, const char *path,
			      void *cfg)
{
	struct qd_cgroup_val *e = cgroup_vals(o, cfg);
	uint64_t id;

	if (parse_cgroup(k, o, path, &id))
		return -EINVAL;
	for (unsigned int i = 0; i < o->count; i++) {
		if (e[i].id == id) {
			e[i].id = 0;
			e[i].val = 0;
			return 0;
		}
	}
	qd_err("%s: %s \"%s\": no such cgroup here", k->name, o->unset, path);
	return -EINVAL;
}

/*
 * "NAME V1 ... Vcount" from argv[*i] on: all count values, each checked as
 * a single value is; one more number after them is an error, not an
 * option name. Leaves *i at the last word used.
 */
static int parse_list(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv,
		      int *i, void *cfg)
{
	char range[2 * UNITS_BUF + 32];
	uint64_t v;
	int first = *i + 1;

	print_range(o, range, sizeof(range));
	for (unsigned int n = 0; n < o->count; n++) {
		int w = first + n;

		if (w >= argc) {
			qd_err("%s: %s takes %u numbers, got %u", k->name, o->name, o->count, n);
			return -EINVAL;
		}
		if (parse_value(o->type, o, argv[w], &v)) {
			qd_err("%s: %s takes %u numbers, got %u before \"%s\"", k->name, o->name,
			       o->count, n, argv[w]);
			return -EINVAL;
		}
		if (v < o->min || v > o->max) {
			qd_err("%s: %s value \"%s\" is out of range %s", k->name, o->name, argv[w],
			       range);
			return -EINVAL;
		}
		qd_opt_set_at(o, cfg, n, v);
	}
	*i = first + o->count - 1;
	if (*i + 1 < argc && !parse_value(o->type, o, argv[*i + 1], &v)) {
		qd_err("%s: %s takes %u numbers; \"%s\" is one more", k->name, o->name, o->count,
		       argv[*i + 1]);
		return -EINVAL;
	}
	return 0;
}

int qd_kind_parse(const struct qd_kind *k, int argc, char **argv, void *cfg)
{
	if (qd_kind_parse_words(k, argc, argv, cfg))
		return -EINVAL;
	return k->check ? k->check(k, cfg) : 0;
}

int qd_kind_parse_words(const struct qd_kind *k, int argc, char **argv, void *cfg)
{
	for (int i = 0; i < argc; i++) {
		const struct qd_opt *o;
		uint64_t v;

		o = find_keyword(k, argv[i], &v);
		if (o) {
			qd_opt_set(o, cfg, v);
			continue;
		}
		o = qd_kind_unset(k, argv[i]);
		if (o) {
			if (!qd_need_arg(argc, argv, i) || parse_cgroup_unset(k, o, argv[++i], cfg))
				return -EINVAL;
			continue;
		}
		o = qd_kind_named(k, argv[i]);
		if (!o) {
			qd_err("%s: unknown option \"%s\" (see 'qdiscctl help %s')", k->name,
			       argv[i], k->name);
			return -EINVAL;
		}
		if (o->type == QD_OPT_CGROUPS) {
			if (!qd_need_arg(argc, argv, i) || !qd_need_arg(argc, argv, i + 1) ||
			    !qd_need_arg(argc, argv, i + 2) ||
			    parse_cgroup_entry(k, o, &argv[i + 1], cfg))
				return -EINVAL;
			i += 3;
			continue;
		}
		if (o->type == QD_OPT_LIST) {
			if (parse_list(k, o, argc, argv, &i, cfg))
				return -EINVAL;
			continue;
		}
		if (!qd_need_arg(argc, argv, i))
			return -EINVAL;
		if (parse_option(k, o, argv[++i], cfg))
			return -EINVAL;
	}
	return 0;
}

int qd_kind_check_required(const struct qd_kind *k, int argc, char **argv)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int i;

		if (!(o->flags & QD_OPT_REQUIRED))
			continue;
		/* Option words are followed by their values: look at the names only. */
		for (i = 0; i < argc; i++) {
			const struct qd_opt *n;

			if (!strcmp(argv[i], o->name))
				break;
			if ((n = qd_kind_named(k, argv[i])))
				i += qd_opt_nvalues(n);
			else if ((n = qd_kind_unset(k, argv[i])))
				i++;
		}
		if (i >= argc) {
			qd_err("%s: \"%s\" is required (see 'qdiscctl help %s')", k->name, o->name,
			       k->name);
			return -EINVAL;
		}
	}
	return 0;
}

int qd_kind_change(const struct qd_kind *k, const void *cur, int argc, char **argv, void *cfg)
{
	memcpy(cfg, cur, k->cfg_size);
	return qd_kind_parse(k, argc, argv, cfg);
}

/* Entries in use, in their order: text "NAME PATH SUB VALUE ...", a JSON array. */
static void print_cgroups(const struct qd_opt *o, const void *cfg)
{
	const struct qd_cgroup_val *e = cgroup_vals(o, (void *)cfg);
	struct qd_opt sub = { .type = o->sub_type };
	char buf[UNITS_BUF], path[4096];

	open_json_array(PRINT_JSON, o->name);
	for (unsigned int i = 0; i < o->count; i++) {
		if (!e[i].id)
			continue;
		open_json_object(NULL);
		/* A removed cgroup can only be named by its id. */
		if (qd_cgroup_path(e[i].id, path, sizeof(path))) {
			print_string(PRINT_JSON, "path", NULL, path);
			print_text("%s %s ", o->name, path);
		} else {
			print_null(PRINT_JSON, "path", NULL, NULL);
			print_text("%s (removed, id %llu) ", o->name, (unsigned long long)e[i].id);
		}
		print_uint(PRINT_JSON, "id", NULL, e[i].id);
		print_uint(PRINT_JSON, o->sub, NULL, e[i].val);
		print_text("%s %s ", o->sub, qd_opt_text(&sub, e[i].val, buf, sizeof(buf)));
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

void qd_kind_print(const struct qd_kind *k, const void *cfg)
{
	char buf[UNITS_BUF];

	for (const struct qd_opt *o = k->opts; o->name; o++) {
		uint64_t v;

		if (o->type == QD_OPT_CGROUPS) {
			print_cgroups(o, cfg);
			continue;
		}
		v = qd_opt_get(o, cfg);

		if (((o->flags & QD_OPT_QUIET_DEFAULT) && v == o->def) ||
		    ((o->flags & QD_OPT_QUIET_ZERO) && !v))
			continue;
		switch (o->type) {
		case QD_OPT_COUNT:
		case QD_OPT_SIZE:
		case QD_OPT_TIME:
		case QD_OPT_RATE:
			print_uint(PRINT_JSON, o->name, NULL, o->json_div ? v / o->json_div : v);
			print_string(PRINT_FP, NULL, "%s ", o->name);
			print_string(PRINT_FP, NULL, "%s ", qd_opt_text(o, v, buf, sizeof(buf)));
			break;
		case QD_OPT_BOOL:
			/* As tc prints nopacing: the word in text, a boolean in JSON. */
			print_bool(PRINT_JSON, o->name, NULL, v);
			print_string(PRINT_FP, NULL, "%s ", keyword(o, v));
			break;
		case QD_OPT_WORD:
			/* As tc prints horizon_drop: the word in text, a key with null in JSON. */
			print_null(PRINT_ANY, keyword(o, v), "%s ", keyword(o, v));
			break;
		case QD_OPT_CGROUPS:
			break;
		case QD_OPT_LIST:
			/* As tc prints priomap: "priomap 1 2 ...", JSON "priomap":[1,2,...]. */
			open_json_array(PRINT_JSON, o->name);
			print_string(PRINT_FP, NULL, "%s ", o->name);
			for (unsigned int i = 0; i < o->count; i++)
				print_uint(PRINT_ANY, NULL, "%llu ", qd_opt_get_at(o, cfg, i));
			close_json_array(PRINT_JSON, NULL);
			break;
		}
	}
}
