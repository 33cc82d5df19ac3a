// SPDX-License-Identifier: GPL-2.0
#include "cmd/cmd.h"
#include "kinds/describe.h"
#include "lib/common.h"
#include "lib/json_print.h"

static int run_kinds(int argc, char **argv)
{
	if (argc > 1) {
		qd_err("kinds: unexpected \"%s\"", argv[1]);
		return QD_EXIT_USAGE;
	}
	open_json_array(PRINT_JSON, NULL);
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		qd_kind_describe(*k, false);
	close_json_array(PRINT_JSON, NULL);
	return QD_EXIT_OK;
}

static const struct qd_cmd kinds_cmd = {
	.name = "kinds",
	.args = "",
	.summary = "list the qdisc kinds qdiscctl carries, with their options and defaults",
	.order = 50,
	.run = run_kinds,
};
QD_CMD_REGISTER(kinds_cmd);
