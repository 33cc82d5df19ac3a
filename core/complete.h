/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Candidates for shell completion (`qdiscctl __complete`), one per line.
 * Everything here reads the descriptors and tables the commands use, so
 * completion cannot offer a word the parsers would refuse, nor miss one
 * they accept. Pure: the unit tests feed it descriptors and dump replies.
 */
#ifndef QDISCCTL_COMPLETE_H
#define QDISCCTL_COMPLETE_H

#include <stdint.h>
#include <stdio.h>

#include "kinds/kind.h"
#include "netlink/qdisc.h"

/* What may follow the kind: each option's name, and every keyword. */
void qd_complete_kind_words(const struct qd_kind *k, FILE *f);
/*
 * The finite values of the option whose value the word after argv (the
 * words typed after the kind) is: its special word ("auto"), the powers of
 * two of a QD_OPT_POW2 range; nothing for an open range or a list's
 * numbers. -ENOENT when that word is no option's value (after a keyword,
 * or after all of an option's values), so the shell knows to offer option
 * names instead.
 */
int qd_complete_kind_values(const struct qd_kind *k, int argc, char **argv, FILE *f);
/* The columns `show ... flows sort` accepts, over every kind (NULL-ended). */
void qd_complete_columns(const struct qd_kind *const *kinds, FILE *f);

#define QD_HANDLES_MAX 256

/* The handles and parents of a device's qdiscs, sorted and unique. */
struct qd_handles {
	unsigned int n;
	uint32_t v[QD_HANDLES_MAX];
};

/* Note qi's handle and parent; "root" and unset ones are not IDs anyone types. */
void qd_handles_add(struct qd_handles *h, const struct qdisc_info *qi);
/* As tc writes them: "1:", "1:10", ":1". */
void qd_handles_print(const struct qd_handles *h, FILE *f);

#endif
