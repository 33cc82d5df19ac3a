/* SPDX-License-Identifier: GPL-2.0 */
/* One qdisc as `tc [-s] [-j] qdisc show` prints it. */
#ifndef QDISCCTL_QDISC_PRINT_H
#define QDISCCTL_QDISC_PRINT_H

#include <stdbool.h>

#include "netlink/qdisc.h"

/* Prints what tc gets from a qdisc's kind: its options and extended statistics. */
typedef void (*qdisc_print_fn)(const struct qdisc_info *qi, void *data);

/*
 * dev is printed when not NULL (tc leaves it out when filtering by dev);
 * options, when not NULL, prints inside the "options" object; xstats,
 * when not NULL and with stats, after the basic statistics (text lines,
 * JSON keys at the qdisc object's top level, as tc puts xstats).
 */
void qdisc_print(const struct qdisc_info *qi, const char *dev, bool stats, qdisc_print_fn options,
		 qdisc_print_fn xstats, void *data);

/* The start of tc's line, "qdisc KIND HANDLE [dev DEV] root|parent ID [refcnt N] ". */
void qdisc_print_head(const struct qdisc_info *qi, const char *dev);

#endif
