/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sysctls of sysctl/sysctl.h read and written through /proc/sys by
 * their dotted names.
 *
 * /proc/sys/net shows the network namespace of the process reading it, so
 * after -n has moved qdiscctl into a namespace everything here is about that
 * namespace (/sys is not remounted, but nothing here uses it).
 *
 * Most functions take a struct qd_sysctl_env: where /proc/sys and the
 * state directory are, which namespace this is and what kernel runs.
 * qd_sysctl_env_init() fills it for real; the unit tests point it at a
 * scratch directory instead.
 */
#ifndef QDISCCTL_SYSCTL_PROC_H
#define QDISCCTL_SYSCTL_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "sysctl/sysctl.h"

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

/* The file of sysctl name under env's /proc/sys. */
void qd_sysctl_path(const struct qd_sysctl_env *env, const char *name, char *buf, size_t len);

/*
 * For a reader without an env (no namespace cookie, no kernel config read):
 * sysctl name of /proc/sys as canonical text, and a write of it: 0 or -errno.
 */
int qd_sysctl_get(const char *name, char *buf, size_t len);
int qd_sysctl_put(const char *name, const char *text);

#endif
