// SPDX-License-Identifier: GPL-2.0
#include <linux/netlink.h>

#include "cmd/cmd.h"

static int run_replace(int argc, char **argv)
{
	return qd_cmd_new_qdisc(argc, argv, NLM_F_CREATE | NLM_F_REPLACE);
}

static const struct qd_cmd replace_cmd = {
	.name = "replace",
	.args = "dev DEV (root | parent ID) [handle H] KIND [OPTIONS]",
	.summary = "create a qdisc, or replace the one there",
	.help = "Replacing an instance of the same kind updates its options in place,\n"
		"keeping its queued packets.\n"
		"\"root [handle H] mq KIND [OPTIONS]\" puts an mq root there with one KIND child\n"
		"(with those options) on every tx queue, or nothing when any of them fails.",
	.order = 20,
	.run = run_replace,
};
QD_CMD_REGISTER(replace_cmd);
