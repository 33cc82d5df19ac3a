// SPDX-License-Identifier: GPL-2.0
/* Describing kinds for people and scripts: `kinds`, `help KIND`. */
#include <stdio.h>
#include <string.h>

#include "kinds/describe.h"
#include "lib/json_print.h"
#include "lib/units.h"

const char *qd_opt_default_text(const struct qd_opt *o, char *buf, size_t len)
{
	if (o->type == QD_OPT_LIST) {
		size_t n = 0;

		buf[0] = '\0';
		for (unsigned int i = 0; i < o->count && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%llu", i ? " " : "",
				      (unsigned long long)o->defs[i]);
		return buf;
	}
	/* Help says "1000", not "1000p": the unit is in the metavar. */
	if (o->type == QD_OPT_COUNT && !(o->special && o->def == o->special_val)) {
		snprintf(buf, len, "%llu", (unsigned long long)o->def);
		return buf;
	}
	return qd_opt_text(o, o->def, buf, len);
}

static const char *type_name(const struct qd_opt *o)
{
	switch (o->type) {
	case QD_OPT_WORD:
		return "choice";
	case QD_OPT_BOOL:
		return "bool";
	case QD_OPT_LIST:
		return "list";
	case QD_OPT_CGROUPS:
		return "cgroups";
	default:
		return qd_opt_metavar(o);
	}
}

void qd_kind_synopsis(const struct qd_kind *k, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s", k->name);

	for (const struct qd_opt *o = k->opts; o->name && n < len; o++) {
		if (qd_opt_is_keyword(o)) {
			n += snprintf(buf + n, len - n, " [");
			for (int i = 0; o->choices[i] && n < len; i++)
				n += snprintf(buf + n, len - n, "%s%s", i ? " | " : "",
					      o->choices[i]);
			if (n < len)
				n += snprintf(buf + n, len - n, "]");
		} else if (o->type == QD_OPT_CGROUPS) {
			n += snprintf(buf + n, len - n, " [%s %s | %s PATH]...", o->name,
				      qd_opt_metavar(o), o->unset);
		} else if (o->flags & QD_OPT_REQUIRED) {
			n += snprintf(buf + n, len - n, " %s %s", o->name, qd_opt_metavar(o));
		} else {
			n += snprintf(buf + n, len - n, " [%s %s]", o->name, qd_opt_metavar(o));
		}
	}
}

void qd_opt_label(const struct qd_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	if (o->type == QD_OPT_CGROUPS) {
		snprintf(buf, len, "%s %s | %s PATH", o->name, qd_opt_metavar(o), o->unset);
		return;
	}
	if (!qd_opt_is_keyword(o)) {
		snprintf(buf, len, "%s %s", o->name, qd_opt_metavar(o));
		return;
	}
	buf[0] = '\0';
	for (int i = 0; o->choices[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " | " : "", o->choices[i]);
}

/* The names of the statistics and flow columns a kind adds: help text, JSON arrays. */
static void describe_tables(const struct qd_kind *k, bool detailed)
{
	if (k->stats && k->stats->name) {
		open_json_array(PRINT_JSON, "stats");
		if (detailed)
			print_text("\nstatistics (show -s):");
		for (const struct qd_stat *s = k->stats; s->name; s++) {
			const struct qd_stat *t = k->stats;

			/* tc uses some keys twice ("throttled" in fq); name them once. */
			while (t < s && strcmp(t->name, s->name))
				t++;
			if (t != s)
				continue;
			print_string(PRINT_JSON, NULL, NULL, s->name);
			if (detailed)
				print_text(" %s", s->name);
		}
		close_json_array(PRINT_JSON, NULL);
		if (detailed)
			print_text("\n");
	}
	if (k->table) {
		open_json_object("stat_table");
		print_string(PRINT_JSON, "name", NULL, k->table->name);
		open_json_array(PRINT_JSON, "fields");
		if (detailed)
			print_text("\n%s (show -s, %s):", k->table->name, k->table->help);
		for (const struct qd_stat *s = k->table->stats; s->name; s++) {
			print_string(PRINT_JSON, NULL, NULL, s->name);
			if (detailed)
				print_text(" %s", s->name);
		}
		close_json_array(PRINT_JSON, NULL);
		close_json_object();
		if (detailed)
			print_text("\n");
	}
	if (k->flows) {
		open_json_array(PRINT_JSON, "flows");
		if (detailed)
			print_text("\nflow table (show dev DEV flows [sort COLUMN]):");
		for (const struct qd_col *c = k->flows->cols; c->name; c++) {
			print_string(PRINT_JSON, NULL, NULL, c->name);
			if (detailed)
				print_text(" %s", c->name);
		}
		close_json_array(PRINT_JSON, NULL);
		if (detailed)
			print_text("\n");
	}
}

/* The capacities a registration of k is made with (-C NAME=N sets them). */
static void describe_caps(const struct qd_kind *k, bool detailed)
{
	open_json_array(PRINT_JSON, "capacities");
	if (detailed)
		print_text(
			"\ncapacities (fixed when the kind is registered; -C NAME=N sets them):\n");
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
		if (detailed && c->def)
			print_text("  %-20s %s (default %u)\n", c->name, c->help, c->def);
		else if (detailed)
			print_text("  %-20s %s\n", c->name, c->help);
	}
	close_json_array(PRINT_JSON, NULL);
}

