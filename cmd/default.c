// SPDX-License-Identifier: GPL-2.0
/*
 * default: make one of qdiscctl's kinds net.core.default_qdisc, the kind
 * the kernel gives devices that come up without a qdisc of their own and
 * the children of an mq it creates, and put the previous value back.
 *
 * The sysctl is host-wide (only the initial network namespace has it), so
 * -n does not apply. core/default_qdisc.c owns the sysctl, its save file
 * and the registration it names; this file is the command line and the
 * printing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cmd/cmd.h"
#include "core/default_qdisc.h"
#include "core/instance.h"
#include "core/registry.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"

#define DEFAULT_QDISC "/proc/sys/net/core/default_qdisc"
#define SAVED	      QD_DEFAULT_SAVED

static int show_default(void)
{
	char cur[64], saved[64] = "";
	const struct qd_kind *k;
	int err = qd_default_get(cur, sizeof(cur));

	if (err) {
		qd_err("cannot read %s: %s", DEFAULT_QDISC, strerror(-err));
		return QD_EXIT_FAIL;
	}
	qd_default_saved(saved, sizeof(saved));
	k = qd_reg_kind(cur);
	open_json_object(NULL);
	print_string(PRINT_ANY, "default_qdisc", "%s ", k ? k->id : cur);
	if (k) {
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];
		struct qd_reg r;

		print_string(PRINT_JSON, "kind", NULL, k->name);
		if (qd_opts.details || strcmp(cur, k->id))
			print_string(PRINT_ANY, "version", "version %s ", cur);
		/* The options every instance the kernel makes of it starts with. */
		if (!qd_reg_open_id(cur, &r)) {
			if (!qd_reg_defaults(&r, cfg)) {
				open_json_object("options");
				qd_kind_print(k, cfg);
				close_json_object();
			}
			qd_reg_close(&r);
		}
	}
	if (saved[0])
		print_string(PRINT_ANY, "saved", "('default restore' puts back %s)", saved);
	close_json_object();
	print_string(PRINT_FP, NULL, "%s", "\n");
	return QD_EXIT_OK;
}

static int run_default(int argc, char **argv)
{
	const struct qd_kind *k = NULL;
	bool restore = argc == 2 && !strcmp(argv[1], "restore");
	int ret;

	if (argc == 1)
		return show_default();
	if (!restore && !(k = qd_kind_find(argv[1]))) {
		qd_err("default: \"%s\" is not one of qdiscctl's kinds (see 'qdiscctl kinds') nor "
		       "\"restore\"",
		       qd_tok(argv[1]));
		return QD_EXIT_USAGE;
	}
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	if (k) {
		qd_kind_defaults(k, cfg);
		if (qd_kind_parse(k, argc - 2, argv + 2, cfg) ||
		    qd_kind_check_required(k, argc - 2, argv + 2) ||
		    qd_kind_caps_check(k, qd_opts.capacity))
			return QD_EXIT_USAGE;
		if ((ret = qd_check_kernel(k)))
			return ret;
	}
	if (geteuid() != 0) {
		qd_err("default needs root (it writes %s)", DEFAULT_QDISC);
		return QD_EXIT_FAIL;
	}
	return (k ? qd_default_set_kind(k, cfg) : qd_default_restore()) ? QD_EXIT_FAIL : QD_EXIT_OK;
}

static const struct qd_cmd default_cmd = {
	.name = "default",
	.args = "[KIND [OPTIONS] | restore]",
	.summary = "show or set net.core.default_qdisc to one of qdiscctl's kinds",
	.help = "With KIND, registers it if needed and makes it net.core.default_qdisc: devices\n"
		"that come up without a qdisc of their own (not veth or dummy, which get noqueue)\n"
		"and the children of every mq get it, with OPTIONS as their options. The first\n"
		"one saves the old value in\n" SAVED ";\n"
		"\"restore\" puts it back, and the registration goes once no instance uses it.\n"
		"Without arguments, shows the current default. The sysctl is host-wide: -n does\n"
		"not apply.",
	.order = 57,
	.run = run_default,
};
QD_CMD_REGISTER(default_cmd);
