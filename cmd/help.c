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

static int run_help(int argc, char **argv)
{
	const struct qd_cmd *const *c;
	const struct qd_kind *k;

	if (argc > 2) {
		qd_err("help: unexpected \"%s\"", argv[2]);
		return QD_EXIT_USAGE;
	}
	if (argc == 1) {
		qd_usage(stdout);
		return QD_EXIT_OK;
	}
	k = qd_kind_find(argv[1]);
	if (k) {
		qd_kind_describe(k, true);
		return QD_EXIT_OK;
	}
	for (c = qd_cmds(); *c; c++) {
		if (strcmp((*c)->name, argv[1]) && (!(*c)->alias || strcmp((*c)->alias, argv[1])))
			continue;
		printf("usage: qdiscctl %s %s\n\n%s.\n", (*c)->name, (*c)->args, (*c)->summary);
		if ((*c)->help)
			printf("%s\n", (*c)->help);
		return QD_EXIT_OK;
	}
	qd_err("help: no command or kind \"%s\"", argv[1]);
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
