/* SPDX-License-Identifier: GPL-2.0 */
/* The Prometheus text exposition of every qdisc: metrics prints it, exporter serves it. */
#ifndef QDISCCTL_CMD_METRICS_H
#define QDISCCTL_CMD_METRICS_H

#include <stdbool.h>
#include <stdio.h>

/* Which network namespaces: the own (-n's), the named ones, or all of them. */
struct metrics_scope {
	bool all;
	int nnames;
	char **names; /* into argv */
};

/*
 * The words metrics and exporter take (argv[0] the command): "netns
 * NAME" (repeatable), "--all-netns", and with textfile "--textfile PATH".
 * 0, or -1 with the bad word said.
 */
int metrics_args(int argc, char **argv, struct metrics_scope *sc, const char **textfile);

/* The exposition for sc into f: 0, or -1 with the reason said. */
int metrics_write(FILE *f, const struct metrics_scope *sc);

#endif
