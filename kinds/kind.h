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

struct qd_place;

enum qd_opt_type {
	QD_OPT_COUNT, /* plain number; text adds the option's unit ("p") */
	QD_OPT_SIZE,  /* bytes, tc size units */
	QD_OPT_TIME,  /* nanoseconds, tc time units */
	QD_OPT_RATE,  /* bytes per second, tc rate units */
	QD_OPT_BOOL,  /* .choices = { off, on }, stored as 0 or 1; JSON "name":false|true */
	QD_OPT_WORD,  /* one keyword of .choices, stored as its index; JSON "keyword":null */
	/*
	 * .count numbers, each in min..max, stored as an array of .width-byte
	 * elements from .off (defaults .defs); given all at once after the
	 * name ("priomap 1 2 ..."); JSON "name":[1,2,...].
	 */
	QD_OPT_LIST,
	/*
	 * Repeatable "NAME PATH SUB VALUE [FIELD VALUE]...": a value (of type
	 * .sub_type, in min..max) for a cgroup v2 directory, and optional
	 * .fields, in an array of .count entries of .width bytes at off, each
	 * starting with a struct qd_cgroup_val (id 0: unused); "UNSET PATH"
	 * removes the entry. JSON "NAME":[{"path":...,"id":...,"SUB":...,
	 * "FIELD":...}].
	 */
	QD_OPT_CGROUPS,
	QD_OPT_NTYPES /* not a type: how many there are (kinds/opt.h, one file each) */
};

struct qd_cgroup_val {
	uint64_t id; /* the cgroup's id: kernfs node id, its directory's inode number */
	uint64_t val;
};

/* The largest QD_OPT_CGROUPS entry (.width), fields included. */
#define QD_CGROUP_ENTRY_MAX 64

/* qd_opt.flags */
#define QD_OPT_QUIET_DEFAULT (1U << 0) /* show omits it while it has its default */
#define QD_OPT_QUIET_ZERO    (1U << 1) /* show omits it while it is 0 */
#define QD_OPT_POW2	     (1U << 2) /* only powers of two are accepted */
#define QD_OPT_REQUIRED	     (1U << 3) /* add and replace must give it */
/*
 * A bare integer is decimal only, as tc's get_integer(..., 10) reads it;
 * without it a count or a size in bare bytes may be written in hex (0x...)
 * or octal (leading 0), as tc's get_unsigned(..., 0).
 */
#define QD_OPT_DECIMAL (1U << 4)
/*
 * The program replaces the special value (auto) with one of its own in
 * .init (fq's quanta): an instance's value then stands for auto as well,
 * so a desired auto matches whatever the instance resolved.
 */
#define QD_OPT_RESOLVED (1U << 5)

struct qd_opt {
	const char *name;
	enum qd_opt_type type;
	unsigned int off;   /* in the kind's config struct */
	unsigned int width; /* 4 or 8 bytes; a QD_OPT_LIST element's: 1, 2, 4 or 8 */
	uint64_t def;
	uint64_t min;
	uint64_t max;
	const char *unit;	    /* QD_OPT_COUNT: text suffix */
	const char *const *choices; /* keyword types: the keywords, NULL-ended */
	const char *help;
	unsigned int flags;  /* QD_OPT_* */
	const char *metavar; /* instead of the type's ("MASK"), or NULL */
	/*
	 * A word that stands for special_val, on the command line and in text
	 * output ("unlimited" for ~0); special_val is allowed outside min..max.
	 */
	const char *special;
	uint64_t special_val;
	/* JSON shows the value divided by this (tc reports some times in us); 0 = 1. */
	unsigned int json_div;
	/*
	 * The JSON key, where tc's is not the name (NULL: the name): tc 6.10
	 * and later name sch_fq's priomap and weights "priomap " and
	 * "weights ", with a trailing blank.
	 */
	const char *json_key;
	/*
	 * QD_OPT_TIME: nanoseconds a bare number counts, as the option's tc
	 * parser reads it; 0: microseconds (tc's get_time).
	 */
	unsigned int bare_ns;
	/* QD_OPT_LIST: how many numbers; QD_OPT_CGROUPS: how many entries. */
	unsigned int count;
	/* QD_OPT_LIST: the numbers' defaults. */
	const uint64_t *defs;
	/* QD_OPT_CGROUPS: the word before the value, its type, the removing word. */
	const char *sub;
	enum qd_opt_type sub_type;
	const char *unset;
	/*
	 * QD_OPT_CGROUPS: the optional words after SUB VALUE, each an option
	 * (count, size, time or rate) whose off is within an entry; one not
	 * given takes its .def. Ended by an entry without a name; or NULL.
	 */
	const struct qd_opt *fields;
	/*
	 * The capacity (qd_cap.name) the value may not exceed: add and
	 * replace use a registration that holds it (making one if need be),
	 * change refuses more than the instance's registration holds. NULL:
	 * none.
	 */
	const char *cap;
};

