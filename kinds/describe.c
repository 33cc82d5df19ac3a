// SPDX-License-Identifier: GPL-2.0
/* Describing kinds for people and scripts: `kinds`, `help KIND`. */
#include <stdio.h>
#include <string.h>

#include "kinds/describe.h"
#include "lib/json_print.h"
#include "lib/units.h"

static const char *default_text(const struct qd_opt *o, char *buf, size_t len)
{
	switch (o->type) {
	case QD_OPT_SIZE:
		return sprint_size(o->def, buf, len);
	case QD_OPT_TIME:
		return sprint_time(o->def, buf, len);
	case QD_OPT_RATE:
		return sprint_rate(o->def, buf, len);
	case QD_OPT_CHOICE:
		return o->choices[o->def];
	case QD_OPT_COUNT:
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)o->def);
	return buf;
}

void qd_kind_synopsis(const struct qd_kind *k, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s", k->name);

	for (const struct qd_opt *o = k->opts; o->name && n < len; o++) {
		if (o->type == QD_OPT_CHOICE) {
			n += snprintf(buf + n, len - n, " [");
			for (int i = 0; o->choices[i] && n < len; i++)
				n += snprintf(buf + n, len - n, "%s%s", i ? " | " : "",
					      o->choices[i]);
			if (n < len)
				n += snprintf(buf + n, len - n, "]");
		} else {
			n += snprintf(buf + n, len - n, " [%s %s]", o->name, qd_opt_metavar(o));
		}
	}
}

void qd_kind_describe(const struct qd_kind *k, bool detailed)
{
	char syn[1024], b[UNITS_BUF];

	open_json_object(NULL);
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
		print_string(PRINT_JSON, "type", NULL,
			     o->type == QD_OPT_CHOICE ? "choice" : qd_opt_metavar(o));
		if (o->type == QD_OPT_CHOICE) {
			open_json_array(PRINT_JSON, "choices");
			for (int i = 0; o->choices[i]; i++)
				print_string(PRINT_JSON, NULL, NULL, o->choices[i]);
			close_json_array(PRINT_JSON, NULL);
			print_string(PRINT_JSON, "default", NULL, o->choices[o->def]);
		} else {
			print_uint(PRINT_JSON, "default", NULL, o->def);
			print_uint(PRINT_JSON, "min", NULL, o->min);
			print_uint(PRINT_JSON, "max", NULL, o->max);
		}
		print_string(PRINT_JSON, "help", NULL, o->help);
		if (detailed)
			print_text("  %-20s %s (default %s)\n", o->name, o->help,
				   default_text(o, b, sizeof(b)));
		else
			print_text("         %s %s (default %s)\n", o->name,
				   o->type == QD_OPT_CHOICE ? "" : qd_opt_metavar(o),
				   default_text(o, b, sizeof(b)));
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}
