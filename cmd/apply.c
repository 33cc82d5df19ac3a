// SPDX-License-Identifier: GPL-2.0
/*
 * apply FILE|-: converge to the state a file describes (core/config.h).
 * The whole file is parsed, then every statement is compared with what
 * the kernel has, before anything changes; then each step that is needed
 * runs through the command that does it by hand (add, change, replace,
 * del, default, sysctl), so that apply checks and refuses as they do.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/pkt_sched.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"
#include "core/current.h"
#include "core/registry.h"
#include "lib/batch.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/units.h"
#include "netlink/link.h"
#include "netlink/netns.h"
#include "sysctl/proc.h"
#include "sysctl/profile.h"
#include "sysctl/sysctl.h"

#define APPLY_MAX_WORDS 256

struct step {
	const struct qd_stmt *st;
	/* QD_STMT_QDISC: the device (ifindex 0: none matches). */
	char dev[IF_NAMESIZE];
	int ifindex;
	struct qd_current cur; /* what was there: what a refusal puts back */
	struct qd_plan plan;
	bool overridden; /* a later statement names the same place */
	bool done;
};

struct run {
	const struct qd_config *c;
	const struct qd_apply_opts *o;
	int home;
	const char *in; /* the netns entered (NULL: home) */
	bool ready;
	struct rtnl rt;
	__u64 cookie;
	/* Read on first use: most passes of watch touch no sysctl. */
	struct qd_sysctl_env env;
	bool env_ready;
	struct step *steps;
	int n, max;
	int absent; /* devices named literally that do not exist */
};

static const struct qd_sysctl_env *env_of(struct run *r)
{
	if (!r->env_ready)
		qd_sysctl_env_init(&r->env);
	r->env_ready = true;
	return &r->env;
}

/* Move to ns (NULL: home) with a netlink socket and sysctl view there. */
static int enter(struct run *r, const char *ns)
{
	int err;

	if (r->ready && (r->in == ns || (r->in && ns && !strcmp(r->in, ns))))
		return 0;
	if (r->ready)
		rtnl_close(&r->rt);
	r->ready = false;
	err = ns ? netns_enter(ns) : setns(r->home, CLONE_NEWNET) ? -errno : 0;
	if (err) {
		qd_err("cannot enter network namespace \"%s\": %s", ns ? ns : "(home)",
		       strerror(-err));
		return QD_EXIT_FAIL;
	}
	if (qd_cmd_rtnl(&r->rt))
		return QD_EXIT_FAIL;
	err = rtnl_netns_cookie(&r->rt, &r->cookie);
	if (err) {
		qd_err("cannot identify the network namespace: %s", strerror(-err));
		rtnl_close(&r->rt);
		return QD_EXIT_FAIL;
	}
	r->env_ready = false;
	r->in = ns;
	r->ready = true;
	return 0;
}

static struct step *new_step(struct run *r, const struct qd_stmt *st)
{
	struct step *s;

	if (qd_grow(&r->steps, &r->max, r->n, sizeof(*r->steps), 32)) {
		qd_err("out of memory");
		return NULL;
	}
	s = &r->steps[r->n++];
	memset(s, 0, sizeof(*s));
	s->st = st;
	return s;
}

/* An earlier step for the same place gives way: the later statement decides. */
static void override(struct run *r, const struct step *s)
{
	for (int i = 0; i < r->n - 1; i++) {
		struct step *o = &r->steps[i];

		if (o->st->type == QD_STMT_QDISC && o->ifindex == s->ifindex &&
		    o->st->netns == s->st->netns && o->st->spec.parent == s->st->spec.parent)
			o->overridden = true;
	}
}

static int plan_device(struct run *r, const struct qd_stmt *st, const char *dev, int ifindex)
{
	struct step *s = new_step(r, st);
	int err;

	if (!s)
		return QD_EXIT_FAIL;
	snprintf(s->dev, sizeof(s->dev), "%s", dev);
	s->ifindex = ifindex;
	if (!ifindex) {
		r->absent++;
		return 0;
	}
	override(r, s);
	err = qd_current_read(&r->rt, r->cookie, ifindex, st->spec.parent, &s->cur);
	if (!err)
		err = qd_plan_qdisc(st, &s->cur, &s->plan);
	if (err) {
		qd_err("dev %s: cannot read its qdiscs: %s", dev, strerror(-err));
		return QD_EXIT_FAIL;
	}
	return 0;
}

