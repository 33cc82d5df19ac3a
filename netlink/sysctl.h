/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sysctls that shape backpressure, read and written through /proc/sys
 * by their dotted names, and the "backpressure" profile that sets several
 * of them at once, saving the previous values first.
 *
 * /proc/sys/net shows the network namespace of the process reading it, so
 * after -n has moved qdiscctl into a namespace everything here is about that
 * namespace (/sys is not remounted, but nothing here uses it).
 *
 * Every function takes a struct qd_sysctl_env: where /proc/sys and the
 * state directory are, which namespace this is and what kernel runs.
 * qd_sysctl_env_init() fills it for real; the unit tests point it at a
 * scratch directory instead.
 */
#ifndef QDISCCTL_SYSCTL_H
#define QDISCCTL_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

/* The kind of value a sysctl holds. */
enum qd_sysctl_type {
	QD_SYSCTL_INT,	  /* one int (proc_dointvec) */
	QD_SYSCTL_UINT,	  /* one unsigned int (proc_douintvec) */
	QD_SYSCTL_TRIPLE, /* three ints: min, initial, max (tcp_wmem) */
	QD_SYSCTL_STRING, /* a word of at most QD_SYSCTL_STRMAX bytes (default_qdisc) */
};

/*
 * The kernel keeps one value for the whole host: a child namespace has no
 * file (default_qdisc, qdisc_max_burst) or a read-only copy of the initial
 * namespace's (wmem_default and wmem_max on 6.x and 7.x kernels).
 */
#define QD_SYSCTL_F_HOST 0x1
/* tcp_ecn: 0..2, or 0..5 on kernels with AccECN (see qd_sysctl_range). */
#define QD_SYSCTL_F_ACCECN 0x2
/* Sorted by policy: min <= initial <= max (checked by set, not by restore). */
#define QD_SYSCTL_F_SORTED 0x4

#define QD_SYSCTL_STRMAX 15 /* IFNAMSIZ - 1: a qdisc id */
#define QD_SYSCTL_TEXT	 48 /* any value as text: three ints, or a word */
#define QD_SYSCTL_ERR	 320

/* What runs: kernel defaults and ranges differ between versions. */
struct qd_kernel {
	unsigned int major, minor;
	bool x86_64;			    /* struct sizes behind some defaults are known */
	unsigned long long mem_bytes;	    /* MemTotal; 0 if unknown */
	char default_qdisc[QD_SYSCTL_TEXT]; /* CONFIG_DEFAULT_NET_SCH, "" if unknown */
};

struct qd_sysctl;

struct qd_sysctl_env {
	const char *proc_root; /* "/proc/sys" */
	const char *state_dir; /* "/run/qdiscctl" */
	char netns_id[32];     /* names this namespace's save file */
	bool init_netns;       /* the initial network namespace */
	struct qd_kernel kernel;
	/*
	 * Writes one value; NULL writes the file under proc_root. Tests set
	 * it to make a chosen write fail, which a real /proc rarely does on
	 * cue, to prove the rollback.
	 */
	int (*write)(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text);
};

struct qd_sysctl {
	const char *name; /* dotted, as sysctl(8) names it */
	enum qd_sysctl_type type;
	unsigned int flags;
	long long min, max; /* each integer; for strings, the length */
	const char *meaning;
	/* The kernel's default on k as text, or NULL when it cannot be known. */
	const char *(*dflt)(const struct qd_kernel *k, char *buf, size_t len);
};

/* A parsed value. */
struct qd_sysctl_val {
	long long v[3];		      /* INT and UINT use v[0] */
	char s[QD_SYSCTL_STRMAX + 1]; /* STRING */
};

/* The table, NULL-name-terminated, in display order. */
extern const struct qd_sysctl qd_sysctls[];

/* By exact dotted name; NULL if the name is not in the table. */
const struct qd_sysctl *qd_sysctl_find(const char *name);

/* Parse "7.3.4+deb13-cloud-amd64"; -EINVAL if there is no "N.N". */
int qd_kernel_parse_release(const char *release, struct qd_kernel *k);
/* CONFIG_DEFAULT_NET_SCH from a kernel .config, "pfifo_fast" if unset. */
void qd_kernel_parse_config(const char *config_text, struct qd_kernel *k);

/* The values this kernel accepts for each integer of s. */
void qd_sysctl_range(const struct qd_sysctl *s, const struct qd_kernel *k, long long *min,
		     long long *max);

/*
 * Parse text as a value of s. With check, also the ranges and policy that
 * set applies; without, only the form (restore puts back whatever the
 * kernel had). Whitespace (tabs as the kernel prints them, or spaces)
 * separates the integers of a triple. On failure returns -EINVAL or
 * -ERANGE and writes into err a message that quotes the bad token.
 */
int qd_sysctl_parse(const struct qd_sysctl *s, const struct qd_kernel *k, const char *text,
		    bool check, struct qd_sysctl_val *v, char *err, size_t errlen);
/* The canonical text: integers separated by one space. */
void qd_sysctl_format(const struct qd_sysctl *s, const struct qd_sysctl_val *v, char *buf,
		      size_t len);

/* The kernel's default as text ("kernel default" if unknown). */
const char *qd_sysctl_default(const struct qd_sysctl *s, const struct qd_kernel *k, char *buf,
			      size_t len);

