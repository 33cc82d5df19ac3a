// SPDX-License-Identifier: GPL-2.0
/*
 * Describing kinds: one walk over a descriptor (qd_kind_describe_to) and
 * its back ends, text and JSON here (`kinds`, `help KIND`) and troff in
 * cmd/man.c (the man page), so that a kind's help is rendered once.
 */
#include <stdio.h>
#include <string.h>

#include "kinds/describe.h"
#include "kinds/opt.h"
#include "lib/json_print.h"
#include "lib/units.h"

const char *qd_opt_default_text(const struct qd_opt *o, char *buf, size_t len)
{
	const struct qd_opt_ops *ops = qd_opt_ops(o);

	if (ops->default_text)
		return ops->default_text(o, buf, len);
	return qd_opt_text(o, o->def, buf, len);
}

void qd_opt_label(const struct qd_opt *o, char *buf, size_t len)
{
	const struct qd_opt_ops *ops = qd_opt_ops(o);

	if (ops->label)
		ops->label(o, buf, len);
	else
		snprintf(buf, len, "%s %s", o->name, qd_opt_metavar(o));
}

void qd_kind_synopsis(const struct qd_kind *k, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s", k->name);
	char l[128];

	for (const struct qd_opt *o = k->opts; o->name && n < len; o++) {
		const struct qd_opt_ops *ops = qd_opt_ops(o);

		qd_opt_label(o, l, sizeof(l));
		if ((o->flags & QD_OPT_REQUIRED) && !ops->keyword && !ops->repeat)
			n += snprintf(buf + n, len - n, " %s", l);
		else
			n += snprintf(buf + n, len - n, " [%s]%s", l, ops->repeat ? "..." : "");
	}
}

/* Call a back end's hook, which it may leave out (NULL) for what it does not print. */
#define HOOK(be, hook, ...)                      \
	do {                                     \
		if ((be)->hook)                  \
			(be)->hook(__VA_ARGS__); \
	} while (0)

void qd_kind_describe_to(const struct qd_kind *k, const struct qd_describer *be)
{
	char syn[1024], l[128], d[UNITS_BUF];

	qd_kind_synopsis(k, syn, sizeof(syn));
	HOOK(be, kind, k, syn);
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		qd_opt_label(o, l, sizeof(l));
		HOOK(be, option, o, l,
		     o->flags & QD_OPT_REQUIRED ? NULL : qd_opt_default_text(o, d, sizeof(d)));
		for (const struct qd_opt *f = o->fields; f && f->name; f++) {
			snprintf(l, sizeof(l), "%s %s", f->name, qd_opt_metavar(f));
			HOOK(be, field, o, f, l, qd_opt_default_text(f, d, sizeof(d)));
		}
	}
	HOOK(be, options_end, k);
	if (be->caps_first)
		HOOK(be, caps, k);
	if (k->stats && k->stats->name) {
		HOOK(be, list_begin, QD_DESC_STATS, k);
		for (const struct qd_stat *s = k->stats; s->name; s++) {
			const struct qd_stat *t = k->stats;

			/* tc uses some keys twice ("throttled" in fq); name them once. */
			while (t < s && strcmp(t->name, s->name))
				t++;
			if (t == s)
				HOOK(be, list_item, s->name, s == k->stats);
		}
		HOOK(be, list_end, QD_DESC_STATS);
	}
	if (k->table) {
		HOOK(be, list_begin, QD_DESC_TABLE, k);
		for (const struct qd_stat *s = k->table->stats; s->name; s++)
			HOOK(be, list_item, s->name, s == k->table->stats);
		HOOK(be, list_end, QD_DESC_TABLE);
	}
	if (k->flows) {
		HOOK(be, list_begin, QD_DESC_FLOWS, k);
		for (const struct qd_col *c = k->flows->cols; c->name; c++)
			HOOK(be, list_item, c->name, c == k->flows->cols);
		HOOK(be, list_end, QD_DESC_FLOWS);
	}
	if (!be->caps_first)
		HOOK(be, caps, k);
}

/* --- text: `help KIND`, and `kinds` (brief) --------------------------------- */

static void text_kind(const struct qd_kind *k, const char *syn)
{
	print_text("usage: qdiscctl add dev DEV (root | parent ID) [handle H] %s\n\n%s.\n"
		   "The kernel and tc show it as \"%s\".\n",
		   syn, k->summary, k->id);
	if (k->opts->name)
		print_text("\noptions:\n");
}

/* "default 1000" or "required" */
static const char *text_default(const char *dflt, char *buf, size_t len)
{
	if (dflt)
		snprintf(buf, len, "default %s", dflt);
	else
		snprintf(buf, len, "required");
	return buf;
}

static void text_option(const struct qd_opt *o, const char *label, const char *dflt)
{
	char b[UNITS_BUF + 16];

	print_text("  %-20s %s (%s)\n", label, o->help, text_default(dflt, b, sizeof(b)));
}