static int plan_qdisc(struct run *r, const struct qd_stmt *st)
{
	struct link_names ln;
	int err, ret = 0, found = 0;

	if (!st->glob) {
		int ifindex = if_nametoindex(st->spec.dev);

		if (r->o->ifindex && ifindex != r->o->ifindex)
			return 0;
		return plan_device(r, st, st->spec.dev, ifindex);
	}
	err = link_names_load(&r->rt, &ln);
	if (err) {
		qd_err("cannot list the devices: %s", strerror(-err));
		return QD_EXIT_FAIL;
	}
	for (int i = 1; i <= ln.max && !ret; i++) {
		const char *name = link_name(&ln, i);

		if (!name || !qd_stmt_matches(st, name) || (r->o->ifindex && i != r->o->ifindex))
			continue;
		found++;
		ret = plan_device(r, st, name, i);
	}
	link_names_free(&ln);
	/* A glob that matches nothing is no error: watch applies it when one comes. */
	if (!found && !ret && !r->o->ifindex) {
		struct step *s = new_step(r, st);

		ret = s ? 0 : QD_EXIT_FAIL;
	}
	return ret;
}

static int plan_default(struct run *r, const struct qd_stmt *st, struct step *s)
{
	const struct qd_sysctl *dq = qd_sysctl_find("net.core.default_qdisc");
	char cur[QD_SYSCTL_TEXT];
	const struct qd_kind *k;
	struct qd_reg reg;
	int err = qd_sysctl_read(env_of(r), dq, cur, sizeof(cur), NULL), n = -1;

	if (err) {
		qd_err("default: cannot read %s: %s", dq->name, strerror(-err));
		return QD_EXIT_FAIL;
	}
	k = qd_reg_kind(cur);
	if (k == st->kind && !qd_reg_open_id(cur, &reg)) {
		/* The options every instance the kernel makes of it starts with. */
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];

		if (!qd_reg_defaults(&reg, cfg))
			n = qd_kind_diff(k, cfg, st->cfg, s->plan.desc, sizeof(s->plan.desc),
					 s->plan.words, sizeof(s->plan.words));
		qd_reg_close(&reg);
	}
	if (n < 0) {
		snprintf(s->plan.desc, sizeof(s->plan.desc), "%s -> %s", cur, st->kind->id);
		s->plan.action = QD_ACT_REPLACE;
	} else {
		s->plan.action = n ? QD_ACT_CHANGE : QD_ACT_UNCHANGED;
	}
	return 0;
}

static int plan_sysctl(struct run *r, const struct qd_stmt *st, struct step *s)
{
	char cur[QD_SYSCTL_TEXT], err_text[QD_SYSCTL_ERR];
	struct qd_sysctl_plan plan;
	int err;

	if (st->type == QD_STMT_PROFILE) {
		size_t len = 0;

		/* What sysctl apply would write, without its checks of what it may write. */
		err = qd_sysctl_plan(env_of(r), qd_profile_backpressure, &plan, err_text,
				     sizeof(err_text));
		if (err) {
			qd_err("sysctl backpressure: %s", err_text);
			return QD_EXIT_FAIL;
		}
		for (int i = 0; i < plan.n; i++) {
			const struct qd_sysctl_step *p = &plan.step[i];

			if (p->action != QD_STEP_SET)
				continue;
			len += snprintf(s->plan.desc + len, sizeof(s->plan.desc) - len,
					"%s%s %s -> %s", len ? ", " : "", p->s->name, p->old,
					p->new);
			if (len >= sizeof(s->plan.desc))
				len = sizeof(s->plan.desc) - 1;
		}
		s->plan.action = len ? QD_ACT_CHANGE : QD_ACT_UNCHANGED;
		return 0;
	}
	err = qd_sysctl_read(env_of(r), st->sysctl, cur, sizeof(cur), NULL);
	if (err) {
		qd_err("sysctl %s: %s", st->sysctl->name,
		       err == -ENOENT ? qd_sysctl_absent_why(env_of(r), st->sysctl)
				      : strerror(-err));
		return QD_EXIT_FAIL;
	}
	if (strcmp(cur, st->value)) {
		snprintf(s->plan.desc, sizeof(s->plan.desc), "%s -> %s", cur, st->value);
		s->plan.action = QD_ACT_CHANGE;
	}
	return 0;
}

