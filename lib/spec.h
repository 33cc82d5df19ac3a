/* SPDX-License-Identifier: GPL-2.0 */
/* tc's qdisc grammar: dev DEV (root | parent ID) [handle H] KIND [OPTIONS]. */
#ifndef QDISCCTL_SPEC_H
#define QDISCCTL_SPEC_H

#include <stdbool.h>
#include <stdint.h>

struct qdisc_spec {
	const char *dev;
	int ifindex;
	uint32_t parent;
	bool have_parent;
	uint32_t handle;
	bool have_handle;
	const char *kind; /* the first word that is no keyword */
	int optc;	  /* the words after it */
	char **optv;
};

/*
 * Keywords may come in any order; the first other word is the kind and
 * everything after it its options. Prints one line naming the bad token
 * and returns -EINVAL on bad input.
 */
int qdisc_spec_parse(int argc, char **argv, struct qdisc_spec *s);

/* Resolve s->dev in the current network namespace: 0 or -ENODEV. */
int qdisc_spec_resolve(struct qdisc_spec *s);

#endif
