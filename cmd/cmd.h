/* SPDX-License-Identifier: GPL-2.0 */
/* A subcommand: one file under cmd/ defines and registers one. */
#ifndef QDISCCTL_CMD_H
#define QDISCCTL_CMD_H

#include <argp.h>
#include <stdbool.h>

struct qd_cmd {
	const char *name;
	const char *alias;   /* tc's other spelling (delete, list), or NULL */
	const char *args;    /* synopsis after the name */
	const char *summary; /* one line */
	const char *help;    /* more, for `qdiscctl help NAME`; may be NULL */
	int order;	     /* position in listings */
	/*
	 * Plumbing for the shell and the build (__complete, __man): left out
	 * of listings and found only by its exact name, so that abbreviations
	 * of real commands never reach it.
	 */
	bool hidden;
	/* argv[0] is the command name; returns an exit code (enum qd_exit). */
	int (*run)(int argc, char **argv);
};

#define QD_CMD_REGISTER(cmd)                               \
	static const struct qd_cmd *const qd_cmd_ptr_##cmd \
		__attribute__((used, section("qdiscctl_cmds"), aligned(sizeof(void *)))) = &cmd

/* The commands in listing order, NULL-ended. */
const struct qd_cmd *const *qd_cmds(void);
/* By name or unambiguous prefix; prints why and returns NULL otherwise. */
const struct qd_cmd *qd_cmd_find(const char *word);

/* The command overview `help` and a bare `qdiscctl` print. */
#include <stdio.h>
void qd_usage(FILE *f);

/*
 * The global options, as argp parses them in qdiscctl.c; completion and the
 * man page read the same table so they cannot drift from --help.
 */
extern const struct argp_option qd_global_options[];

/* Run one command line (argv[0] = command): what `-b` does for each line. */
int qd_cmd_run(int argc, char **argv);

struct rtnl;
/* rt opened: QD_EXIT_OK, or QD_EXIT_FAIL with the reason said. */
int qd_cmd_rtnl(struct rtnl *rt);
/* A command that changes qdiscs: root's only, then rt opened, as qd_cmd_rtnl. */
int qd_cmd_root_rtnl(const char *cmd, struct rtnl *rt);

/* add and replace share everything but the netlink flags. */
int qd_cmd_new_qdisc(int argc, char **argv, unsigned int nlflags);

#endif
