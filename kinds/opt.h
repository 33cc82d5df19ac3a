/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option engine's table of operations per option type. Each type is
 * one file, kinds/opt_TYPE.c, that fills a struct qd_opt_ops and registers
 * it (QD_OPT_TYPE_REGISTER); kinds/kind.c walks the grammar and calls
 * the table, and nothing else switches on enum qd_opt_type. Adding a type
 * is its enum entry in kinds/kind.h plus its file.
 */
#ifndef QDISCCTL_OPT_H
#define QDISCCTL_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kinds/kind.h"

/* Text appended to a fixed buffer; once it overflows, everything after is dropped. */
struct qd_words {
	char *p;
	size_t len, n;
	bool full;
};

#define QD_WORDS(buf, size) ((struct qd_words){ (buf), (size), 0, false })

void qd_words_add(struct qd_words *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as one word batch_split reads back: blanks, quotes, '#' and '\' escaped. */
void qd_words_word(struct qd_words *b, const char *s);
/* The separator before the next word: "" at the start, else sep. */
static inline const char *qd_words_sep(const struct qd_words *b, const char *sep)
{
	return b->n ? sep : "";
}

struct qd_opt_ops {
	enum qd_opt_type type;
	/* help's JSON "type"; NULL: the metavar */
	const char *type_name;
	/* What help shows for a value ("BYTES"); a kind's .metavar overrides it. */
	const char *(*metavar)(const struct qd_opt *o);
	/* Typed as one of .choices, never by its name (no value words). */
	bool keyword;
	/* May be given once for each entry: the synopsis says "[...]...". */
	bool repeat;
	/*
	 * How many words after argv[i] (the option's name, or its .unset
	 * word when unset) belong to it; they may run past argc.
	 */
	unsigned int (*nwords)(const struct qd_opt *o, bool unset, int argc, char **argv, int i);

	/* --- one value of this type (a cgroup entry's value uses its sub_type's) --- */
	/* VALUE as the option's tc parser reads it: 0 or -errno, nothing printed. */
	int (*value)(const struct qd_opt *o, const char *s, uint64_t *v);
	/* v as text output shows it (not the special word): buf, or a fixed word. */
	const char *(*text)(const struct qd_opt *o, uint64_t v, char *buf, size_t len);
	/* A bound of the range as help and errors show it. */
	char *(*bound)(uint64_t v, char *buf, size_t len);
	/* The smallest unit's suffix, for words that must read back exactly ("b", "ns"). */
	const char *exact_unit;

	/* --- the option as a whole --- */
	/* cfg <- the default (cfg is zeroed first). NULL: nothing to do. */
	void (*defaults)(const struct qd_opt *o, void *cfg);
	/* The words after argv[i]; on bad input one line naming the token and -EINVAL. */
	int (*parse)(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv, int i,
		     void *cfg);
	/* The .unset word's: argv[i + 1] removes an entry. NULL: no .unset word. */
	int (*unset)(const struct qd_kind *k, const struct qd_opt *o, int argc, char **argv, int i,
		     void *cfg);
	/* As show prints it: text like tc, JSON in the current object. */
	void (*print)(const struct qd_opt *o, const void *cfg);
	/* The words parse reads back to what cfg holds: 0, or -ENOENT when they cannot be said. */
	int (*words)(const struct qd_opt *o, const void *cfg, struct qd_words *b);
	/*
	 * What turns cur into want: "NAME OLD -> NEW" into d (", " between),
	 * the words change takes into w. How many differ, or -ENOENT.
	 */
	int (*diff)(const struct qd_opt *o, const void *cur, const void *want, struct qd_words *d,
		    struct qd_words *w);
	/* Candidates for value word pos (1: the first after the name or .unset word). */
	void (*complete)(const struct qd_opt *o, bool unset, unsigned int pos, FILE *f);
	/*
	 * Words that may follow the option's words (a cgroup entry's fields),
	 * offered with the kind's options. NULL: only the options.
	 */
	void (*follow)(const struct qd_opt *o, FILE *f);

	/*
	 * An option of entries (QD_OPT_CGROUPS) that per-entry records
	 * (struct qd_stat_rows) follow: entry i's key, 0 while unused, and
	 * its label before its record in show -s. NULL: no entries.
	 */
	uint64_t (*entry_key)(const struct qd_opt *o, const void *cfg, unsigned int i);
	void (*print_entry)(const struct qd_opt *o, const void *cfg, unsigned int i);

	/* --- help --- */
	/* What the user types: "limit PACKETS". NULL: "NAME METAVAR". */
	void (*label)(const struct qd_opt *o, char *buf, size_t len);
	/* The default as help shows it. NULL: the default's text. */
	const char *(*default_text)(const struct qd_opt *o, char *buf, size_t len);
	/* help -j: the members after "name" and "type" and before "special". */
	void (*describe)(const struct qd_opt *o);
};

#define QD_OPT_TYPE_REGISTER(ops)                                                               \
	static const struct qd_opt_ops *const qd_opt_ops_ptr_##ops                              \
		__attribute__((used, section("qdiscctl_opt_types"), aligned(sizeof(void *)))) = \
			&ops

/* The operations of type t: every type has them (test_kinds checks). */
const struct qd_opt_ops *qd_opt_type_ops(enum qd_opt_type t);

static inline const struct qd_opt_ops *qd_opt_ops(const struct qd_opt *o)
{
	return qd_opt_type_ops(o->type);
}

/* --- shared by the type files --- */

/* QD_OPT_COUNT's value and bound, which a list's numbers share (kinds/opt_number.c). */
int qd_opt_count_value(const struct qd_opt *o, const char *s, uint64_t *v);
char *qd_opt_count_bound(uint64_t v, char *buf, size_t len);

/* Whether show leaves o out while it holds v (QD_OPT_QUIET_*). */
bool qd_opt_quiet(const struct qd_opt *o, uint64_t v);
/* v with value type vt as text shows it: o's special word, else vt's text. */
const char *qd_opt_value_text(const struct qd_opt *o, const struct qd_opt_ops *vt, uint64_t v,
			      char *buf, size_t len);
/* "MIN..MAX" or "MIN..MAX or SPECIAL", the bounds as vt shows them. */
void qd_opt_range(const struct qd_opt *o, const struct qd_opt_ops *vt, char *buf, size_t len);
/*
 * VALUE s for o (of value type vt) into *v, range and power of two
 * checked; errors name the value "name" and expect "metavar RANGE":
 * one line and -EINVAL.
 */
int qd_opt_check(const struct qd_kind *k, const struct qd_opt *o, const struct qd_opt_ops *vt,
		 const char *name, const char *metavar, const char *s, uint64_t *v);
/*
 * v as vt's parser reads it back exactly: the text show prints when that
 * is exact ("1Gbit"), else in the smallest unit ("1000000001bps").
 */
const char *qd_opt_value_word(const struct qd_opt *o, const struct qd_opt_ops *vt, uint64_t v,
			      char *buf, size_t len);
/* "NAME V1 ... Vn" for the numbers of o (n = 1, or a list's count). */
void qd_opt_number_words(const struct qd_opt *o, const void *cfg, unsigned int n,
			 struct qd_words *b);
/*
 * The diff of an option stored as n numbers from .off whose words are its
 * name and values (a keyword: its word), each as ops->words says them.
 */
int qd_opt_simple_diff(const struct qd_opt *o, const void *cur, const void *want, unsigned int n,
		       struct qd_words *d, struct qd_words *w);
/* A number's finite candidates: the special word, the powers of two of a QD_OPT_POW2 range. */
void qd_opt_complete_number(const struct qd_opt *o, FILE *f);
/* help -j's "default" (or "required"), "min" and "max" of a number. */
void qd_opt_describe_number(const struct qd_opt *o);

#endif