enum qd_stat_type {
	QD_STAT_COUNT,	  /* a counter or a gauge */
	QD_STAT_TIME,	  /* a duration in ns, shown as tc shows times */
	QD_STAT_DEADLINE, /* an absolute CLOCK_MONOTONIC ns, 0 = none: shown as the time left */
	QD_STAT_RATE,	  /* bytes per second, shown as tc shows rates */
	QD_STAT_SIZE,	  /* bytes, shown as tc shows sizes */
};

/* qd_stat.flags */
#define QD_STAT_NONZERO (1U << 0) /* omitted while 0 (for a deadline: while not in the future) */
#define QD_STAT_NEWLINE (1U << 1) /* starts a text line; a line showing nothing is left out */
/* A QD_STAT_COUNT that goes up and down (flows in use, a queue's length), not a counter. */
#define QD_STAT_GAUGE (1U << 2)
/* A table's field that names its record (prio's band): a label in metrics, not a value. */
#define QD_STAT_LABEL (1U << 3)

/*
 * One counter of a kind's "insts" value, shown by `show -s` after the
 * basic statistics, in the layout and with the JSON keys of tc's xstats.
 */
struct qd_stat {
	const char *name; /* JSON key, at the qdisc object's top level as tc puts xstats */
	const char *text; /* printf format with one %s for the value: " gc %s" */
	enum qd_stat_type type;
	unsigned int off;   /* in the "insts" value */
	unsigned int width; /* 4 or 8 bytes */
	unsigned int flags; /* QD_STAT_* */
	/* Its name in metrics and monitor when .name is not unique in the kind; NULL: .name. */
	const char *metric;
	/*
	 * The option that sets what this achieves (edt's rate_est: "rate"),
	 * which monitor shows beside it; NULL: none.
	 */
	const char *of;
};

/*
 * Counters kept for each entry of an option of entries (QD_OPT_CGROUPS),
 * in an array of the "insts" value: a table like struct qd_stat_table
 * whose records lie in the value itself, one for each entry configured,
 * which `show -s` prints through the same code, the entry's label first. Entry i owns row i; a row
 * whose key is not the entry's (the cgroup id) has not counted for it yet and shows zeros.
 */
struct qd_stat_rows {
	const char *name;	     /* JSON key of the array */
	const char *opt;	     /* the QD_OPT_CGROUPS option the rows follow */
	unsigned int off;	     /* of row 0 in the "insts" value */
	unsigned int stride;	     /* bytes a row */
	unsigned int key_off;	     /* in a row: the cgroup id it counts for (8 bytes) */
	const struct qd_stat *stats; /* offsets within a row; ended by an entry without a name */
	/*
	 * Rows kept in a map of their own (NULL: in the "insts" value):
	 * index_map (a HASH keyed by struct qd_entry_key, set the instance's
	 * slot) gives an entry's row in table (an ARRAY of rows), whose
	 * 4-byte field at owner_off holds slot + 1 while the row is that
	 * instance's. qdiscctl reads an instance's rows into its copy of the
	 * "insts" value, from off, one for each entry in order.
	 */
	const char *index_map;
	const char *table;
	unsigned int owner_off;
};

