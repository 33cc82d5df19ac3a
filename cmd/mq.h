/* SPDX-License-Identifier: GPL-2.0 */
/* The mq form of add and replace (cmd/mq.c), which cmd/new_qdisc.c hands it to. */
#ifndef QDISCCTL_MQ_H
#define QDISCCTL_MQ_H

#include "lib/spec.h"

/* add/replace dev DEV root [handle H] mq KIND [OPTIONS]: an exit code. */
int qd_cmd_new_mq(const char *cmd, const struct qdisc_spec *s, unsigned int nlflags);

#endif
