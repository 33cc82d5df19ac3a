// SPDX-License-Identifier: GPL-2.0
/*
 * `qdiscctl __complete WHAT [ARGS]`: the words completions/qdiscctl.bash
 * offers, one per line. The script keeps only the grammar (which keyword
 * takes what); every list comes from here, so a new kind, option, command
 * or sysctl is completed without touching the script.
 *
 * Errors are quiet: the shell calls this on every Tab and must show nothing
 * but candidates. -n has already moved us into the namespace (main does it
 * before any command), so devices and handles are that namespace's.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/complete.h"
#include "lib/common.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"
#include "sysctl/sysctl.h"

static int commands(char **argv)
{
	(void)argv;
	for (const struct qd_cmd *const *c = qd_cmds(); *c; c++)
		if (!(*c)->hidden)
			printf("%s\n", (*c)->name);
	return QD_EXIT_OK;
}

/* argp's own options: it adds them to every program with a version hook. */
static const char *const argp_builtin[] = { "--help", "--usage", "--version", "-V", NULL };

/* The command a typed word stands for: abbreviations and aliases resolve. */
static int command(char **argv)
{
	const struct qd_cmd *c = qd_cmd_find(argv[0]);

	if (!c)
		return QD_EXIT_USAGE;
	printf("%s\n", c->name);
	return QD_EXIT_OK;
}

static int options(char **argv)
{
	bool with_arg = argv[0] && !strcmp(argv[0], "arg");

	for (const struct argp_option *o = qd_global_options; o->name || o->key; o++) {
		if (with_arg && !o->arg)
			continue;
		if (o->name)
			printf("--%s\n", o->name);
		if (o->key > ' ' && o->key < 127)
			printf("-%c\n", o->key);
	}
	for (int i = 0; !with_arg && argp_builtin[i]; i++)
		printf("%s\n", argp_builtin[i]);
	return QD_EXIT_OK;
}

static int kinds(char **argv)
{
	(void)argv;
	for (const struct qd_kind *const *k = qd_kinds(); *k; k++)
		printf("%s\n", (*k)->name);
	return QD_EXIT_OK;
}

static int kind_options(char **argv)
{
	const struct qd_kind *k = qd_kind_find(argv[0]);

	if (!k)
		return QD_EXIT_FAIL;
	qd_complete_kind_words(k, stdout);
	return QD_EXIT_OK;
}

/*
 * argv: the kind, then the words typed after it. Exit 1 when the next word
 * is no option's value, so the script offers options instead.
 */
static int kind_values(char **argv)
{
	const struct qd_kind *k = qd_kind_find(argv[0]);
	int n = 0;

	while (argv[1 + n])
		n++;
	if (!k || qd_complete_kind_values(k, n, argv + 1, stdout))
		return QD_EXIT_FAIL;
	return QD_EXIT_OK;
}

static int columns(char **argv)
{
	(void)argv;
	qd_complete_columns(qd_kinds(), stdout);
	return QD_EXIT_OK;
}

static int devices(char **argv)
{
	struct if_nameindex *ifs = if_nameindex();

	(void)argv;
	if (!ifs)
		return QD_EXIT_FAIL;
	for (struct if_nameindex *i = ifs; i->if_index; i++)
		printf("%s\n", i->if_name);
	if_freenameindex(ifs);
	return QD_EXIT_OK;
}

static int note_handle(const struct qdisc_info *qi, void *data)
{
	qd_handles_add(data, qi);
	return 0;
}

static int handles(char **argv)
{
	unsigned int ifindex = if_nametoindex(argv[0]);
	struct qd_handles h = {};
	struct rtnl rt;
	int err;

	if (!ifindex || rtnl_open(&rt))
		return QD_EXIT_FAIL;
	err = qdisc_dump(&rt, ifindex, note_handle, &h);
	rtnl_close(&rt);
	if (err)
		return QD_EXIT_KERNEL;
	qd_handles_print(&h, stdout);
	return QD_EXIT_OK;
}

static int sysctls(char **argv)
{
	(void)argv;
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++)
		printf("%s\n", s->name);
	return QD_EXIT_OK;
}

static const struct {
	const char *what;
	int nargs; /* words after WHAT; optional ones are not counted */
	int (*fn)(char **argv);
} whats[] = {
	{ "commands", 0, commands },	     { "command", 1, command },
	{ "options", 0, options },	     { "kinds", 0, kinds },
	{ "kind-options", 1, kind_options }, { "kind-values", 2, kind_values },
	{ "columns", 0, columns },	     { "devices", 0, devices },
	{ "handles", 1, handles },	     { "sysctls", 0, sysctls },
};

static int run_complete(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < ARRAY_SIZE(whats); i++) {
		if (strcmp(argv[1], whats[i].what))
			continue;
		if (argc - 2 < whats[i].nargs)
			return QD_EXIT_USAGE;
		return whats[i].fn(argv + 2);
	}
	/* Called by hand without a valid WHAT: say what exists. */
	fprintf(stderr, "usage: qdiscctl __complete WHAT [ARGS]; WHAT is one of:");
	for (size_t i = 0; i < ARRAY_SIZE(whats); i++)
		fprintf(stderr, " %s", whats[i].what);
	fprintf(stderr, "\n");
	return QD_EXIT_USAGE;
}

static const struct qd_cmd complete_cmd = {
	.name = "__complete",
	.args = "WHAT [ARGS]",
	.summary = "print completion candidates for the shell, one per line",
	.order = 1000,
	.hidden = true,
	.run = run_complete,
};
QD_CMD_REGISTER(complete_cmd);