static int plan_all(struct run *r)
{
	for (int i = 0; i < r->c->n; i++) {
		const struct qd_stmt *st = &r->c->stmts[i];
		struct step *s;
		int ret;

		/* watch's device event: that device's statements alone. */
		if (r->o->ifindex && (st->type != QD_STMT_QDISC || st->netns != r->o->netns))
			continue;
		qd_opts.src_line = st->line;
		ret = enter(r, st->netns);
		if (!ret && st->type == QD_STMT_QDISC)
			ret = plan_qdisc(r, st);
		else if (!ret && (s = new_step(r, st)))
			ret = st->type == QD_STMT_DEFAULT ? plan_default(r, st, s)
							  : plan_sysctl(r, st, s);
		else if (!ret)
			ret = QD_EXIT_FAIL;
		if (ret)
			return ret;
	}
	return 0;
}

/* What a step is about: "dev eth0 root", "default", "sysctl NAME". */
static const char *step_where(const struct step *s, char *buf, size_t len)
{
	const struct qd_stmt *st = s->st;
	char p[UNITS_BUF];
	int n = st->netns ? snprintf(buf, len, "netns %s ", st->netns) : 0;

	switch (st->type) {
	case QD_STMT_QDISC:
		snprintf(buf + n, len - n, "dev %s %s%s", s->ifindex ? s->dev : st->spec.dev,
			 st->spec.parent == TC_H_ROOT ? "root" : "parent ",
			 st->spec.parent == TC_H_ROOT
				 ? ""
				 : sprint_classid(st->spec.parent, p, sizeof(p)));
		break;
	case QD_STMT_DEFAULT:
		snprintf(buf + n, len - n, "default");
		break;
	case QD_STMT_SYSCTL:
		snprintf(buf + n, len - n, "sysctl %s", st->sysctl->name);
		break;
	case QD_STMT_PROFILE:
		snprintf(buf + n, len - n, "sysctl backpressure");
		break;
	}
	return buf;
}

static bool missing(const struct step *s)
{
	return s->st->type == QD_STMT_QDISC && !s->ifindex;
}

/* One line (or JSON object) for a step: what it does, and with outcome what came of it. */
static void print_step(const struct run *r, const struct step *s, const char *outcome)
{
	char where[128];
	const char *what = missing(s) ? "absent" : qd_action_names[s->plan.action];

	step_where(s, where, sizeof(where));
	open_json_object(NULL);
	print_string(PRINT_JSON, "file", NULL, r->c->file);
	print_int(PRINT_JSON, "line", NULL, s->st->line);
	if (s->st->netns)
		print_string(PRINT_JSON, "netns", NULL, s->st->netns);
	if (s->st->type == QD_STMT_QDISC)
		print_string(PRINT_JSON, "dev", NULL, s->ifindex ? s->dev : s->st->spec.dev);
	print_string(PRINT_ANY, "where", "%s: ", where);
	print_string(PRINT_ANY, "action", "%s", what);
	if (missing(s))
		print_text(" (%s)", s->st->glob ? "no device matches" : "no such device");
	else if (s->plan.desc[0])
		print_string(PRINT_ANY, "detail", " %s", s->plan.desc);
	if (outcome)
		print_string(PRINT_ANY, "outcome", ": %s", outcome);
	close_json_object();
	print_nl();
}

/* argv from words and from text batch_split cuts (which it writes into). */
struct words {
	int argc;
	char *argv[APPLY_MAX_WORDS];
	bool full;
};

static void push(struct words *w, const char *word)
{
	if (w->argc < APPLY_MAX_WORDS - 1)
		w->argv[w->argc++] = (char *)word;
	else
		w->full = true;
}

static void push_text(struct words *w, char *text)
{
	int n = batch_split(text, w->argv + w->argc, APPLY_MAX_WORDS - 1 - w->argc);

	if (n < 0)
		w->full = true;
	else
		w->argc += n;
}

/* "dev D root" or "dev D parent X:Y" [handle H]. */
static void push_place(struct words *w, const struct step *s, uint32_t handle, char *pbuf,
		       char *hbuf)
{
	push(w, "dev");
	push(w, s->dev);
	if (s->st->spec.parent == TC_H_ROOT) {
		push(w, "root");
	} else {
		push(w, "parent");
		push(w, sprint_classid(s->st->spec.parent, pbuf, UNITS_BUF));
	}
	if (handle) {
		push(w, "handle");
		push(w, sprint_handle(handle, hbuf, UNITS_BUF));
	}
}

