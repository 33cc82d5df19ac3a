/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sysctls that shape backpressure: their table (dotted names, types,
 * ranges, the kernel's defaults) and their values as text, parsed and
 * formatted. Pure: sysctl/proc.h reads and writes them, sysctl/profile.h
 * sets several at once.
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

/*
 * Write a message into err (len bytes; nothing when err is NULL) and
 * return ret: how the functions here report what they refuse.
 */
int qd_sysctl_err(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
