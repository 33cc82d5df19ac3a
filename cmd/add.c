// SPDX-License-Identifier: GPL-2.0
#include <linux/netlink.h>

#include "cmd/cmd.h"

static int run_add(int argc, char **argv)
{
	return qd_cmd_new_qdisc(argc, argv, NLM_F_CREATE | NLM_F_EXCL);
}

static const struct qd_cmd add_cmd = {
	.name = "add",
	.args = "dev DEV (root | parent ID) [handle H] KIND [OPTIONS]",
	.summary = "create a qdisc; fails if one is already there",
	.help = "Registers KIND's BPF program with the kernel when no instance uses it yet.\n"
		"Kinds that are not qdiscctl's are passed to the kernel without options.\n"
		"\"root [handle H] mq KIND [OPTIONS]\" puts an mq root there with one KIND child\n"
		"(with those options) on every tx queue, or nothing when any of them fails.",
	.order = 10,
	.run = run_add,
};
QD_CMD_REGISTER(add_cmd);
