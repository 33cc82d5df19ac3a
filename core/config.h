/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The desired state `apply` and `watch` converge to: a file of statements
 * in qdiscctl's own grammar, one a line (read as batch files are, with
 * comments and backslash continuation):
 *
 *	dev DEV (root | parent ID) [handle H] KIND [OPTIONS]
 *	dev DEV root [handle H] mq KIND [OPTIONS]
 *	default KIND [OPTIONS]
 *	sysctl backpressure
 *	sysctl NAME VALUE
 *	netns NAME
 *
 * DEV may be a glob (veth*). A netns line puts the statements after it in
 * that network namespace. Everything here is pure: the file is parsed and
 * checked, and a statement is compared with what the kernel has, without
 * touching the system (cmd/apply.c does that).
 */
#ifndef QDISCCTL_CONFIG_H
#define QDISCCTL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "kinds/kind.h"
#include "lib/spec.h"
#include "netlink/qdisc.h"
#include "sysctl/sysctl.h"

enum qd_stmt_type {
	QD_STMT_QDISC,	 /* dev ... */
	QD_STMT_DEFAULT, /* default KIND [OPTIONS] */
	QD_STMT_SYSCTL,	 /* sysctl NAME VALUE */
	QD_STMT_PROFILE, /* sysctl backpressure */
};

struct qd_stmt {
	enum qd_stmt_type type;
	int line;
	const char *netns; /* NULL: where apply runs (-n or its own) */
	int nwords;
	char **words; /* as written; one allocation with the strings */
	/* QDISC: the place (dev may be a glob) and the kind as written. */
	struct qdisc_spec spec;
	bool glob;
	/* QDISC, DEFAULT: one of qdiscctl's kinds, or NULL for a native one. */
	const struct qd_kind *kind;
	bool mq;   /* "mq KIND": kind is the children's */
	void *cfg; /* the options kind's instances should have: defaults, then the statement's */
	int optc;  /* the option words, after KIND */
	char **optv;
	/* SYSCTL */
	const struct qd_sysctl *sysctl;
	char value[QD_SYSCTL_TEXT]; /* canonical */
};

struct qd_config {
	const char *file; /* as given ("-": standard input) */
	int n;
	struct qd_stmt *stmts;
	int nnetns;
	char **netns; /* the names netns lines give, which statements point to */
};

/*
 * Read and check every statement of file: 0, or QD_EXIT_USAGE after one
 * "FILE:LINE: ..." line for each bad statement (QD_EXIT_FAIL when the file
 * cannot be read). kernel checks sysctl values against its ranges.
 */
int qd_config_read(const char *file, const struct qd_kernel *kernel, struct qd_config *c);
void qd_config_free(struct qd_config *c);

/* Does name match the statement's device (a glob, or the name itself)? */
bool qd_stmt_matches(const struct qd_stmt *st, const char *dev);

/* What the kernel has at a place, as qd_plan_qdisc compares it. */
struct qd_child {
	char kind[QDISC_KIND_LEN];
	uint32_t parent;
	const struct qd_kind *ours; /* NULL: not one of qdiscctl's, or its options unread */
	void *cfg;
};

struct qd_current {
	bool present;
	struct qdisc_info qi; /* kind (the id the kernel reports), handle; no options */
	const struct qd_kind *ours;
	void *cfg; /* ours' options, or NULL when unread */
	/* An mq root: its children and the device's tx queues. */
	int nchild;
	struct qd_child *child;
	uint32_t ntx;
};

enum qd_action {
	QD_ACT_UNCHANGED,
	QD_ACT_CHANGE,	/* same kind: options rewritten, queue and counters kept */
	QD_ACT_REPLACE, /* another kind, handle or form */
	QD_ACT_ADD,	/* nothing there, or only the kernel's default (handle 0) */
};

#define QD_PLAN_TEXT 2048

struct qd_plan {
	enum qd_action action;
	/* "limit 1000 -> 2000", "pfifo_fast -> qdiscctl_fq", "qdiscctl_fq". */
	char desc[QD_PLAN_TEXT];
	/* QD_ACT_CHANGE: the option words change is given. */
	char words[QD_PLAN_TEXT];
};

extern const char *const qd_action_names[];

/* The least that takes cur to what st wants: 0, or -ENOSPC. */
int qd_plan_qdisc(const struct qd_stmt *st, const struct qd_current *cur, struct qd_plan *p);

#endif
