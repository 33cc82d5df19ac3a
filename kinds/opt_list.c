// SPDX-License-Identifier: GPL-2.0
/*
 * QD_OPT_LIST: .count numbers, each in min..max, stored as an array of
 * .width-byte elements from .off (defaults .defs), given all at once after
 * the name ("priomap 1 2 ..."); JSON "name":[1,2,...].
 */
#include <errno.h>
#include <stdio.h>

#include "kinds/opt.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"

static unsigned int list_words_n(const struct qd_opt *o, bool unset, int argc, char **argv, int i)
{
	(void)unset, (void)argc, (void)argv, (void)i;
	return o->count;
}

static const char *list_metavar(const struct qd_opt *o)
{
	(void)o;
	return "NUMBERS";
}

static const char *list_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	(void)o;
	return sprint_u64(v, "", buf, len);
}

static void list_defaults(const struct qd_opt *o, void *cfg)
{
	for (unsigned int i = 0; i < o->count; i++)
		qd_opt_set_at(o, cfg, i, o->defs[i]);
}

/*
 * "NAME V1 ... Vcount" after argv[i]: all count values, each checked as a
 * single value is; one more number after them is an error, not an option
 * name.
 */
static int parse_list(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv, int i,
		      void *cfg)
{
	char range[2 * UNITS_BUF + 32];
	int first = i + 1, last;
	uint64_t v;

	qd_opt_range(o, qd_opt_ops(o), range, sizeof(range));
	for (unsigned int n = 0; n < o->count; n++) {
		int w = first + n;

		if (w >= argc) {
			qd_err("%s: %s takes %u numbers, got %u", k->name, o->name, o->count, n);
			return -EINVAL;
		}
		if (qd_opt_count_value(o, argv[w], &v)) {
			qd_err("%s: %s takes %u numbers, got %u before \"%s\"", k->name, o->name,
			       o->count, n, qd_tok(argv[w]));
			return -EINVAL;
		}
		if (v < o->min || v > o->max) {
			qd_err("%s: %s value \"%s\" is out of range %s", k->name, o->name,
			       qd_tok(argv[w]), range);
			return -EINVAL;
		}
		qd_opt_set_at(o, cfg, n, v);
	}
	last = first + o->count - 1;
	if (last + 1 < argc && !qd_opt_count_value(o, argv[last + 1], &v)) {
		qd_err("%s: %s takes %u numbers; \"%s\" is one more", k->name, o->name, o->count,
		       qd_tok(argv[last + 1]));
		return -EINVAL;
	}
	return 0;
}

/* As tc prints priomap: "priomap 1 2 ...", JSON "priomap":[1,2,...]. */
static void print_list(const struct qd_opt *o, const void *cfg)
{
	if (qd_opt_quiet(o, qd_opt_get(o, cfg)))
		return;
	open_json_array(PRINT_JSON, o->json_key ?: o->name);
	print_string(PRINT_FP, NULL, "%s ", o->name);
	for (unsigned int i = 0; i < o->count; i++)
		print_uint(PRINT_ANY, NULL, "%llu ", qd_opt_get_at(o, cfg, i));
	close_json_array(PRINT_JSON, NULL);
}

static int list_words(const struct qd_opt *o, const void *cfg, struct qd_words *b)
{
	qd_opt_number_words(o, cfg, o->count, b);
	return 0;
}

static int list_diff(const struct qd_opt *o, const void *cur, const void *want, struct qd_words *d,
		     struct qd_words *w)
{
	return qd_opt_simple_diff(o, cur, want, o->count, d, w);
}

static void complete_list(const struct qd_opt *o, bool unset, unsigned int pos, FILE *f)
{
	(void)unset, (void)pos;
	qd_opt_complete_number(o, f);
}

static const char *list_default(const struct qd_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < o->count && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%llu", i ? " " : "",
			      (unsigned long long)o->defs[i]);
	return buf;
}

static void list_describe(const struct qd_opt *o)
{
	if (o->flags & QD_OPT_REQUIRED) {
		print_bool(PRINT_JSON, "required", NULL, true);
	} else {
		print_uint(PRINT_JSON, "count", NULL, o->count);
		open_json_array(PRINT_JSON, "default");
		for (unsigned int i = 0; i < o->count; i++)
			print_uint(PRINT_JSON, NULL, NULL, o->defs[i]);
		close_json_array(PRINT_JSON, NULL);
	}
	print_uint(PRINT_JSON, "min", NULL, o->min);
	print_uint(PRINT_JSON, "max", NULL, o->max);
}

static const struct qd_opt_ops list_ops = {
	.type = QD_OPT_LIST,
	.type_name = "list",
	.metavar = list_metavar,
	.nwords = list_words_n,
	.value = qd_opt_count_value,
	.text = list_text,
	.bound = qd_opt_count_bound,
	.exact_unit = "",
	.defaults = list_defaults,
	.parse = parse_list,
	.print = print_list,
	.words = list_words,
	.diff = list_diff,
	.complete = complete_list,
	.default_text = list_default,
	.describe = list_describe,
};
QD_OPT_TYPE_REGISTER(list_ops);