/*
 * Counters a kind keeps per class (prio's bands), shown by `show -s` after
 * its other counters: one text line a record, and in JSON an array of
 * objects under .name at the qdisc object's top level.
 */
struct qd_stat_table {
	const char *name;	     /* JSON key of the array */
	const char *help;	     /* what a record is, for help and the man page */
	const struct qd_stat *stats; /* a record's fields: offsets and widths in it */
	unsigned int size;	     /* of a record */
	unsigned int max;	     /* records at most */
	/*
	 * Fill recs (max records of size bytes) from an "insts" value of
	 * inst_size bytes and the instance's options: returns how many.
	 */
	unsigned int (*fill)(const void *inst, size_t inst_size, const void *cfg, void *recs);
};

enum qd_col_type {
	QD_COL_COUNT,	 /* unsigned */
	QD_COL_INT,	 /* signed */
	QD_COL_DEADLINE, /* absolute CLOCK_MONOTONIC ns, 0 = none: shown as the time left */
	QD_COL_NAME,	 /* an index into .names (a state) */
	QD_COL_CUSTOM,	 /* .format renders it; sorts by the raw field */
};

/* qd_col.flags */
#define QD_COL_TOTAL (1U << 0) /* summed in the totals `show -s ... flows` adds */
#define QD_COL_USED  (1U << 1) /* an entry whose field here is 0 is free and not listed */
/* It only goes up while the entry lives: monitor shows it as a rate. */
#define QD_COL_COUNTER (1U << 2)

/* A column of `show ... flows`. */
struct qd_col {
	const char *name; /* header, JSON key and `sort` word */
	enum qd_col_type type;
	unsigned int off;	  /* in the map value */
	unsigned int width;	  /* 4 or 8 bytes */
	unsigned int flags;	  /* QD_COL_* */
	const char *const *names; /* QD_COL_NAME: NULL-ended */
	/* QD_COL_CUSTOM: the text (and JSON string) of entry index's field. */
	void (*format)(const void *entry, uint32_t index, char *buf, size_t len);
};

/*
 * A table in one of the registration's maps whose entries the instances
 * share: an entry belongs to instance slot s when the 4-byte field at
 * owner_off holds s + 1 (0: nobody's). With used_map, the 8 bytes at
 * used_off of its entry 0 hold the first key that has never been used, so
 * that the keys from it on need no reading.
 */
struct qd_flows {
	const char *map;
	unsigned int owner_off;
	const char *used_map;
	unsigned int used_off;
	unsigned int value_size;
	const struct qd_col *cols; /* ended by an entry without a name */
};

/*
 * A capacity of a kind's registration: how many of something its maps
 * hold (flows, packet slots). Fixed when qdiscctl registers the kind, from
 * --capacity or else the default, and read by the programs as the
 * read-only global qd_cap_NAME (bpf/common.h, QD_CAP). "instances", the
 * slots of insts and cfgs, is every kind's: qdiscctl sizes it for the
 * host and it is not listed in a descriptor.
 */
struct qd_cap {
	const char *name;
	const char *help;
	uint32_t def;
	uint32_t min;
	uint32_t max;
	unsigned int flags; /* QD_CAP_* */
};

/* qd_cap.flags */
#define QD_CAP_POW2 (1U << 0) /* only powers of two */

/* A registration's capacity values: [QD_CAP_INSTANCES], then qd_kind.caps in order. */
#define QD_CAP_INSTANCES 0
#define QD_CAPS_MAX	 8

/* Instance slots a new registration gets at the least and at the most. */
#define QD_SLOTS_MIN 64
#define QD_SLOTS_MAX 65536

