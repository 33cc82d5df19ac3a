// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscctl: BPF qdiscs the way tc manages qdiscs.
 *
 * Global options come before the command, as with tc; everything after
 * the command word belongs to the command, so a value like "-5" reaches
 * the command's parser and is reported there.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "cmd/cmd.h"
#include "lib/batch.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "netlink/netns.h"

static void print_version(FILE *f, struct argp_state *state)
{
	(void)state;
	fprintf(f, "qdiscctl %s (libbpf %s)\n", QDISCCTL_VERSION, libbpf_version_string());
}
void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;

enum { OPT_FORCE = 0x100 };

const struct argp_option qd_global_options[] = {
	{ "stats", 's', NULL, 0, "Show statistics (repeat for more)", 0 },
	{ "details", 'd', NULL, 0, "Show details: BPF slots and registrations", 0 },
	{ "json", 'j', NULL, 0, "Print JSON (tc -j keys)", 0 },
	{ "pretty", 'p', NULL, 0, "Indent JSON (implies -j)", 0 },
	{ "netns", 'n', "NAME", 0,
	  "Run in network namespace NAME (as ip netns names it); registrations in bpffs stay "
	  "host-wide",
	  0 },
	{ "batch", 'b', "FILE", 0, "Run the commands in FILE, one per line ('-' for stdin)", 0 },
	{ "force", OPT_FORCE, NULL, 0, "With -b, go on after a failing command", 0 },
	{ "capacity", 'C', "NAME=N,...", 0,
	  "Capacities of a kind registered by this command (instances, and the kind's own: "
	  "'qdiscctl help KIND'); an existing registration with less is not used",
	  0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's messages; twice, the verifier log too", 0 },
	{}
};

static const char doc[] =
	"Manage BPF qdiscs the way tc manages qdiscs.\v"
	"'qdiscctl help' lists the commands.\n"
	"Exit status: 0 ok, 1 failure, 2 rejected by the kernel, 3 kernel without "
	"BPF qdisc support, 255 bad command line.";

struct cmdline {
	int cmd_index; /* argv index of the command word, 0 if none */
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct cmdline *cl = state->input;

	switch (key) {
	case 's':
		qd_opts.stats++;
		break;
	case 'd':
		qd_opts.details = true;
		break;
	case 'p':
		qd_opts.pretty = true;
		/* fall through */
	case 'j':
		qd_opts.json = true;
		break;
	case 'n':
		qd_opts.netns = arg;
		break;
	case 'b':
		qd_opts.batch = arg;
		break;
	case OPT_FORCE:
		qd_opts.force = true;
		break;
	case 'C':
		qd_opts.capacity = arg;
		break;
	case 'v':
		qd_opts.verbose++;
		break;
	case ARGP_KEY_ARG:
		/* The command word: stop option parsing here. */
		cl->cmd_index = state->next - 1;
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int run_line(int argc, char **argv)
{
	int ret;

	out_start(stdout, qd_opts.json, qd_opts.pretty);
	ret = qd_cmd_run(argc, argv);
	out_end();
	return ret;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		qd_global_options, parse_opt, "COMMAND [ARGS...]", doc, NULL, NULL, NULL
	};
	struct cmdline cl = {};
	int err;

	argp_err_exit_status = QD_EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &cl))
		return QD_EXIT_USAGE;
	if (qd_opts.netns) {
		err = netns_enter(qd_opts.netns);
		if (err) {
			qd_err("cannot enter network namespace \"%s\": %s", qd_tok(qd_opts.netns),
			       strerror(-err));
			return QD_EXIT_FAIL;
		}
	}
	if (qd_opts.batch) {
		if (cl.cmd_index) {
			qd_err("-b takes its commands from the file, not \"%s\"",
			       qd_tok(argv[cl.cmd_index]));
			return QD_EXIT_USAGE;
		}
		return batch_run(qd_opts.batch, qd_opts.force, run_line);
	}
	if (qd_opts.force) {
		qd_err("--force only applies to -b");
		return QD_EXIT_USAGE;
	}
	if (!cl.cmd_index) {
		qd_usage(stderr);
		return QD_EXIT_USAGE;
	}
	return run_line(argc - cl.cmd_index, argv + cl.cmd_index);
}
