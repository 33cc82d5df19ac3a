/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A qdisc kind qdiscctl carries: one BPF program (bpf/NAME.bpf.c) and one
 * descriptor. Parsing, show, JSON, help, the man page and completion all
 * read the descriptor, so adding a kind adds files and edits no switch.
 */
#ifndef QDISCCTL_KIND_H
#define QDISCCTL_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qd_opt_type {
	QD_OPT_COUNT,  /* plain number; text adds the option's unit ("p") */
	QD_OPT_SIZE,   /* bytes, tc size units */
	QD_OPT_TIME,   /* nanoseconds, tc time units */
	QD_OPT_RATE,   /* bytes per second, tc rate units */
	QD_OPT_CHOICE, /* one keyword of .choices, stored as its index */
};

struct qd_opt {
	const char *name;
	enum qd_opt_type type;
	unsigned int off;   /* in the kind's config struct */
	unsigned int width; /* 4 or 8 bytes */
	uint64_t def;
	uint64_t min;
	uint64_t max;
	const char *unit;	    /* QD_OPT_COUNT: text suffix */
	const char *const *choices; /* QD_OPT_CHOICE: the keywords, NULL-ended */
	const char *help;
};

struct qd_kind {
	const char *name;	   /* what users type */
	const char *id;		   /* the Qdisc_ops id the kernel and tc show */
	const char *summary;	   /* one line for `kinds` and help */
	const struct qd_opt *opts; /* ended by an entry without a name */
	size_t cfg_size;
	/* The BPF object, as its skeleton embeds it. */
	const void *(*elf_bytes)(size_t *size);
};

/* Put a descriptor in the table the rest of qdiscctl iterates. */
#define QD_KIND_REGISTER(kind)                                \
	static const struct qd_kind *const qd_kind_ptr_##kind \
		__attribute__((used, section("qdiscctl_kinds"), aligned(sizeof(void *)))) = &kind

/* The kinds, sorted by name; NULL-ended. */
const struct qd_kind *const *qd_kinds(void);
/* By user name or kernel id; NULL when unknown. */
const struct qd_kind *qd_kind_find(const char *name);

const char *qd_opt_metavar(const struct qd_opt *o);
uint64_t qd_opt_get(const struct qd_opt *o, const void *cfg);
void qd_opt_set(const struct qd_opt *o, void *cfg, uint64_t v);

/* cfg <- every option's default. */
void qd_kind_defaults(const struct qd_kind *k, void *cfg);
/*
 * Apply "NAME VALUE" (or a lone CHOICE keyword) pairs from argv to cfg.
 * On bad input prints one line naming the token and returns -EINVAL.
 */
int qd_kind_parse(const struct qd_kind *k, int argc, char **argv, void *cfg);
/* Print the options in cfg: text like tc, JSON with raw integers. */
void qd_kind_print(const struct qd_kind *k, const void *cfg);

#endif
