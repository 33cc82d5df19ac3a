// SPDX-License-Identifier: GPL-2.0
/*
 * The option engine: the grammar's one walker, and parse, print, words,
 * differences and defaults over a kind's options, each through its type's
 * table of operations (kinds/opt.h, kinds/opt_TYPE.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kinds/opt.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"

/* --- the table of operations ------------------------------------------ */

extern const struct qd_opt_ops *const __start_qdiscctl_opt_types[];
extern const struct qd_opt_ops *const __stop_qdiscctl_opt_types[];

const struct qd_opt_ops *qd_opt_type_ops(enum qd_opt_type t)
{
	static const struct qd_opt_ops *by_type[QD_OPT_NTYPES];

	if ((unsigned int)t >= QD_OPT_NTYPES)
		return NULL;
	if (!by_type[t])
		for (const struct qd_opt_ops *const *p = __start_qdiscctl_opt_types;
		     p < __stop_qdiscctl_opt_types; p++)
			if ((*p)->type == t)
				by_type[t] = *p;
	return by_type[t];
}

const char *qd_opt_metavar(const struct qd_opt *o)
{
	const struct qd_opt_ops *ops = qd_opt_ops(o);

	if (o->metavar)
		return o->metavar;
	return ops->metavar ? ops->metavar(o) : NULL;
}

bool qd_opt_is_keyword(const struct qd_opt *o)
{
	return qd_opt_ops(o)->keyword;
}

const char *qd_opt_value_text(const struct qd_opt *o, const struct qd_opt_ops *vt, uint64_t v,
			      char *buf, size_t len)
{
	if (o->special && v == o->special_val)
		return o->special;
	return vt->text(o, v, buf, len);
}

const char *qd_opt_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	return qd_opt_value_text(o, qd_opt_ops(o), v, buf, len);
}

bool qd_opt_quiet(const struct qd_opt *o, uint64_t v)
{
	return ((o->flags & QD_OPT_QUIET_DEFAULT) && v == o->def) ||
	       ((o->flags & QD_OPT_QUIET_ZERO) && !v);
}

void qd_kind_defaults(const struct qd_kind *k, void *cfg)
{
	memset(cfg, 0, k->cfg_size);
	for (const struct qd_opt *o = k->opts; o->name; o++)
		if (qd_opt_ops(o)->defaults)
			qd_opt_ops(o)->defaults(o, cfg);
}

/* --- the grammar ------------------------------------------------------ */

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

