/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "backpressure" profile: it sets several sysctls at once, saving the
 * previous values first in a save file (lib/savefile.h) of this network
 * namespace, and restore puts them back.
 */
#ifndef QDISCCTL_SYSCTL_PROFILE_H
#define QDISCCTL_SYSCTL_PROFILE_H

#include <stdbool.h>

#include "sysctl/proc.h"
#include "sysctl/sysctl.h"

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
 * Plan and apply rules under the lock, as `sysctl apply` does: 0, or
 * -errno with a message in err ("" when the lock failed and said why).
 */
int qd_sysctl_apply_profile(const struct qd_sysctl_env *env, const struct qd_profile_rule *rules,
			    struct qd_sysctl_plan *plan, char *err, size_t errlen);

/*
 * Write back what the save file holds and remove it; on a failed write the
 * values restored so far are returned to what they were and the file
 * stays. -ENOENT when nothing is saved. The caller holds the lock. *done
 * gets what was written, old (before restore) in plan form.
 */
int qd_sysctl_restore(const struct qd_sysctl_env *env, struct qd_sysctl_plan *done, char *err,
		      size_t errlen);

#endif