/* "instances", every kind's capacity (def 0: from the host's tx queues). */
extern const struct qd_cap qd_instances_cap;

/*
 * The entries of a QD_OPT_CGROUPS option kept in maps of the registration
 * instead of the options' map, for a kind that takes more of them than an
 * instance's options should hold: qdiscctl writes an instance's entries as
 * a new set in both maps, then the options that name the set, then deletes
 * the sets no options name any more. So a change is seen whole by the
 * program, and an instance's memory does not grow with what it may take.
 */
struct qd_entries {
	const char *opt;	/* the QD_OPT_CGROUPS option */
	unsigned int set_off;	/* in the options: a __u32, the set's number (0: no entries) */
	unsigned int count_off; /* in the options: a __u32, how many entries */
	const char *map;	/* HASH by struct qd_entry_key: what the program reads */
	const char *list_map;	/* HASH by struct qd_entry_pos: the entries in their order */
	const char *cap;	/* the capacity both maps hold */
};

struct qd_kind {
	const char *name;	   /* what users type */
	const char *id;		   /* the Qdisc_ops id the kernel and tc show */
	const char *summary;	   /* one line for `kinds` and help */
	const struct qd_opt *opts; /* ended by an entry without a name */
	size_t cfg_size;
	/* The BPF object, as its skeleton embeds it. */
	const void *(*elf_bytes)(size_t *size);
	/* Counters in the "insts" value, ended by an entry without a name; or NULL. */
	const struct qd_stat *stats;
	/* Per-cgroup counters, or NULL. */
	const struct qd_stat_rows *rows;
	/* What `show ... flows` lists, or NULL. */
	const struct qd_flows *flows;
	/*
	 * A program of the object that runs before the qdisc on its device
	 * (tcx egress), for what a qdisc may not do itself: pinned with the
	 * registration and attached with each root instance. NULL: none.
	 */
	const char *egress_prog;
	/*
	 * Whether an instance at place p with options cfg needs egress_prog on
	 * its device. NULL: every root instance does, whatever its options.
	 */
	bool (*egress_wanted)(const struct qd_place *p, const void *cfg);
	/*
	 * Checks between options (prio: priomap entries below bands), run on
	 * the whole config add, replace and change would write: prints one
	 * line naming the bad value and returns -EINVAL. NULL: none.
	 */
	int (*check)(const struct qd_kind *k, const void *cfg);
	/* Per-class counters, or NULL. */
	const struct qd_stat_table *table;
	/* Capacities besides instances, ended by an entry without a name; or NULL. */
	const struct qd_cap *caps;
	/*
	 * max_entries of the object's map named map for the capacity values
	 * cap (QD_CAP_INSTANCES, then .caps in order); 0 leaves the map as
	 * compiled. insts, cfgs and pending are qdiscctl's to size.
	 */
	uint32_t (*map_entries)(const char *map, const uint32_t *cap);
	/*
	 * Bytes of the options the "cfgs" and "pending" maps hold, from the
	 * start (0: cfg_size): the rest are entries (.entries).
	 */
	size_t cfg_map_size;
	/* Where the entries of an option beyond cfg_map_size live; or NULL. */
	const struct qd_entries *entries;
};

/*
 * The largest options struct (cfg_size) of any kind: buffers for one
 * kind's options are this big, on the stack. Each descriptor asserts that
 * its struct fits.
 */
#define QD_CFG_MAX 49152

/* Put a descriptor in the table the rest of qdiscctl iterates. */
#define QD_KIND_REGISTER(kind)                                \
	static const struct qd_kind *const qd_kind_ptr_##kind \
		__attribute__((used, section("qdiscctl_kinds"), aligned(sizeof(void *)))) = &kind

