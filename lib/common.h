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

/*
 * A token (a word of the command line, a file's name, anything a user
 * wrote) as messages quote it: control bytes, C1 controls and bytes that
 * are not UTF-8 escaped (\n, \t, \r, \xNN), and cut after
 * QD_TOK_MAX bytes with "...". qd_err escapes the whole message the same
 * way, so no message is more than one line or sends a terminal escape; this
 * also keeps a long token from filling the screen. The result lives in
 * one of QD_TOK_BUFS buffers used in turn: enough for one message's tokens.
 */
#define QD_TOK_MAX  128
#define QD_TOK_BUFS 8
const char *qd_tok(const char *s);
/* The same for the n bytes at s (a part of a word). */
const char *qd_tokn(const char *s, size_t n);

/* Argument helpers that report the bad token themselves and return false. */
bool qd_need_arg(int argc, char **argv, int i);
bool qd_matches(const char *word, const char *full);

/*
 * Room for element n of the array *arrp points to (elements of size bytes,
 * *max of them allocated): doubles it, from first elements, when n has
 * reached *max. 0, or -ENOMEM with the array as it was.
 */
int qd_grow(void *arrp, int *max, int n, size_t size, int first);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
