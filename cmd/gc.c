// SPDX-License-Identifier: GPL-2.0
/*
 * gc: remove what no qdisc uses, or what a killed qdiscctl left half-made.
 * Every add and del sweeps on its own; gc does it on demand and says what
 * went.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "lib/common.h"
#include "lib/json_print.h"

static void report(const char *what, const char *reg, const char *detail, void *data)
{
	(void)data;
	open_json_object(NULL);
	print_string(PRINT_ANY, "removed", "removed %s", what);
	print_string(PRINT_ANY, "registration", " of %s", reg);
	print_string(PRINT_ANY, "detail", ": %s", detail);
	close_json_object();
	print_string(PRINT_FP, NULL, "%s", "\n");
}

static int run_gc(int argc, char **argv)
{
	int lock;

	if (argc > 1) {
		qd_err("gc: unexpected \"%s\"", qd_tok(argv[1]));
		return QD_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		qd_err("gc needs root (it reads and removes BPF pins)");
		return QD_EXIT_FAIL;
	}
	open_json_array(PRINT_JSON, NULL);
	if (!access(QD_PIN_ROOT, F_OK)) {
		lock = qd_lock();
		if (lock < 0) {
			close_json_array(PRINT_JSON, NULL);
			return QD_EXIT_FAIL;
		}
		qd_reg_sweep(report, NULL);
		qd_unlock(lock);
	}
	close_json_array(PRINT_JSON, NULL);
	return QD_EXIT_OK;
}

static const struct qd_cmd gc_cmd = {
	.name = "gc",
	.args = "",
	.summary = "remove unused or half-made registrations and say what went",
	.help = "Removes registrations without instances (except the one net.core.default_qdisc\n"
		"names) or without their link, maps or version record, options left for qdiscs\n"
		"that were never made, and egress links of root instances that are gone: what a\n"
		"qdiscctl killed half-way leaves. Every add and del does the same silently; gc\n"
		"prints one line per item removed (-j: an array of objects).",
	.order = 70,
	.run = run_gc,
};
QD_CMD_REGISTER(gc_cmd);
