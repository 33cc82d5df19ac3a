// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "core/config.h"
#include "lib/batch.h"
#include "lib/common.h"

const char *const qd_action_names[] = { "unchanged", "change", "replace", "add" };

struct reader {
	struct qd_config *c;
	const struct qd_kernel *kernel;
	const char *netns; /* of the statements read now */
	int cap;
};

/* A copy of argv in one allocation: the pointers, then the strings. */
static char **copy_words(int argc, char **argv)
{
	size_t len = (argc + 1) * sizeof(char *);
	char **w, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	w = malloc(len);
	if (!w)
		return NULL;
	p = (char *)(w + argc + 1);
	for (int i = 0; i < argc; i++) {
		w[i] = p;
		p = stpcpy(p, argv[i]) + 1;
	}
	w[argc] = NULL;
	return w;
}

static bool same_netns(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The earlier statement st repeats (same target), or NULL. */
static const struct qd_stmt *repeated(const struct qd_config *c, const struct qd_stmt *st)
{
	for (int i = 0; i < c->n; i++) {
		const struct qd_stmt *o = &c->stmts[i];

		if (o->type != st->type || !same_netns(o->netns, st->netns))
			continue;
		if (st->type == QD_STMT_QDISC &&
		    (strcmp(o->spec.dev, st->spec.dev) || o->spec.parent != st->spec.parent))
			continue;
		if (st->type == QD_STMT_SYSCTL && o->sysctl != st->sysctl)
			continue;
		return o;
	}
	return NULL;
}

/* The kind and options of "KIND [OPTIONS]" (or "mq KIND [OPTIONS]") into st. */
static int parse_kind(struct qd_stmt *st, const char *what, bool native_ok)
{
	const char *name = st->spec.kind;

	if (!strcmp(name, "mq") && st->spec.optc && native_ok) {
		if (st->spec.parent != TC_H_ROOT) {
			qd_err("%s: only \"root\" can hold an mq", what);
			return -EINVAL;
		}
		st->mq = true;
		name = st->spec.optv[0];
		st->optc = st->spec.optc - 1;
		st->optv = st->spec.optv + 1;
		if (!qd_kind_find(name)) {
			qd_err("%s: mq: \"%s\" is not one of qdiscctl's kinds", what, name);
			return -EINVAL;
		}
	} else {
		st->optc = st->spec.optc;
		st->optv = st->spec.optv;
	}
	st->kind = qd_kind_find(name);
	if (!st->kind) {
		if (!native_ok) {
			qd_err("%s: \"%s\" is not one of qdiscctl's kinds (see 'qdiscctl kinds')",
			       what, name);
			return -EINVAL;
		}
		if (st->optc) {
			qd_err("%s: \"%s\" is not one of qdiscctl's kinds, so \"%s\" cannot be "
			       "parsed (native kinds take no options here)",
			       what, name, st->optv[0]);
			return -EINVAL;
		}
		return 0;
	}
	st->cfg = malloc(st->kind->cfg_size);
	if (!st->cfg)
		return -ENOMEM;
	qd_kind_defaults(st->kind, st->cfg);
	if (qd_kind_parse(st->kind, st->optc, st->optv, st->cfg) ||
	    qd_kind_check_required(st->kind, st->optc, st->optv))
		return -EINVAL;
	return 0;
}

static int parse_qdisc(struct qd_stmt *st)
{
	if (qdisc_spec_parse(st->nwords, st->words, &st->spec))
		return -EINVAL;
	if (!st->spec.have_parent) {
		qd_err("dev %s: \"root\" or \"parent ID\" is required", st->spec.dev);
		return -EINVAL;
	}
	if (!st->spec.kind) {
		qd_err("dev %s: a qdisc kind is required (see 'qdiscctl kinds')", st->spec.dev);
		return -EINVAL;
	}
	st->glob = strpbrk(st->spec.dev, "*?[") != NULL;
	return parse_kind(st, "dev", true);
}

static int parse_sysctl(struct qd_stmt *st, const struct qd_kernel *kernel)
{
	char text[QD_SYSCTL_TEXT * 2] = "", err[QD_SYSCTL_ERR];
	struct qd_sysctl_val v;
	size_t n = 0;

	if (st->nwords == 2 && !strcmp(st->words[1], "backpressure")) {
		st->type = QD_STMT_PROFILE;
		return 0;
	}
	if (st->nwords < 3) {
		qd_err("sysctl: needs \"backpressure\", or NAME and VALUE");
		return -EINVAL;
	}
	st->sysctl = qd_sysctl_find(st->words[1]);
	if (!st->sysctl) {
		qd_err("sysctl: \"%s\" is not one of the sysctls qdiscctl manages (see "
		       "'qdiscctl sysctl show')",
		       st->words[1]);
		return -EINVAL;
	}
	/* A triple may come as three words or as one quoted word. */
	for (int i = 2; i < st->nwords && n < sizeof(text); i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%s", i > 2 ? " " : "", st->words[i]);
	if (n >= sizeof(text) ||
	    qd_sysctl_parse(st->sysctl, kernel, text, true, &v, err, sizeof(err))) {
		qd_err("sysctl: %s", n >= sizeof(text) ? "value too long" : err);
		return -EINVAL;
	}
	qd_sysctl_format(st->sysctl, &v, st->value, sizeof(st->value));
	st->type = QD_STMT_SYSCTL;
	return 0;
}

static int parse_netns(struct reader *r, int argc, char **argv)
{
	struct qd_config *c = r->c;
	const char *name = argc == 2 ? argv[1] : "";
	char **p;

	/* As ip netns names them: a file under /run/netns. */
	if (argc != 2 || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		qd_err("netns: needs one NAME, as 'ip netns' names it");
		return -EINVAL;
	}
	for (int i = 0; i < c->nnetns; i++)
		if (!strcmp(c->netns[i], name)) {
			r->netns = c->netns[i];
			return 0;
		}
	p = realloc(c->netns, (c->nnetns + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->netns = p;
	p[c->nnetns] = strdup(name);
	if (!p[c->nnetns])
		return -ENOMEM;
	r->netns = p[c->nnetns++];
	return 0;
}

static void stmt_free(struct qd_stmt *st)
{
	free(st->words);
	free(st->cfg);
}

static int read_stmt(int argc, char **argv, void *data)
{
	struct reader *r = data;
	struct qd_config *c = r->c;
	const struct qd_stmt *dup;
	struct qd_stmt st = { .line = qd_opts.src_line, .netns = r->netns, .nwords = argc };
	int err;

	if (!strcmp(argv[0], "netns"))
		return parse_netns(r, argc, argv) ? QD_EXIT_USAGE : QD_EXIT_OK;
	st.words = copy_words(argc, argv);
	if (!st.words)
		return QD_EXIT_FAIL;
	if (!strcmp(argv[0], "dev")) {
		st.type = QD_STMT_QDISC;
		err = parse_qdisc(&st);
	} else if (!strcmp(argv[0], "default")) {
		st.type = QD_STMT_DEFAULT;
		if (argc < 2) {
			qd_err("default: needs one of qdiscctl's kinds");
			err = -EINVAL;
		} else {
			/* default KIND [OPTIONS] is a place-less "KIND [OPTIONS]". */
			st.spec.kind = st.words[1];
			st.spec.optc = argc - 2;
			st.spec.optv = st.words + 2;
			err = parse_kind(&st, "default", false);
		}
	} else if (!strcmp(argv[0], "sysctl")) {
		err = parse_sysctl(&st, r->kernel);
	} else {
		qd_err("unknown statement \"%s\" (dev, default, sysctl or netns)", argv[0]);
		err = -EINVAL;
	}
	if (!err && (dup = repeated(c, &st))) {
		qd_err("\"%s\" says again what line %d says", argv[0], dup->line);
		err = -EINVAL;
	}
	if (err) {
		stmt_free(&st);
		return err == -ENOMEM ? QD_EXIT_FAIL : QD_EXIT_USAGE;
	}
	if (c->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 16;
		struct qd_stmt *p = realloc(c->stmts, cap * sizeof(*p));

		if (!p) {
			stmt_free(&st);
			return QD_EXIT_FAIL;
		}
		c->stmts = p;
		r->cap = cap;
	}
	c->stmts[c->n++] = st;
	return QD_EXIT_OK;
}

int qd_config_read(const char *file, const struct qd_kernel *kernel, struct qd_config *c)
{
	struct reader r = { .c = c, .kernel = kernel };
	int ret;

	memset(c, 0, sizeof(*c));
	c->file = file;
	/* Every statement is checked, so that one run names every bad line. */
	ret = batch_each(file, true, read_stmt, &r);
	if (ret)
		qd_config_free(c);
	return ret;
}

void qd_config_free(struct qd_config *c)
{
	for (int i = 0; i < c->n; i++)
		stmt_free(&c->stmts[i]);
	for (int i = 0; i < c->nnetns; i++)
		free(c->netns[i]);
	free(c->stmts);
	free(c->netns);
	c->stmts = NULL;
	c->netns = NULL;
	c->n = c->nnetns = 0;
}

/*
 * Does the shell pattern p (*, ?, [set], [!set], [a-z]) match all of s?
 * Device names are short ASCII, so this is the whole of fnmatch they need,
 * at a fiftieth of the size glibc's wide-character one adds to the binary.
 */
static bool glob_match(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			for (const char *t = s;; t++) {
				if (glob_match(p + 1, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (!*s)
			return false;
		if (*p == '[' && strchr(p + 1, ']')) {
			bool neg = p[1] == '!', hit = false;
			const char *q = p + 1 + neg;

			/* A ']' first in the set is one of its characters. */
			do {
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hit |= *s >= q[0] && *s <= q[2];
					q += 3;
				} else {
					hit |= *s == *q++;
				}
			} while (*q && *q != ']');
			if (!*q || hit == neg)
				return false;
			p = q;
		} else if (*p != '?' && *p != *s) {
			return false;
		}
	}
	return !*s;
}

bool qd_stmt_matches(const struct qd_stmt *st, const char *dev)
{
	return st->glob ? glob_match(st->spec.dev, dev) : !strcmp(st->spec.dev, dev);
}

/* The kind as the plan names it: its id, or the native kind. */
static const char *want_id(const struct qd_stmt *st)
{
	return st->kind ? st->kind->id : st->spec.kind;
}

/* Nothing there, or only what the kernel attaches by itself (handle 0). */
static enum qd_action add_or_replace(const struct qd_stmt *st, const struct qd_current *cur,
				     struct qd_plan *p)
{
	if (!cur->present || !cur->qi.handle) {
		snprintf(p->desc, sizeof(p->desc), "%s%s", st->mq ? "mq " : "", want_id(st));
		return p->action = QD_ACT_ADD;
	}
	snprintf(p->desc, sizeof(p->desc), "%s -> %s%s", cur->qi.kind, st->mq ? "mq " : "",
		 want_id(st));
	return p->action = QD_ACT_REPLACE;
}

/*
 * mq KIND: every tx queue's child an instance of KIND. The children were
 * made alike, so one set of change words must fit them all; when they
 * differ among themselves, a replace makes them alike again.
 */
static int plan_mq(const struct qd_stmt *st, const struct qd_current *cur, struct qd_plan *p)
{
	char desc[QD_PLAN_TEXT], words[QD_PLAN_TEXT];

	if (strcmp(cur->qi.kind, "mq") || !cur->nchild || (uint32_t)cur->nchild != cur->ntx)
		return add_or_replace(st, cur, p), 0;
	for (int i = 0; i < cur->nchild; i++) {
		const struct qd_child *c = &cur->child[i];
		int n;

		if (c->ours != st->kind || !c->cfg)
			return add_or_replace(st, cur, p), 0;
		n = qd_kind_diff(st->kind, c->cfg, st->cfg, desc, sizeof(desc), words,
				 sizeof(words));
		if (n == -ENOSPC)
			return n;
		if (n < 0 || (i && strcmp(words, p->words)))
			return add_or_replace(st, cur, p), 0;
		if (!i) {
			memcpy(p->desc, desc, sizeof(desc));
			memcpy(p->words, words, sizeof(words));
		}
	}
	p->action = p->words[0] ? QD_ACT_CHANGE : QD_ACT_UNCHANGED;
	return 0;
}

int qd_plan_qdisc(const struct qd_stmt *st, const struct qd_current *cur, struct qd_plan *p)
{
	int n;

	memset(p, 0, sizeof(*p));
	/* A handle asked for is part of what must match. */
	if (cur->present && st->spec.have_handle && cur->qi.handle != st->spec.handle)
		return add_or_replace(st, cur, p), 0;
	if (!cur->present)
		return add_or_replace(st, cur, p), 0;
	if (st->mq)
		return plan_mq(st, cur, p);
	if (!st->kind) {
		if (strcmp(cur->qi.kind, st->spec.kind))
			add_or_replace(st, cur, p);
		return 0;
	}
	if (cur->ours != st->kind || !cur->cfg)
		return add_or_replace(st, cur, p), 0;
	n = qd_kind_diff(st->kind, cur->cfg, st->cfg, p->desc, sizeof(p->desc), p->words,
			 sizeof(p->words));
	if (n == -ENOSPC)
		return n;
	if (n < 0)
		add_or_replace(st, cur, p);
	else
		p->action = n ? QD_ACT_CHANGE : QD_ACT_UNCHANGED;
	return 0;
}