/* The kinds, sorted by name; NULL-ended. */
const struct qd_kind *const *qd_kinds(void);
/* By user name or kernel id; NULL when unknown. */
const struct qd_kind *qd_kind_find(const char *name);
/* Capacity i of k: qd_instances_cap for QD_CAP_INSTANCES, then k->caps[i - 1]. */
const struct qd_cap *qd_kind_cap(const struct qd_kind *k, int i);
/* How many capacities k has, instances included. */
int qd_kind_ncaps(const struct qd_kind *k);
/* The index of k's capacity named by the len bytes at name, or -1. */
int qd_kind_cap_index(const struct qd_kind *k, const char *name, size_t len);
/*
 * Apply a --capacity spec ("NAME=N,NAME=N", N in the capacity's range;
 * NULL: none) to cap, marking in named (or NULL) which it sets: 0, or one
 * line naming the bad token and -EINVAL.
 */
int qd_kind_caps_parse(const struct qd_kind *k, const char *spec, uint32_t *cap, bool *named);
/* The same, only checking. */
int qd_kind_caps_check(const struct qd_kind *k, const char *spec);
/*
 * Raise want (marking named) to the capacities the options in cfg need
 * (qd_opt.cap; a power-of-two capacity to the next power of two).
 */
void qd_kind_caps_for(const struct qd_kind *k, const void *cfg, uint32_t *want, bool *named);
/* The first option of cfg beyond its capacity in cap, or NULL. */
const struct qd_opt *qd_kind_caps_exceeded(const struct qd_kind *k, const void *cfg,
					   const uint32_t *cap);

const char *qd_opt_metavar(const struct qd_opt *o);
bool qd_opt_is_keyword(const struct qd_opt *o);
uint64_t qd_opt_get(const struct qd_opt *o, const void *cfg);
void qd_opt_set(const struct qd_opt *o, void *cfg, uint64_t v);
/* Element i of a QD_OPT_LIST option (i = 0 for the others). */
uint64_t qd_opt_get_at(const struct qd_opt *o, const void *cfg, unsigned int i);
void qd_opt_set_at(const struct qd_opt *o, void *cfg, unsigned int i, uint64_t v);
/* A value as text output shows it (its special word, tc units): returns buf. */
const char *qd_opt_text(const struct qd_opt *o, uint64_t v, char *buf, size_t len);

/*
 * One step of the option grammar: the word at argv[i] and the value words
 * after it that belong to the same option. The parser, the required-option
 * check and completion all walk argv with it.
 */
enum qd_step_how {
	QD_STEP_UNKNOWN, /* no option's word */
	QD_STEP_KEYWORD, /* one of o's .choices, index idx */
	QD_STEP_UNSET,	 /* o's .unset word */
	QD_STEP_NAME,	 /* o's name */
};

struct qd_opt_step {
	int i;
	unsigned int n; /* value words after argv[i]; some may lie past argc */
	const struct qd_opt *o;
	enum qd_step_how how;
	uint64_t idx;
};

#define QD_OPT_STEP_START ((struct qd_opt_step){ .i = -1 })

/* The next step after s (QD_OPT_STEP_START: the first); false past the last word. */
bool qd_kind_walk(const struct qd_kind *k, int argc, char **argv, struct qd_opt_step *s);

/* cfg <- every option's default. */
void qd_kind_defaults(const struct qd_kind *k, void *cfg);
/*
 * Apply "NAME VALUE" (or a lone keyword) pairs from argv to cfg.
 * On bad input prints one line naming the token and returns -EINVAL.
 */
int qd_kind_parse(const struct qd_kind *k, int argc, char **argv, void *cfg);
/* The same without the kind's check between options: each word alone is valid. */
int qd_kind_parse_words(const struct qd_kind *k, int argc, char **argv, void *cfg);
/* cfg <- cur with only the options in argv applied: what `change` writes. */
int qd_kind_change(const struct qd_kind *k, const void *cur, int argc, char **argv, void *cfg);
/* argv, already parsed, names every QD_OPT_REQUIRED option; else says which not. */
int qd_kind_check_required(const struct qd_kind *k, int argc, char **argv);
/* The option named word (not a keyword one), or NULL. */
const struct qd_opt *qd_kind_named(const struct qd_kind *k, const char *word);
/*
 * How many of o's entries in cfg, options as read from a registration, a
 * reader need look at: there the entries that k->entries keeps in maps come
 * first, as many as its count says. Every entry (o->count) for other options.
 */
