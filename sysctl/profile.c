// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/savefile.h"
#include "sysctl/profile.h"

/* --- the profile ---------------------------------------------------- */

/*
 * Backpressure holds a local sender's packets in the qdisc instead of
 * dropping them, so the sender blocks on its own send buffer. What that
 * costs the qdisc follows from the sizing rule (reference 3.3): a blocked
 * socket keeps about sndbuf / truesize packets queued, and a 1400-byte
 * datagram has a truesize of about 2.3 KB (0.55 bytes of packet per byte
 * of sndbuf). qdiscctl's default fifo holds 1000 packets. Each bound below
 * keeps a worst case inside that, so the qdisc never has to drop one of
 * them for lack of room. Rules only tighten: a value that already meets a
 * bound is kept, as Cilium does with its baselines.
 */
const struct qd_profile_rule qd_profile_backpressure[] = {
	/*
	 * 128 KiB: a sender blocks at about 57 datagrams (72 KB) in the
	 * qdisc, so 16 of them (the RFC's and issue's experiment) need 910
	 * packets and fit the default fifo limit; 72 KB is 0.6 ms at
	 * 1 Gbit/s. The kernel's 208 KiB would need 1300.
	 */
	{ "net.core.wmem_default", QD_RULE_AT_MOST, QD_BP_WMEM_DEFAULT },
	/*
	 * 1 MiB: SO_SNDBUF doubles it, so the greediest socket reaches
	 * 2 MiB, about 910 datagrams: still one fifo's default limit. 7.x's
	 * 4 MiB lets one socket claim 3640, most of the 4096 a fifo can
	 * ever hold.
	 */
	{ "net.core.wmem_max", QD_RULE_AT_MOST, QD_BP_WMEM_MAX },
	/*
	 * 1 MiB, the value of every kernel from 4.x to 6.15: TSQ stops a TCP
	 * socket at 1 MiB of truesize in qdisc and ring (about 455 MTU
	 * packets, half the fifo), without drops. 6.16's 4 MiB was sized for
	 * 200 Gbit/s NICs with nothing shaping in front of them.
	 */
	{ "net.ipv4.tcp_limit_output_bytes", QD_RULE_AT_MOST, QD_BP_TCP_LIMIT_OUTPUT },
	/*
	 * 128 KiB: behind a shaped queue the write queue would otherwise fill
	 * all of tcp_wmem's 4 MiB, seconds of latency the qdisc never sees;
	 * 128 KiB unsent still covers a millisecond of 1 Gbit/s.
	 */
	{ "net.ipv4.tcp_notsent_lowat", QD_RULE_AT_MOST, QD_BP_TCP_NOTSENT_LOWAT },
	/*
	 * Request ECN on outgoing connections, so a CE mark (edt's
	 * ce_threshold) cuts the sender's window instead of a drop. 3 and 4
	 * (AccECN) request it too and are kept.
	 */
	{ "net.ipv4.tcp_ecn", QD_RULE_ECN_OUT, QD_BP_TCP_ECN },
	{}
};

bool qd_profile_target(const struct qd_profile_rule *r, const struct qd_sysctl_val *cur,
		       struct qd_sysctl_val *target)
{
	*target = *cur;
	switch (r->kind) {
	case QD_RULE_AT_MOST:
		if (cur->v[0] <= r->value)
			return false;
		target->v[0] = r->value;
		return true;
	case QD_RULE_ECN_OUT:
		/* tcp_ecn_mode: 1 ECN/ECN, 3 AccECN/AccECN, 4 AccECN/ECN request on connect */
		if (cur->v[0] == 1 || cur->v[0] == 3 || cur->v[0] == 4)
			return false;
		target->v[0] = r->value;
		return true;
	}
	return false;
}

