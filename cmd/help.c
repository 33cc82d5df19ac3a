// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "kinds/describe.h"
#include "lib/common.h"
#include "lib/json_print.h"

void qd_usage(FILE *f)
{
	fprintf(f, "usage: qdiscctl [OPTIONS] COMMAND [ARGS]\n\ncommands:\n");
	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++)
		if (!(*c)->hidden)
			fprintf(f, "  %-8s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\nkinds:");
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		fprintf(f, " %s", (*k)->name);
	fprintf(f, "\n\n'qdiscctl help COMMAND|KIND' tells more; 'qdiscctl --help' lists the "
		   "options.\n");
}

static void json_cmd(const struct qd_cmd *c, bool full)
{
	open_json_object(NULL);
	print_string(PRINT_JSON, "name", NULL, c->name);
	if (c->alias)
		print_string(PRINT_JSON, "alias", NULL, c->alias);
	print_string(PRINT_JSON, "args", NULL, c->args);
	print_string(PRINT_JSON, "summary", NULL, c->summary);
	if (full && c->help)
		print_string(PRINT_JSON, "help", NULL, c->help);
	close_json_object();
}

/* With -j: {"commands":[...],"kinds":[NAME...]}. */
static void json_usage(void)
{
	open_json_object(NULL);
	open_json_array(PRINT_JSON, "commands");
	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++)
		if (!(*c)->hidden)
			json_cmd(*c, false);
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "kinds");
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		print_string(PRINT_JSON, NULL, NULL, (*k)->name);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

static int run_help(int argc, char **argv)
{
	const struct qd_cmd *const *c;
	const struct qd_kind *k;

	if (argc > 2) {
		qd_err("help: unexpected \"%s\"", qd_tok(argv[2]));
		return QD_EXIT_USAGE;
	}
	if (argc == 1) {
		if (out_is_json())
			json_usage();
		else
			qd_usage(stdout);
		return QD_EXIT_OK;
	}
	k = qd_kind_find(argv[1]);
	if (k) {
		open_json_object(NULL);
		qd_kind_describe(k, true);
		close_json_object();
		return QD_EXIT_OK;
	}
	for (c = qd_cmds(); *c; c++) {
		if (strcmp((*c)->name, argv[1]) && (!(*c)->alias || strcmp((*c)->alias, argv[1])))
			continue;
		if (out_is_json()) {
			json_cmd(*c, true);
			return QD_EXIT_OK;
		}
		printf("usage: qdiscctl %s %s\n\n%s.\n", (*c)->name, (*c)->args, (*c)->summary);
		if ((*c)->help)
			printf("%s\n", (*c)->help);
		return QD_EXIT_OK;
	}
	qd_err("help: no command or kind \"%s\"", qd_tok(argv[1]));
	return QD_EXIT_USAGE;
}

static const struct qd_cmd help_cmd = {
	.name = "help",
	.args = "[COMMAND | KIND]",
	.summary = "explain a command or a kind",
	.order = 60,
	.run = run_help,
};
QD_CMD_REGISTER(help_cmd);
