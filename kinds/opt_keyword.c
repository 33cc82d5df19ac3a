// SPDX-License-Identifier: GPL-2.0
/*
 * The keyword types: QD_OPT_BOOL (.choices = { off, on }) and QD_OPT_WORD
 * (one of .choices), stored as the keyword's index and typed as the
 * keyword alone, never by the option's name.
 */
#include <stdio.h>

#include "kinds/opt.h"
#include "lib/json_print.h"

/* A keyword option's word for v; a value no keyword has (a map written by hand) shows as "?". */
static const char *keyword(const struct qd_opt *o, uint64_t v)
{
	for (uint64_t i = 0; o->choices[i]; i++)
		if (i == v)
			return o->choices[i];
	return "?";
}

static unsigned int no_words(const struct qd_opt *o, bool unset, int argc, char **argv, int i)
{
	(void)o, (void)unset, (void)argc, (void)argv, (void)i;
	return 0;
}

static const char *keyword_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len)
{
	(void)buf, (void)len;
	return keyword(o, v);
}

static void set_default(const struct qd_opt *o, void *cfg)
{
	qd_opt_set(o, cfg, o->def);
}

static int keyword_words(const struct qd_opt *o, const void *cfg, struct qd_words *b)
{
	qd_words_add(b, "%s%s", qd_words_sep(b, " "), keyword(o, qd_opt_get(o, cfg)));
	return 0;
}

static int keyword_diff(const struct qd_opt *o, const void *cur, const void *want,
			struct qd_words *d, struct qd_words *w)
{
	return qd_opt_simple_diff(o, cur, want, 1, d, w);
}

/* "nopacing | pacing" */
static void keyword_label(const struct qd_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; o->choices[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " | " : "", o->choices[i]);
}

static void keyword_describe(const struct qd_opt *o)
{
	char b[64];

	open_json_array(PRINT_JSON, "choices");
	for (int i = 0; o->choices[i]; i++)
		print_string(PRINT_JSON, NULL, NULL, o->choices[i]);
	close_json_array(PRINT_JSON, NULL);
	print_string(PRINT_JSON, "default", NULL, qd_opt_text(o, o->def, b, sizeof(b)));
}

#define KEYWORD_OPS                                                                         \
	.keyword = true, .nwords = no_words, .text = keyword_text, .defaults = set_default, \
	.words = keyword_words, .diff = keyword_diff, .label = keyword_label,               \
	.describe = keyword_describe

/* As tc prints nopacing: the word in text, a boolean in JSON "name":false|true. */
static void print_bool_opt(const struct qd_opt *o, const void *cfg)
{
	uint64_t v = qd_opt_get(o, cfg);

	if (qd_opt_quiet(o, v))
		return;
	print_bool(PRINT_JSON, o->name, NULL, v);
	print_string(PRINT_FP, NULL, "%s ", keyword(o, v));
}

static const struct qd_opt_ops bool_ops = {
	.type = QD_OPT_BOOL,
	.type_name = "bool",
	.print = print_bool_opt,
	KEYWORD_OPS,
};
QD_OPT_TYPE_REGISTER(bool_ops);

/* As tc prints horizon_drop: the word in text, a key with null in JSON "keyword":null. */
static void print_word_opt(const struct qd_opt *o, const void *cfg)
{
	uint64_t v = qd_opt_get(o, cfg);

	if (qd_opt_quiet(o, v))
		return;
	print_null(PRINT_ANY, keyword(o, v), "%s ", keyword(o, v));
}

static const struct qd_opt_ops word_ops = {
	.type = QD_OPT_WORD,
	.type_name = "choice",
	.print = print_word_opt,
	KEYWORD_OPS,
};
QD_OPT_TYPE_REGISTER(word_ops);
