// SPDX-License-Identifier: GPL-2.0
/* The command table, filled by QD_CMD_REGISTER in each cmd/ file. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/common.h"
#include "lib/json_print.h"

extern const struct qd_cmd *const __start_qdiscctl_cmds[];
extern const struct qd_cmd *const __stop_qdiscctl_cmds[];

static int by_order(const void *a, const void *b)
{
	return (*(const struct qd_cmd *const *)a)->order -
	       (*(const struct qd_cmd *const *)b)->order;
}

const struct qd_cmd *const *qd_cmds(void)
{
	static const struct qd_cmd **sorted;
	size_t n = __stop_qdiscctl_cmds - __start_qdiscctl_cmds;

	if (!sorted) {
		sorted = calloc(n + 1, sizeof(*sorted));
		if (!sorted)
			abort();
		memcpy(sorted, __start_qdiscctl_cmds, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), by_order);
	}
	return sorted;
}

const struct qd_cmd *qd_cmd_find(const char *word)
{
	const struct qd_cmd *found = NULL;

	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++) {
		if (!strcmp((*c)->name, word) || ((*c)->alias && !strcmp((*c)->alias, word)))
			return *c;
		if ((*c)->hidden)
			continue;
		if (qd_matches(word, (*c)->name)) {
			if (found) {
				qd_err("command \"%s\" is ambiguous (%s, %s, ...)", qd_tok(word),
				       found->name, (*c)->name);
				return NULL;
			}
			found = *c;
		}
	}
	if (!found)
		qd_err("unknown command \"%s\" (try 'qdiscctl help')", qd_tok(word));
	return found;
}

int qd_cmd_run(int argc, char **argv)
{
	const struct qd_cmd *c = qd_cmd_find(argv[0]);
	int ret;

	if (!c)
		return QD_EXIT_USAGE;
	ret = c->run(argc, argv);
	/*
	 * As bpftool: with -j a command that succeeds without output (add,
	 * replace, change, del) prints null, so every command's stdout is
	 * one JSON document.
	 */
	if (!ret && !c->hidden && out_is_json() && !out_emitted())
		print_null(PRINT_JSON, NULL, NULL, NULL);
	return ret;
}