void qd_kind_describe(const struct qd_kind *k, bool detailed)
{
	char syn[1024], b[UNITS_BUF + 16], d[UNITS_BUF], l[128];

	print_string(PRINT_JSON, "name", NULL, k->name);
	print_string(PRINT_JSON, "id", NULL, k->id);
	print_string(PRINT_JSON, "summary", NULL, k->summary);
	qd_kind_synopsis(k, syn, sizeof(syn));
	if (detailed)
		print_text("usage: qdiscctl add dev DEV (root | parent ID) [handle H] %s\n\n%s.\n"
			   "The kernel and tc show it as \"%s\".\n",
			   syn, k->summary, k->id);
	else
		print_text("%-8s %s (tc kind %s)\n", k->name, k->summary, k->id);
	open_json_array(PRINT_JSON, "options");
	if (detailed && k->opts->name)
		print_text("\noptions:\n");
	for (const struct qd_opt *o = k->opts; o->name; o++) {
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, o->name);
		print_string(PRINT_JSON, "type", NULL, type_name(o));
		if (qd_opt_is_keyword(o)) {
			open_json_array(PRINT_JSON, "choices");
			for (int i = 0; o->choices[i]; i++)
				print_string(PRINT_JSON, NULL, NULL, o->choices[i]);
			close_json_array(PRINT_JSON, NULL);
			print_string(PRINT_JSON, "default", NULL,
				     qd_opt_default_text(o, b, sizeof(b)));
		} else {
			if (o->flags & QD_OPT_REQUIRED) {
				print_bool(PRINT_JSON, "required", NULL, true);
			} else if (o->type == QD_OPT_LIST) {
				print_uint(PRINT_JSON, "count", NULL, o->count);
				open_json_array(PRINT_JSON, "default");
				for (unsigned int i = 0; i < o->count; i++)
					print_uint(PRINT_JSON, NULL, NULL, o->defs[i]);
				close_json_array(PRINT_JSON, NULL);
			} else {
				print_uint(PRINT_JSON, "default", NULL, o->def);
			}
			print_uint(PRINT_JSON, "min", NULL, o->min);
			print_uint(PRINT_JSON, "max", NULL, o->max);
		}
		if (o->type == QD_OPT_CGROUPS) {
			print_uint(PRINT_JSON, "entries", NULL, o->count);
			print_string(PRINT_JSON, "value", NULL, o->sub);
			print_string(PRINT_JSON, "unset", NULL, o->unset);
		}
		if (o->special)
			print_string(PRINT_JSON, "special", NULL, o->special);
		print_string(PRINT_JSON, "help", NULL, o->help);
		qd_opt_label(o, l, sizeof(l));
		if (o->flags & QD_OPT_REQUIRED)
			snprintf(b, sizeof(b), "required");
		else
			snprintf(b, sizeof(b), "default %s", qd_opt_default_text(o, d, sizeof(d)));
		if (detailed)
			print_text("  %-20s %s (%s)\n", l, o->help, b);
		else
			print_text("         %s (%s)\n", l, b);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	describe_tables(k, detailed);
	describe_caps(k, detailed);
}