static int run_words(struct words *w)
{
	const struct qd_cmd *cmd;

	if (w->full) {
		qd_err("too many words for one command");
		return QD_EXIT_FAIL;
	}
	w->argv[w->argc] = NULL;
	cmd = qd_cmd_find(w->argv[0]);
	return cmd ? cmd->run(w->argc, w->argv) : QD_EXIT_FAIL;
}

static int exec_qdisc(struct step *s)
{
	const struct qd_stmt *st = s->st;
	char pbuf[UNITS_BUF], hbuf[UNITS_BUF], text[QD_PLAN_TEXT];
	struct words w = {};

	if (s->plan.action == QD_ACT_CHANGE) {
		push(&w, "change");
		push_place(&w, s, 0, pbuf, hbuf);
		push(&w, st->kind->name);
		memcpy(text, s->plan.words, sizeof(text));
		push_text(&w, text);
		return run_words(&w);
	}
	push(&w, s->plan.action == QD_ACT_ADD ? "add" : "replace");
	push_place(&w, s, st->spec.have_handle ? st->spec.handle : 0, pbuf, hbuf);
	push(&w, st->spec.kind);
	for (int i = 0; i < st->spec.optc; i++)
		push(&w, st->spec.optv[i]);
	return run_words(&w);
}

/* Put back what s found, after it changed: by the same commands. */
static int undo_qdisc(struct step *s)
{
	const struct qd_current *cur = &s->cur;
	char pbuf[UNITS_BUF], hbuf[UNITS_BUF], text[QD_PLAN_TEXT];
	const struct qd_kind *k = cur->ours;
	const void *cfg = cur->cfg;
	struct words w = {};

	/* The kernel's own default comes back by itself when what replaced it goes. */
	if (!cur->present || !cur->qi.handle) {
		push(&w, "del");
		push_place(&w, s, 0, pbuf, hbuf);
		return run_words(&w);
	}
	push(&w, "replace");
	push_place(&w, s, cur->qi.handle, pbuf, hbuf);
	if (!strcmp(cur->qi.kind, "mq") && cur->nchild && cur->child[0].ours) {
		push(&w, "mq");
		k = cur->child[0].ours;
		cfg = cur->child[0].cfg;
	}
	if (k && cfg) {
		push(&w, k->name);
		if (qd_kind_words(k, cfg, text, sizeof(text)))
			w.full = true;
		push_text(&w, text);
	} else {
		push(&w, cur->qi.kind);
	}
	return run_words(&w);
}

/* After a refusal on s's device: what this run changed there goes back. */
static void restore_device(struct run *r, int failed)
{
	const struct step *f = &r->steps[failed];

	for (int i = failed - 1; i >= 0; i--) {
		struct step *s = &r->steps[i];

		if (!s->done || s->st->type != QD_STMT_QDISC || s->ifindex != f->ifindex ||
		    s->st->netns != f->st->netns)
			continue;
		qd_opts.src_line = s->st->line;
		print_step(r, s, undo_qdisc(s) ? "not restored" : "restored");
		s->done = false;
	}
}

static int exec_step(struct run *r, struct step *s)
{
	const struct qd_stmt *st = s->st;
	char err[QD_SYSCTL_ERR];
	struct qd_sysctl_plan plan;
	struct words w = {};

	switch (st->type) {
	case QD_STMT_QDISC:
		return exec_qdisc(s);
	case QD_STMT_DEFAULT:
		for (int i = 0; i < st->nwords; i++)
			push(&w, st->words[i]);
		return run_words(&w);
	case QD_STMT_SYSCTL:
		push(&w, "sysctl");
		push(&w, "set");
		push(&w, st->sysctl->name);
		push(&w, st->value);
		return run_words(&w);
	case QD_STMT_PROFILE:
		if (qd_sysctl_apply_profile(env_of(r), qd_profile_backpressure, &plan, err,
					    sizeof(err))) {
			if (err[0])
				qd_err("sysctl backpressure: %s", err);
			return QD_EXIT_FAIL;
		}
		return 0;
	}
	return QD_EXIT_FAIL;
}