/* --- /proc/sys ------------------------------------------------------ */

/* Fill env for this process: /proc/sys, /run/qdiscctl, the namespace. */
int qd_sysctl_env_init(struct qd_sysctl_env *env);

/*
 * Read s into buf as canonical text. -ENOENT: the file is absent;
 * *writable (if not NULL) says whether the kernel lets it be written here
 * (its mode, not the caller's rights).
 */
int qd_sysctl_read(const struct qd_sysctl_env *env, const struct qd_sysctl *s, char *buf,
		   size_t len, bool *writable);
/* Write canonical text; -errno. */
int qd_sysctl_write(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text);

/* Why s cannot be used here, for an absent file: "not available on this kernel"... */
const char *qd_sysctl_absent_why(const struct qd_sysctl_env *env, const struct qd_sysctl *s);

/* --- the profile, the save file ---------------------------------------- */

enum qd_step_action {
	QD_STEP_SET,	  /* written */
	QD_STEP_KEEP,	  /* already meets the profile */
	QD_STEP_ABSENT,	  /* no such file here */
	QD_STEP_READONLY, /* the kernel lets only the initial namespace set it */
};

struct qd_sysctl_step {
	const struct qd_sysctl *s;
	enum qd_step_action action;
	char old[QD_SYSCTL_TEXT];
	char new[QD_SYSCTL_TEXT]; /* QD_STEP_SET only */
};

#define QD_PROFILE_MAX 8

struct qd_sysctl_plan {
	int n;
	struct qd_sysctl_step step[QD_PROFILE_MAX];
};

/* One rule of a profile: how a sysctl's value is chosen from its current one. */
struct qd_profile_rule {
	const char *name;
	enum {
		QD_RULE_AT_MOST, /* lower it to value if it is above */
		QD_RULE_ECN_OUT, /* make it request ECN on outgoing connections */
	} kind;
	long long value;
};

/*
 * The "backpressure" profile, NULL-name-terminated. Its bounds are macros
 * so that `qdiscctl help sysctl` quotes the same numbers; sysctl.c says
 * why each is what it is.
 */
#define QD_BP_WMEM_DEFAULT	131072
#define QD_BP_WMEM_MAX		1048576
#define QD_BP_TCP_LIMIT_OUTPUT	1048576
#define QD_BP_TCP_NOTSENT_LOWAT 131072
#define QD_BP_TCP_ECN		1
extern const struct qd_profile_rule qd_profile_backpressure[];

/*
 * A rule applied to a current value: true and *target set when it must
 * change, false when cur already meets it. Pure; the heart of the profile.
 */
bool qd_profile_target(const struct qd_profile_rule *r, const struct qd_sysctl_val *cur,
		       struct qd_sysctl_val *target);

/*
 * Read every sysctl of the profile and decide, without writing anything.
 * Fails (-EACCES, -EINVAL, ...) with a message in err when a value cannot
 * be read or parsed, or a change cannot be written by this process.
 */
int qd_sysctl_plan(const struct qd_sysctl_env *env, const struct qd_profile_rule *rules,
		   struct qd_sysctl_plan *plan, char *err, size_t errlen);

/* The values a save file holds. */
struct qd_sysctl_saved {
	int n;
	struct {
		const struct qd_sysctl *s;
		char value[QD_SYSCTL_TEXT];
	} e[QD_PROFILE_MAX];
};

/* STATE_DIR/sysctl-NETNS.saved */
void qd_sysctl_save_path(const struct qd_sysctl_env *env, char *buf, size_t len);
/* Text form of a save file, and back. parse: -EINVAL with err on bad content. */
int qd_sysctl_saved_format(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv,
			   char *buf, size_t len);
int qd_sysctl_saved_parse(const struct qd_sysctl_env *env, const char *text,
			  struct qd_sysctl_saved *sv, char *err, size_t errlen);
/* Load (-ENOENT: nothing saved), store atomically (temp file + rename), remove. */
int qd_sysctl_saved_load(const struct qd_sysctl_env *env, struct qd_sysctl_saved *sv, char *err,
			 size_t errlen);
int qd_sysctl_saved_store(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv);
int qd_sysctl_saved_remove(const struct qd_sysctl_env *env);

/*
 * Serialise qdiscctl processes on the state directory (created if need
 * be, its user's with mode 0700); returns a descriptor to close, or
 * -errno with the reason said.
 */
int qd_sysctl_lock(const struct qd_sysctl_env *env);

/*
 * Carry out a plan, all or nothing: the previous values of what changes
 * are merged into the save file first (values saved by an earlier apply
 * are kept, so applying twice still restores the originals); then each
 * value is written, and if one write fails the ones before it are put
 * back and the save file is returned to what it was. 0, or -errno with a
 * message in err. The caller holds the lock.
 */
int qd_sysctl_apply(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan, char *err,
		    size_t errlen);

/*
 * Write back what the save file holds and remove it; on a failed write the
 * values restored so far are returned to what they were and the file
 * stays. -ENOENT when nothing is saved. The caller holds the lock. *done
 * gets what was written, old (before restore) in plan form.
 */
int qd_sysctl_restore(const struct qd_sysctl_env *env, struct qd_sysctl_plan *done, char *err,
		      size_t errlen);

#endif