static void text_field(const struct qd_opt *o, const struct qd_opt *f, const char *label,
		       const char *dflt)
{
	(void)o;
	print_text("    %-18s %s (default %s)\n", label, f->help, dflt);
}

static void text_list_begin(enum qd_desc_list what, const struct qd_kind *k)
{
	if (what == QD_DESC_STATS)
		print_text("\nstatistics (show -s):");
	else if (what == QD_DESC_TABLE)
		print_text("\n%s (show -s, %s):", k->table->name, k->table->help);
	else
		print_text("\nflow table (show dev DEV flows [sort COLUMN]):");
}

static void text_list_item(const char *name, bool first)
{
	(void)first;
	print_text(" %s", name);
}

static void text_list_end(enum qd_desc_list what)
{
	(void)what;
	print_text("\n");
}

static void text_caps(const struct qd_kind *k)
{
	print_text("\ncapacities (fixed when the kind is registered; -C NAME=N sets them):\n");
	for (int i = 0; i < qd_kind_ncaps(k); i++) {
		const struct qd_cap *c = qd_kind_cap(k, i);

		if (c->def)
			print_text("  %-20s %s (default %u)\n", c->name, c->help, c->def);
		else
			print_text("  %-20s %s\n", c->name, c->help);
	}
}

static const struct qd_describer text_describer = {
	.kind = text_kind,
	.option = text_option,
	.field = text_field,
	.list_begin = text_list_begin,
	.list_item = text_list_item,
	.list_end = text_list_end,
	.caps = text_caps,
};

static void brief_kind(const struct qd_kind *k, const char *syn)
{
	(void)syn;
	print_text("%-8s %s (tc kind %s)\n", k->name, k->summary, k->id);
}

static void brief_option(const struct qd_opt *o, const char *label, const char *dflt)
{
	char b[UNITS_BUF + 16];

	(void)o;
	print_text("         %s (%s)\n", label, text_default(dflt, b, sizeof(b)));
}

static const struct qd_describer brief_describer = {
	.kind = brief_kind,
	.option = brief_option,
};

/* --- JSON: the members of the object the caller opens --------------------- */

static void json_kind(const struct qd_kind *k, const char *syn)
{
	(void)syn;
	print_string(PRINT_JSON, "name", NULL, k->name);
	print_string(PRINT_JSON, "id", NULL, k->id);
	print_string(PRINT_JSON, "summary", NULL, k->summary);
	open_json_array(PRINT_JSON, "options");
}

static void json_option(const struct qd_opt *o, const char *label, const char *dflt)
{
	(void)label, (void)dflt;
	open_json_object(NULL);
	print_string(PRINT_JSON, "name", NULL, o->name);
	print_string(PRINT_JSON, "type", NULL, qd_opt_ops(o)->type_name ?: qd_opt_metavar(o));
	qd_opt_ops(o)->describe(o);
	if (o->special)
		print_string(PRINT_JSON, "special", NULL, o->special);
	print_string(PRINT_JSON, "help", NULL, o->help);
	close_json_object();
}

static void json_options_end(const struct qd_kind *k)
{
	(void)k;
	close_json_array(PRINT_JSON, NULL);
}

static void json_list_begin(enum qd_desc_list what, const struct qd_kind *k)
{
	if (what == QD_DESC_TABLE) {
		open_json_object("stat_table");
		print_string(PRINT_JSON, "name", NULL, k->table->name);
		open_json_array(PRINT_JSON, "fields");
	} else {
		open_json_array(PRINT_JSON, what == QD_DESC_STATS ? "stats" : "flows");
	}
}

static void json_list_item(const char *name, bool first)
{
	(void)first;
	print_string(PRINT_JSON, NULL, NULL, name);
}

static void json_list_end(enum qd_desc_list what)
{
	close_json_array(PRINT_JSON, NULL);
	if (what == QD_DESC_TABLE)
		close_json_object();
}

static void json_caps(const struct qd_kind *k)
{
	open_json_array(PRINT_JSON, "capacities");
	for (int i = 0; i < qd_kind_ncaps(k); i++) {
		const struct qd_cap *c = qd_kind_cap(k, i);

		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, c->name);
		if (c->def)
			print_uint(PRINT_JSON, "default", NULL, c->def);
		print_uint(PRINT_JSON, "min", NULL, c->min);
		print_uint(PRINT_JSON, "max", NULL, c->max);
		print_string(PRINT_JSON, "help", NULL, c->help);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static const struct qd_describer json_describer = {
	.kind = json_kind,
	.option = json_option,
	.options_end = json_options_end,
	.list_begin = json_list_begin,
	.list_item = json_list_item,
	.list_end = json_list_end,
	.caps = json_caps,
};

void qd_kind_describe(const struct qd_kind *k, bool detailed)
{
	if (out_is_json())
		qd_kind_describe_to(k, &json_describer);
	else
		qd_kind_describe_to(k, detailed ? &text_describer : &brief_describer);
}
