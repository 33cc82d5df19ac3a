// SPDX-License-Identifier: GPL-2.0
/*
 * The number types: QD_OPT_COUNT, QD_OPT_SIZE, QD_OPT_TIME, QD_OPT_RATE.
 * One value word after the name, read and shown in tc's units; they differ
 * only in those units.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kinds/opt.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"

int qd_opt_count_value(const struct qd_opt *o, const char *s, uint64_t *v)
{
	int err = o->flags & QD_OPT_DECIMAL ? parse_u64(s, v) : parse_u64_base0(s, v);

	if (!err && o->width <= 4 && *v > UINT32_MAX)
		err = -ERANGE;
	return err;
}

char *qd_opt_count_bound(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static unsigned int one_word(const struct qd_opt *o, bool unset, int argc, char **argv, int i)
{
	(void)o, (void)unset, (void)argc, (void)argv, (void)i;
	return 1;
}

static void set_default(const struct qd_opt *o, void *cfg)
{
	qd_opt_set(o, cfg, o->def);
}

static int parse_number(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv,
			int i, void *cfg)
{
	uint64_t v;

	if (!qd_need_arg(argc, argv, i) ||
	    qd_opt_check(k, o, qd_opt_ops(o), o->name, qd_opt_metavar(o), argv[i + 1], &v))
		return -EINVAL;
	qd_opt_set(o, cfg, v);
	return 0;
}

static void print_number(const struct qd_opt *o, const void *cfg)
{
	uint64_t v = qd_opt_get(o, cfg);
	char buf[UNITS_BUF];

	if (qd_opt_quiet(o, v))
		return;
	print_uint(PRINT_JSON, o->json_key ?: o->name, NULL, o->json_div ? v / o->json_div : v);
	print_string(PRINT_FP, NULL, "%s ", o->name);
	print_string(PRINT_FP, NULL, "%s ", qd_opt_text(o, v, buf, sizeof(buf)));
}

static int number_words(const struct qd_opt *o, const void *cfg, struct qd_words *b)
{
	qd_opt_number_words(o, cfg, 1, b);
	return 0;
}

static int number_diff(const struct qd_opt *o, const void *cur, const void *want,
		       struct qd_words *d, struct qd_words *w)
{
	return qd_opt_simple_diff(o, cur, want, 1, d, w);
}

static void complete_number(const struct qd_opt *o, bool unset, unsigned int pos, FILE *f)
{
	(void)unset, (void)pos;
	qd_opt_complete_number(o, f);
}

#define NUMBER_OPS                                                                                 \
	.nwords = one_word, .defaults = set_default, .parse = parse_number, .print = print_number, \
	.words = number_words, .diff = number_diff, .complete = complete_number,                   \
	.describe = qd_opt_describe_number

/* QD_OPT_COUNT: a plain number; text adds the option's unit ("p"). */
static const char *count_metavar(const struct qd_opt *o)
{
	return o->unit && !strcmp(o->unit, "p") ? "PACKETS" : "NUMBER";
}

static const char *count_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	return sprint_u64(v, o->unit ? o->unit : "", buf, len);
}

/* Help says "1000", not "1000p": the unit is in the metavar. */
static const char *count_default(const struct qd_opt *o, char *buf, size_t len)
{
	if (o->special && o->def == o->special_val)
		return o->special;
	return qd_opt_count_bound(o->def, buf, len);
}

static const struct qd_opt_ops count_ops = {
	.type = QD_OPT_COUNT,
	.metavar = count_metavar,
	.value = qd_opt_count_value,
	.text = count_text,
	.bound = qd_opt_count_bound,
	.exact_unit = "",
	.default_text = count_default,
	NUMBER_OPS,
};
QD_OPT_TYPE_REGISTER(count_ops);

/* QD_OPT_SIZE: bytes, tc size units. */
static const char *size_metavar(const struct qd_opt *o)
{
	(void)o;
	return "BYTES";
}

static int size_value(const struct qd_opt *o, const char *s, uint64_t *v)
{
	/* tc reads fq's quanta with get_unsigned: bare bytes in C's bases. */
	if (!(o->flags & QD_OPT_DECIMAL) && !parse_u64_base0(s, v))
		return 0;
	return parse_size(s, v);
}

static const char *size_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	(void)o;
	return sprint_size(v, buf, len);
}

static const struct qd_opt_ops size_ops = {
	.type = QD_OPT_SIZE,
	.metavar = size_metavar,
	.value = size_value,
	.text = size_text,
	.bound = sprint_size,
	.exact_unit = "b",
	NUMBER_OPS,
};
QD_OPT_TYPE_REGISTER(size_ops);

/* QD_OPT_TIME: nanoseconds, tc time units. */
static const char *time_metavar(const struct qd_opt *o)
{
	(void)o;
	return "TIME";
}

static int time_value(const struct qd_opt *o, const char *s, uint64_t *v)
{
	return parse_time_bare(s, o->bare_ns ?: 1000, v);
}

static const char *time_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	/* tc's print_time, for options it keeps in us: zero is "0us". */
	if (!v && !o->bare_ns)
		return "0us";
	return sprint_time(v, buf, len);
}

static const struct qd_opt_ops time_ops = {
	.type = QD_OPT_TIME,
	.metavar = time_metavar,
	.value = time_value,
	.text = time_text,
	.bound = sprint_time,
	.exact_unit = "ns",
	NUMBER_OPS,
};
QD_OPT_TYPE_REGISTER(time_ops);

/* QD_OPT_RATE: bytes per second, tc rate units. */
static const char *rate_metavar(const struct qd_opt *o)
{
	(void)o;
	return "RATE";
}

static int rate_value(const struct qd_opt *o, const char *s, uint64_t *v)
{
	(void)o;
	return parse_rate(s, v);
}

static const char *rate_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	(void)o;
	return sprint_rate(v, buf, len);
}

static const struct qd_opt_ops rate_ops = {
	.type = QD_OPT_RATE,
	.metavar = rate_metavar,
	.value = rate_value,
	.text = rate_text,
	.bound = sprint_rate,
	.exact_unit = "bps",
	NUMBER_OPS,
};
QD_OPT_TYPE_REGISTER(rate_ops);
