/* SPDX-License-Identifier: GPL-2.0 */
/* Global options, exit codes and error reporting shared by every command. */
#ifndef QDISCCTL_COMMON_H
#define QDISCCTL_COMMON_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes are part of the interface: scripts branch on them. */
enum qd_exit {
	QD_EXIT_OK = 0,
	QD_EXIT_FAIL = 1,	 /* local or runtime failure (device, bpffs, load) */
	QD_EXIT_KERNEL = 2,	 /* the kernel rejected the request */
	QD_EXIT_UNSUPPORTED = 3, /* the kernel has no BPF qdisc support */
	QD_EXIT_USAGE = 255,	 /* bad command line (as tc) */
};

struct qd_opts {
	int stats;   /* -s, repeatable */
	int verbose; /* -v, repeatable */
	bool json;
	bool pretty;
	bool details;
	const char *netns;
	const char *batch;
	bool force;
	/* -C NAME=N,...: capacities of the registrations this run makes. */
	const char *capacity;
	/* Where the command being run came from, for messages in batch mode. */
	const char *src_file;
	int src_line;
};

extern struct qd_opts qd_opts;

/* One line on stderr, prefixed with "qdiscctl: " (or FILE:LINE in batch). */
void qd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A kernel rejection, printed like tc: "Error: <extack>." or strerror. */
void qd_err_kernel(int err, const char *extack);

/* Argument helpers that report the bad token themselves and return false. */
bool qd_need_arg(int argc, char **argv, int i);
bool qd_matches(const char *word, const char *full);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