int qd_sysctl_plan(const struct qd_sysctl_env *env, const struct qd_profile_rule *rules,
		   struct qd_sysctl_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	for (const struct qd_profile_rule *r = rules; r->name; r++) {
		struct qd_sysctl_step *st = &plan->step[plan->n];
		const struct qd_sysctl *s = qd_sysctl_find(r->name);
		struct qd_sysctl_val cur, target;
		char path[PATH_MAX];
		bool writable;
		int e;

		if (!s || plan->n == QD_PROFILE_MAX)
			return qd_sysctl_err(err, errlen, -EINVAL,
					     "profile rule for \"%s\" is broken", r->name);
		st->s = s;
		plan->n++;
		e = qd_sysctl_read(env, s, st->old, sizeof(st->old), &writable);
		if (e == -ENOENT) {
			st->action = QD_STEP_ABSENT;
			continue;
		}
		if (e)
			return qd_sysctl_err(err, errlen, e, "cannot read %s: %s", s->name,
					     strerror(-e));
		e = qd_sysctl_parse(s, &env->kernel, st->old, false, &cur, err, errlen);
		if (e)
			return qd_sysctl_err(err, errlen, e,
					     "%s reads \"%s\", which is not a value", s->name,
					     st->old);
		if (!qd_profile_target(r, &cur, &target)) {
			st->action = QD_STEP_KEEP;
			continue;
		}
		if (!writable) {
			st->action = QD_STEP_READONLY;
			continue;
		}
		/* The mode allows it; find out now whether this process may. */
		qd_sysctl_path(env, s->name, path, sizeof(path));
		if (access(path, W_OK))
			return qd_sysctl_err(err, errlen, -errno, "cannot write %s: %s", s->name,
					     strerror(errno));
		st->action = QD_STEP_SET;
		qd_sysctl_format(s, &target, st->new, sizeof(st->new));
		/* The profile's own values pass the checks set applies. */
		e = qd_sysctl_parse(s, &env->kernel, st->new, true, &target, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

/* --- the save file --------------------------------------------------- */

void qd_sysctl_save_path(const struct qd_sysctl_env *env, char *buf, size_t len)
{
	snprintf(buf, len, "%s/sysctl-%s.saved", env->state_dir, env->netns_id);
}

static const char save_header[] =
	"# qdiscctl: sysctl values from before \"qdiscctl sysctl apply\";\n"
	"# \"qdiscctl sysctl restore\" in the same network namespace writes them back.\n";

int qd_sysctl_saved_format(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv,
			   char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%snetns %s\n", save_header, env->netns_id);

	for (int i = 0; i < sv->n && n < len; i++)
		n += snprintf(buf + n, len - n, "%s %s\n", sv->e[i].s->name, sv->e[i].value);
	return n < len ? 0 : -ENOSPC;
}

int qd_sysctl_saved_parse(const struct qd_sysctl_env *env, const char *text,
			  struct qd_sysctl_saved *sv, char *err, size_t errlen)
{
	char line[256];
	bool have_netns = false;
	int lineno = 0;

	memset(sv, 0, sizeof(*sv));
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const struct qd_sysctl *s;
		struct qd_sysctl_val v;
		char *sp;

		lineno++;
		if (n >= sizeof(line))
			return qd_sysctl_err(err, errlen, -EINVAL, "line %d is too long", lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL);
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		if (!sp)
			return qd_sysctl_err(err, errlen, -EINVAL, "line %d: \"%s\" has no value",
					     lineno, line);
		*sp++ = '\0';
		if (!strcmp(line, "netns")) {
			/* A copied file must not set another namespace's values. */
			if (strcmp(sp, env->netns_id))
				return qd_sysctl_err(
					err, errlen, -EINVAL,
					"it was saved in network namespace %s, not this one (%s)",
					sp, env->netns_id);
			have_netns = true;
			continue;
		}
		s = qd_sysctl_find(line);
		if (!s)
			return qd_sysctl_err(err, errlen, -EINVAL,
					     "line %d: \"%s\" is not a sysctl", lineno, line);
		for (int i = 0; i < sv->n; i++)
			if (sv->e[i].s == s)
				return qd_sysctl_err(err, errlen, -EINVAL, "line %d: %s twice",
						     lineno, s->name);
		if (sv->n == QD_PROFILE_MAX)
			return qd_sysctl_err(err, errlen, -EINVAL, "line %d: too many values",
					     lineno);
		if (qd_sysctl_parse(s, &env->kernel, sp, false, &v, NULL, 0))
			return qd_sysctl_err(err, errlen, -EINVAL,
					     "line %d: \"%s\" is not a value of %s", lineno, sp,
					     s->name);
		sv->e[sv->n].s = s;
		qd_sysctl_format(s, &v, sv->e[sv->n].value, sizeof(sv->e[sv->n].value));
		sv->n++;
	}
	if (!have_netns)
		return qd_sysctl_err(err, errlen, -EINVAL, "it names no network namespace");
	return 0;
}

int qd_sysctl_saved_load(const struct qd_sysctl_env *env, struct qd_sysctl_saved *sv, char *err,
			 size_t errlen)
{
	char path[PATH_MAX], text[4096], why[QD_SYSCTL_ERR];
	int e;

	qd_sysctl_save_path(env, path, sizeof(path));
	e = qd_save_read(path, text, sizeof(text));
	if (e == -EPERM)
		return qd_sysctl_err(
			err, errlen, e,
			"%s is not qdiscctl's (a symlink, or another user's): not used", path);
	if (e)
		return qd_sysctl_err(err, errlen, e, "cannot read %s: %s", path, strerror(-e));
	e = qd_sysctl_saved_parse(env, text, sv, why, sizeof(why));
	if (e)
		return qd_sysctl_err(err, errlen, e, "%s: %s", path, why);
	return 0;
}

int qd_sysctl_saved_store(const struct qd_sysctl_env *env, const struct qd_sysctl_saved *sv)
{
	char path[PATH_MAX], text[4096];

	if (qd_sysctl_saved_format(env, sv, text, sizeof(text)))
		return -ENOSPC;
	qd_sysctl_save_path(env, path, sizeof(path));
	return qd_save_write(path, text, false);
}

int qd_sysctl_saved_remove(const struct qd_sysctl_env *env)
{
	char path[PATH_MAX];

	qd_sysctl_save_path(env, path, sizeof(path));
	return unlink(path) ? -errno : 0;
}

int qd_sysctl_lock(const struct qd_sysctl_env *env)
{
	return qd_save_lock(env->state_dir);
}

/* --- apply, restore --------------------------------------------------- */

/*
 * Put back the first n writes of steps (to their old values). What fails
 * is described in msg; returns the number of failures.
 */
static int roll_back(const struct qd_sysctl_env *env, const struct qd_sysctl_step *steps, int n,
		     char *msg, size_t len)
{
	size_t used = 0;
	int failed = 0;

	msg[0] = '\0';
	for (int i = n - 1; i >= 0; i--) {
		int e;

		if (steps[i].action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, steps[i].s, steps[i].old);
		if (!e)
			continue;
		failed++;
		if (used < len)
			used += snprintf(msg + used, len - used,
					 "; putting back %s=%s failed too: %s", steps[i].s->name,
					 steps[i].old, strerror(-e));
	}
	return failed;
}

/*
 * Write step failed with e: undo steps 0..step-1 and the save file. If
 * anything cannot be put back, the save file stays as written, since it
 * still holds the originals for a later restore.
 */
static int undo_apply(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan, int step,
		      const struct qd_sysctl_saved *prev, int e, char *err, size_t errlen)
{
	const struct qd_sysctl_step *st = &plan->step[step];
	char rb[QD_SYSCTL_ERR];

	if (roll_back(env, plan->step, step, rb, sizeof(rb)))
		return qd_sysctl_err(err, errlen, e,
				     "writing %s=%s failed: %s%s; the save file is kept",
				     st->s->name, st->new, strerror(-e), rb);
	if (prev)
		qd_sysctl_saved_store(env, prev);
	else
		qd_sysctl_saved_remove(env);
	return qd_sysctl_err(err, errlen, e, "writing %s=%s failed: %s; nothing was changed",
			     st->s->name, st->new, strerror(-e));
}

int qd_sysctl_apply(const struct qd_sysctl_env *env, const struct qd_sysctl_plan *plan, char *err,
		    size_t errlen)
{
	struct qd_sysctl_saved prev, merged;
	bool had_prev, changes = false;
	char why[QD_SYSCTL_ERR];
	int e;

	e = qd_sysctl_saved_load(env, &prev, why, sizeof(why));
	if (e && e != -ENOENT)
		return qd_sysctl_err(err, errlen, e, "%s", why);
	had_prev = !e;
	if (!had_prev)
		memset(&prev, 0, sizeof(prev));

	/* What an earlier apply saved is the original; only add what is new. */
	merged = prev;
	for (int i = 0; i < plan->n; i++) {
		const struct qd_sysctl_step *st = &plan->step[i];
		bool known = false;

		if (st->action != QD_STEP_SET)
			continue;
		changes = true;
		for (int j = 0; j < merged.n; j++)
			known |= merged.e[j].s == st->s;
		if (known)
			continue;
		if (merged.n == QD_PROFILE_MAX)
			return qd_sysctl_err(err, errlen, -ENOSPC, "too many values to save");
		merged.e[merged.n].s = st->s;
		snprintf(merged.e[merged.n].value, sizeof(merged.e[0].value), "%s", st->old);
		merged.n++;
	}
	if (!changes)
		return 0;
	if (merged.n != prev.n || !had_prev) {
		char path[PATH_MAX];

		e = qd_sysctl_saved_store(env, &merged);
		if (e) {
			qd_sysctl_save_path(env, path, sizeof(path));
			return qd_sysctl_err(err, errlen, e,
					     "cannot save the current values in %s: %s", path,
					     strerror(-e));
		}
	}

	for (int i = 0; i < plan->n; i++) {
		const struct qd_sysctl_step *st = &plan->step[i];

		if (st->action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, st->s, st->new);
		if (!e)
			continue;
		return undo_apply(env, plan, i, had_prev ? &prev : NULL, e, err, errlen);
	}
	return 0;
}

int qd_sysctl_restore(const struct qd_sysctl_env *env, struct qd_sysctl_plan *done, char *err,
		      size_t errlen)
{
	char path[PATH_MAX], why[QD_SYSCTL_ERR], rb[QD_SYSCTL_ERR] = "";
	struct qd_sysctl_saved sv;
	int e;

	memset(done, 0, sizeof(*done));
	e = qd_sysctl_saved_load(env, &sv, err, errlen);
	if (e == -ENOENT) {
		qd_sysctl_save_path(env, path, sizeof(path));
		return qd_sysctl_err(
			err, errlen, e,
			"nothing saved for this network namespace (no %s): apply first", path);
	}
	if (e)
		return e;

	/* Read everything first: a restore that cannot finish does not start. */
	for (int i = 0; i < sv.n; i++) {
		struct qd_sysctl_step *st = &done->step[done->n++];
		bool writable;

		st->s = sv.e[i].s;
		snprintf(st->new, sizeof(st->new), "%s", sv.e[i].value);
		e = qd_sysctl_read(env, st->s, st->old, sizeof(st->old), &writable);
		if (e)
			return qd_sysctl_err(err, errlen, e, "cannot read %s: %s", st->s->name,
					     e == -ENOENT ? qd_sysctl_absent_why(env, st->s)
							  : strerror(-e));
		st->action = strcmp(st->old, st->new) ? QD_STEP_SET : QD_STEP_KEEP;
		if (st->action != QD_STEP_SET)
			continue;
		if (!writable)
			return qd_sysctl_err(err, errlen, -EACCES,
					     "%s is read-only in this network namespace",
					     st->s->name);
		qd_sysctl_path(env, st->s->name, path, sizeof(path));
		if (access(path, W_OK))
			return qd_sysctl_err(err, errlen, -errno, "cannot write %s: %s",
					     st->s->name, strerror(errno));
	}
	for (int i = 0; i < done->n; i++) {
		struct qd_sysctl_step *st = &done->step[i];

		if (st->action != QD_STEP_SET)
			continue;
		e = qd_sysctl_write(env, st->s, st->new);
		if (!e)
			continue;
		snprintf(why, sizeof(why), "writing %s=%s failed: %s", st->s->name, st->new,
			 strerror(-e));
		if (roll_back(env, done->step, i, rb, sizeof(rb)))
			return qd_sysctl_err(err, errlen, e, "%s%s; the save file is kept", why,
					     rb);
		return qd_sysctl_err(err, errlen, e, "%s; nothing was restored", why);
	}
	e = qd_sysctl_saved_remove(env);
	if (e) {
		qd_sysctl_save_path(env, path, sizeof(path));
		return qd_sysctl_err(err, errlen, e, "restored, but cannot remove %s: %s", path,
				     strerror(-e));
	}
	return 0;
}

int qd_sysctl_apply_profile(const struct qd_sysctl_env *env, const struct qd_profile_rule *rules,
			    struct qd_sysctl_plan *plan, char *err, size_t errlen)
{
	int lock = qd_sysctl_lock(env), e;

	if (lock < 0) {
		err[0] = '\0';
		return lock;
	}
	e = qd_sysctl_plan(env, rules, plan, err, errlen);
	if (!e)
		e = qd_sysctl_apply(env, plan, err, errlen);
	close(lock);
	return e;
}