unsigned int qd_kind_entries_read(const struct qd_kind *k, const struct qd_opt *o, const void *cfg);
/* The option whose removing word (.unset) is word, or NULL. */
const struct qd_opt *qd_kind_unset(const struct qd_kind *k, const char *word);
/* Is word one of k's option names or keywords? */
bool qd_kind_knows(const struct qd_kind *k, const char *word);
/*
 * Every option of cfg as words qd_kind_parse reads back to cfg, each value
 * as show prints it where that is exact, else in the option's smallest
 * unit: 0, or -ENOSPC, or -ENOENT when a cgroup entry's directory is gone
 * (it cannot be named).
 */
/* One option's words (a list's 16 numbers at most), "NAME V1 ... Vn". */
#define QD_OPT_WORDS_MAX 256
int qd_kind_words(const struct qd_kind *k, const void *cfg, char *buf, size_t len);
/*
 * What turns cur into want: "NAME OLD -> NEW" for each option that differs
 * into desc (", " between them), and the words `change` takes for them
 * into words. Returns how many differ, -ENOSPC, or -ENOENT when change
 * cannot say it (a cgroup entry to remove whose directory is gone).
 */
int qd_kind_diff(const struct qd_kind *k, const void *cur, const void *want, char *desc,
		 size_t dlen, char *words, size_t wlen);

/* Print the options in cfg: text like tc, JSON integers in the stored unit (or / json_div). */
void qd_kind_print(const struct qd_kind *k, const void *cfg);

/*
 * Print k's counters from an "insts" value of size bytes (fields beyond
 * it are skipped), deadlines relative to now (CLOCK_MONOTONIC ns): text
 * lines like tc's xstats, JSON keys in the current object.
 */
void qd_kind_print_stats(const struct qd_kind *k, const void *inst, size_t size, uint64_t now);
/* Then k's per-entry counters (k->rows), for the entries configured in cfg. */
void qd_kind_print_rows(const struct qd_kind *k, const void *cfg, const void *inst, size_t size);
/* Print k's per-class counters (k->table) from an "insts" value and the options. */
void qd_kind_print_table(const struct qd_kind *k, const void *inst, size_t size, const void *cfg);

/* Where a sample's stat comes from: k->stats, k->rows (a cgroup entry) or k->table (a record). */
enum qd_sample_group {
	QD_SAMPLE_STATS,
	QD_SAMPLE_ROWS,
	QD_SAMPLE_TABLE,
};

/*
 * One of a kind's values as metrics and monitor take them: every stat,
 * quiet ones included, raw (nanoseconds, bytes, bytes per second; a
 * deadline as the time left), with what tells its record apart.
 */
struct qd_sample {
	const struct qd_stat *stat;
	enum qd_sample_group group;
	/* ROWS: the entry's cgroup id; TABLE: the record's QD_STAT_LABEL field; STATS: 0. */
	uint64_t key;
	uint64_t value;
};

/* The samples qd_kind_samples gives for k at the most. */
size_t qd_kind_samples_max(const struct qd_kind *k);
/*
 * k's samples from an "insts" value of size bytes and the instance's
 * options into out (room for qd_kind_samples_max): how many.
 */
size_t qd_kind_samples(const struct qd_kind *k, const void *inst, size_t size, const void *cfg,
		       uint64_t now, struct qd_sample *out);
/* Does s only go up (a counter) rather than up and down (a gauge)? */
bool qd_stat_is_counter(const struct qd_stat *s);
/* The name metrics and monitor give s: .metric or .name. */
const char *qd_stat_metric(const struct qd_stat *s);

#endif