unsigned int qd_kind_entries_read(const struct qd_kind *k, const struct qd_opt *o, const void *cfg)
{
	uint32_t n;

	if (!k->entries || strcmp(k->entries->opt, o->name))
		return o->count;
	memcpy(&n, (const char *)cfg + k->entries->count_off, sizeof(n));
	/* Read back from a map: no more than the options hold. */
	return n < o->count ? n : o->count;
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

bool qd_kind_walk(const struct qd_kind *k, int argc, char **argv, struct qd_opt_step *s)
{
	int i = s->i + 1 + (int)s->n;

	if (i >= argc)
		return false;
	*s = (struct qd_opt_step){ .i = i };
	s->o = find_keyword(k, argv[i], &s->idx);
	if (s->o) {
		s->how = QD_STEP_KEYWORD;
		return true;
	}
	s->o = qd_kind_unset(k, argv[i]);
	s->how = QD_STEP_UNSET;
	if (!s->o) {
		s->o = qd_kind_named(k, argv[i]);
		s->how = QD_STEP_NAME;
	}
	if (s->o)
		s->n = qd_opt_ops(s->o)->nwords(s->o, s->how == QD_STEP_UNSET, argc, argv, i);
	else
		s->how = QD_STEP_UNKNOWN;
	return true;
}

int qd_kind_parse(const struct qd_kind *k, int argc, char **argv, void *cfg)
{
	if (qd_kind_parse_words(k, argc, argv, cfg))
		return -EINVAL;
	return k->check ? k->check(k, cfg) : 0;
}

int qd_kind_parse_words(const struct qd_kind *k, int argc, char **argv, void *cfg)
{
	struct qd_opt_step s = QD_OPT_STEP_START;

	while (qd_kind_walk(k, argc, argv, &s)) {
		const struct qd_opt_ops *ops = s.o ? qd_opt_ops(s.o) : NULL;
		int err = 0;

		switch (s.how) {
		case QD_STEP_UNKNOWN:
			qd_err("%s: unknown option \"%s\" (see 'qdiscctl help %s')", k->name,
			       qd_tok(argv[s.i]), k->name);
			return -EINVAL;
		case QD_STEP_KEYWORD:
			qd_opt_set(s.o, cfg, s.idx);
			break;
		case QD_STEP_UNSET:
			err = ops->unset(k, s.o, argc, argv, s.i, cfg);
			break;
		case QD_STEP_NAME:
			err = ops->parse(k, s.o, argc, argv, s.i, cfg);
			break;
		}
		if (err)
			return -EINVAL;
	}
	return 0;
}

int qd_kind_check_required(const struct qd_kind *k, int argc, char **argv)
{
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		struct qd_opt_step s = QD_OPT_STEP_START;
		bool given = false;

		if (!(o->flags & QD_OPT_REQUIRED))
			continue;
		while (!given && qd_kind_walk(k, argc, argv, &s))
			given = s.o == o && s.how == QD_STEP_NAME;
		if (!given) {
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

/* --- values shared by the types ----------------------------------------- */

void qd_opt_range(const struct qd_opt *o, const struct qd_opt_ops *vt, char *buf, size_t len)
{
	char lo[UNITS_BUF], hi[UNITS_BUF];

	vt->bound(o->min, lo, sizeof(lo));
	vt->bound(o->max, hi, sizeof(hi));
	if (o->special)
		snprintf(buf, len, "%s..%s or %s", lo, hi, o->special);
	else
		snprintf(buf, len, "%s..%s", lo, hi);
}

int qd_opt_check(const struct qd_kind *k, const struct qd_opt *o, const struct qd_opt_ops *vt,
		 const char *name, const char *metavar, const char *s, uint64_t *v)
{
	char range[2 * UNITS_BUF + 32];

	qd_opt_range(o, vt, range, sizeof(range));
	if (o->special && !strcmp(s, o->special)) {
		*v = o->special_val;
		return 0;
	}
	if (vt->value(o, s, v)) {
		qd_err("%s: invalid %s \"%s\": expected %s %s", k->name, name, qd_tok(s), metavar,
		       range);
		return -EINVAL;
	}
	if ((*v < o->min || *v > o->max) && !(o->special && *v == o->special_val)) {
		qd_err("%s: %s \"%s\" is out of range %s", k->name, name, qd_tok(s), range);
		return -EINVAL;
	}
	/* sch_fq rounds buckets to a power of two; saying so beats a silent change. */
	if ((o->flags & QD_OPT_POW2) && (*v & (*v - 1))) {
		qd_err("%s: %s \"%s\" is not a power of two (%s)", k->name, o->name, qd_tok(s),
		       range);
		return -EINVAL;
	}
	return 0;
}

const char *qd_opt_value_word(const struct qd_opt *o, const struct qd_opt_ops *vt, uint64_t v,
			      char *buf, size_t len)
{
	const char *text = qd_opt_value_text(o, vt, v, buf, len);
	uint64_t back;

	/* A word (the special one, or a fixed text) is returned as it is, numbers in buf. */
	if (text != buf)
		return text;
	if (!vt->value(o, buf, &back) && back == v)
		return buf;
	snprintf(buf, len, "%llu%s", (unsigned long long)v, vt->exact_unit);
	return buf;
}

void qd_opt_complete_number(const struct qd_opt *o, FILE *f)
{
	if (o->special)
		fprintf(f, "%s\n", o->special);
	/* Powers of two are few: 13 up to 4096, at most 64 for any width. */
	if (o->flags & QD_OPT_POW2)
		for (uint64_t v = 1; v && v <= o->max; v <<= 1)
			if (v >= o->min)
				fprintf(f, "%llu\n", (unsigned long long)v);
}

void qd_opt_describe_number(const struct qd_opt *o)
{
	if (o->flags & QD_OPT_REQUIRED)
		print_bool(PRINT_JSON, "required", NULL, true);
	else
		print_uint(PRINT_JSON, "default", NULL, o->def);
	print_uint(PRINT_JSON, "min", NULL, o->min);
	print_uint(PRINT_JSON, "max", NULL, o->max);
}

/* --- printing, words and differences ------------------------------------ */

void qd_kind_print(const struct qd_kind *k, const void *cfg)
{
	for (const struct qd_opt *o = k->opts; o->name; o++)
		qd_opt_ops(o)->print(o, cfg);
}

void qd_words_add(struct qd_words *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->n, b->len - b->n, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->n) {
		b->full = true;
		b->p[b->n] = '\0';
		return;
	}
	b->n += n;
}

void qd_words_word(struct qd_words *b, const char *s)
{
	for (; *s; s++)
		qd_words_add(b, strchr(" \t\r\n'\"#\\", *s) ? "\\%c" : "%c", *s);
}

void qd_opt_number_words(const struct qd_opt *o, const void *cfg, unsigned int n,
			 struct qd_words *b)
{
	const struct qd_opt_ops *ops = qd_opt_ops(o);
	char v[UNITS_BUF];

	qd_words_add(b, "%s%s", qd_words_sep(b, " "), o->name);
	for (unsigned int i = 0; i < n; i++)
		qd_words_add(b, " %s",
			     qd_opt_value_word(o, ops, qd_opt_get_at(o, cfg, i), v, sizeof(v)));
}

int qd_kind_words(const struct qd_kind *k, const void *cfg, char *buf, size_t len)
{
	struct qd_words b = QD_WORDS(buf, len);

	buf[0] = '\0';
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int err = qd_opt_ops(o)->words(o, cfg, &b);

		if (err)
			return err;
	}
	return b.full ? -ENOSPC : 0;
}

int qd_opt_simple_diff(const struct qd_opt *o, const void *cur, const void *want, unsigned int n,
		       struct qd_words *d, struct qd_words *w)
{
	const struct qd_opt_ops *ops = qd_opt_ops(o);
	char a[QD_OPT_WORDS_MAX], b[QD_OPT_WORDS_MAX];
	struct qd_words from = QD_WORDS(a, sizeof(a)), to = QD_WORDS(b, sizeof(b));
	bool equal = true;

	for (unsigned int i = 0; i < n && equal; i++) {
		uint64_t v = qd_opt_get_at(o, want, i);

		equal = qd_opt_get_at(o, cur, i) == v ||
			((o->flags & QD_OPT_RESOLVED) && o->special && v == o->special_val);
	}
	if (equal)
		return 0;
	/* "limit 1000 -> 2000": the option's words, then only the new values. */
	a[0] = b[0] = '\0';
	ops->words(o, cur, &from);
	ops->words(o, want, &to);
	qd_words_add(d, "%s%s -> %s", qd_words_sep(d, ", "), a,
		     ops->keyword ? b : b + strlen(o->name) + 1);
	qd_words_add(w, "%s%s", qd_words_sep(w, " "), b);
	return 1;
}

int qd_kind_diff(const struct qd_kind *k, const void *cur, const void *want, char *desc,
		 size_t dlen, char *words, size_t wlen)
{
	struct qd_words d = QD_WORDS(desc, dlen), w = QD_WORDS(words, wlen);
	int n = 0;

	desc[0] = words[0] = '\0';
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		int m = qd_opt_ops(o)->diff(o, cur, want, &d, &w);

		if (m < 0)
			return m;
		n += m;
	}
	return d.full || w.full ? -ENOSPC : n;
}
