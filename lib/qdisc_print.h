/* SPDX-License-Identifier: GPL-2.0 */
/* One qdisc as `tc [-s] [-j] qdisc show` prints it. */
#ifndef QDISCCTL_QDISC_PRINT_H
#define QDISCCTL_QDISC_PRINT_H

#include <stdbool.h>

#include "netlink/qdisc.h"

/*
 * dev is printed when not NULL (tc leaves it out when filtering by dev);
 * options, when not NULL, prints inside the "options" object.
 */
void qdisc_print(const struct qdisc_info *qi, const char *dev, bool stats,
		 void (*options)(const struct qdisc_info *qi, void *data), void *data);

#endif