static int exec_all(struct run *r)
{
	int first = 0;

	for (int i = 0; i < r->n; i++) {
		struct step *s = &r->steps[i];
		int ret;

		if (s->overridden || missing(s) || s->plan.action == QD_ACT_UNCHANGED) {
			if (!r->o->quiet && !s->overridden)
				print_step(r, s, NULL);
			continue;
		}
		qd_opts.src_line = s->st->line;
		ret = enter(r, s->st->netns);
		if (!ret)
			ret = exec_step(r, s);
		if (!ret) {
			s->done = true;
			print_step(r, s, NULL);
			continue;
		}
		print_step(r, s, "refused");
		if (s->st->type == QD_STMT_QDISC)
			restore_device(r, i);
		if (!first)
			first = ret;
		if (!r->o->force)
			break;
	}
	return first;
}

int qd_apply(const struct qd_config *c, const struct qd_apply_opts *o, int home)
{
	struct run r = { .c = c, .o = o, .home = home };
	int ret;

	qd_opts.src_file = strcmp(c->file, "-") ? c->file : "<stdin>";
	ret = plan_all(&r);
	if (!ret && o->dry_run) {
		for (int i = 0; i < r.n; i++)
			if (!r.steps[i].overridden)
				print_step(&r, &r.steps[i], NULL);
	} else if (!ret) {
		ret = exec_all(&r);
	}
	if (!ret && r.absent)
		ret = QD_EXIT_FAIL;
	if (r.ready)
		rtnl_close(&r.rt);
	/* Statements after this call run where apply started. */
	if (r.in && setns(home, CLONE_NEWNET))
		qd_err("cannot return to the first network namespace: %s", strerror(errno));
	for (int i = 0; i < r.n; i++)
		qd_current_free(&r.steps[i].cur);
	free(r.steps);
	qd_opts.src_file = NULL;
	return ret;
}

static int run_apply(int argc, char **argv)
{
	struct qd_apply_opts o = {};
	struct qd_sysctl_env env;
	struct qd_config c;
	const char *file = NULL;
	bool have;
	int home, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run")) {
			o.dry_run = true;
		} else if (!strcmp(argv[i], "--force")) {
			o.force = true;
		} else if (!file) {
			file = argv[i];
		} else {
			qd_err("apply: unexpected \"%s\"", argv[i]);
			return QD_EXIT_USAGE;
		}
	}
	if (!file) {
		qd_err("apply: needs a FILE ('-' for standard input)");
		return QD_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		qd_err("apply needs root (CAP_NET_ADMIN and CAP_BPF; it reads BPF maps)");
		return QD_EXIT_FAIL;
	}
	/* One JSON document: the plan's objects, or an error object a bad line. */
	open_json_array(PRINT_JSON, NULL);
	qd_sysctl_env_init(&env);
	ret = qd_config_read(file, &env.kernel, &c);
	have = !ret;
	home = have ? open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC) : -1;
	if (have && home < 0) {
		qd_err("cannot open /proc/self/ns/net: %s", strerror(errno));
		ret = QD_EXIT_FAIL;
	}
	if (!ret)
		ret = qd_apply(&c, &o, home);
	if (home >= 0)
		close(home);
	if (have)
		qd_config_free(&c);
	close_json_array(PRINT_JSON, NULL);
	return ret;
}

static const struct qd_cmd apply_cmd = {
	.name = "apply",
	.args = "[--dry-run] [--force] FILE|-",
	.summary = "make the qdiscs, default and sysctls what FILE says, doing only what differs",
	.help = "FILE holds one statement per line, in qdiscctl's own words:\n"
		"  dev DEV (root | parent ID) [handle H] KIND [OPTIONS]   (DEV may be a glob)\n"
		"  dev DEV root [handle H] mq KIND [OPTIONS]\n"
		"  default KIND [OPTIONS]\n"
		"  sysctl backpressure | sysctl NAME VALUE\n"
		"  netns NAME   (the statements after it are in that network namespace)\n"
		"Comments and backslash continuation as for -b. The whole file is checked\n"
		"before anything changes; then each statement is left alone when it already\n"
		"holds, changed in place when the kind matches (queue and counters kept), and\n"
		"replaced otherwise. Devices not named are never touched. A refusal puts back\n"
		"what this run changed on that device and stops (--force: goes on). --dry-run\n"
		"prints the plan only; -j prints it as JSON.",
	.order = 60,
	.run = run_apply,
};
QD_CMD_REGISTER(apply_cmd);
