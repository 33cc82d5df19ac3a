// SPDX-License-Identifier: GPL-2.0
/*
 * change: new options for the instance of one of qdiscctl's kinds at a
 * place, like `tc qdisc change`. It never creates a qdisc. Options not
 * given keep their current values; the kernel is not involved at all
 * (its change path cannot reach a BPF qdisc): the instance's cfgs slot is
 * rewritten, and the program reads it on every packet, so nothing queued
 * is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/pkt_sched.h>

#include "cmd/cmd.h"
#include "core/instance.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/target.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/spec.h"

/*
 * Which words are options: the word after the place is the kind only when
 * it names one of qdiscctl's, since the kind may be left out.
 */
static int pick_options(const struct qdisc_spec *s, const struct qd_target *t, const char *where,
			int *optc, char ***optv)
{
	const struct qd_kind *named = s->kind ? qd_kind_find(s->kind) : NULL;

	*optc = s->optc;
	*optv = s->optv;
	if (!s->kind || named == t->kind)
		return QD_EXIT_OK;
	if (named || !t->kind) {
		/* As the kernel answers tc: the kind must match the existing one. */
		qd_err("change: the qdisc at %s is %s, not %s", where, t->cur.kind,
		       qd_tok(s->kind));
		return QD_EXIT_KERNEL;
	}
	if (!qd_kind_knows(t->kind, s->kind)) {
		qd_err("change: \"%s\" is neither %s (the qdisc at %s) nor one of its options",
		       qd_tok(s->kind), t->kind->name, where);
		return QD_EXIT_USAGE;
	}
	(*optc)++;
	(*optv)--;
	return QD_EXIT_OK;
}

static int change_instance(const struct qd_target *t, const char *where, int optc, char **optv)
{
	const struct qd_kind *k = t->kind;
	_Alignas(uint64_t) char cur[QD_CFG_MAX];
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	struct qd_reg reg;
	uint32_t id;
	int err, ret = QD_EXIT_OK;

	err = qd_target_slot(t, &reg, &id);
	if (err == -ENOENT) {
		qd_err("change: %s at %s has no registration under %s", t->cur.kind, where,
		       QD_PIN_ROOT);
		return QD_EXIT_FAIL;
	}
	if (err || qd_reg_cfg(&reg, id, cur)) {
		/* An instance whose .init failed owns no slot; it is no qdisc tc shows. */
		qd_err("change: %s at %s has no options slot", t->cur.kind, where);
		ret = QD_EXIT_FAIL;
	} else if (qd_kind_change(k, cur, optc, optv, cfg)) {
		ret = QD_EXIT_USAGE;
	} else if (qd_target_write(&reg, t, id, cfg)) {
		ret = QD_EXIT_FAIL;
	}
	qd_reg_close(&reg);
	return ret;
}

struct mq_children {
	uint32_t major; /* the mq's handle */
	__u64 netns;
	int n, max;
	struct qd_target *t;
	const char *other; /* a child's kind that is not the first's */
};

static int collect_child(const struct qdisc_info *qi, void *data)
{
	struct mq_children *c = data;
	struct qd_target *t;

	if (c->n && strcmp(qi->kind, c->t[0].cur.kind)) {
		c->other = qi->kind;
		return 0;
	}
	if (qd_grow(&c->t, &c->max, c->n, sizeof(*c->t), 64))
		return -ENOMEM;
	t = &c->t[c->n];
	t->cur = *qi;
	t->cur.options = NULL;
	t->kind = qd_reg_kind(qi->kind);
	t->place.netns = c->netns;
	t->place.ifindex = qi->ifindex;
	t->place.parent = qi->parent;
	c->n++;
	return 0;
}

/*
 * change on an mq root whose children are all instances of one of
 * qdiscctl's kinds (what "add ... root mq KIND" makes) changes every child,
 * each keeping the options not given. The options are checked against the
 * first child before any is written.
 */
static int change_mq(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_target *root,
		     const char *where)
{
	struct mq_children c = { .major = root->cur.handle, .netns = root->place.netns };
	char **optv;
	int lock, err, ret = QD_EXIT_OK, optc;

	err = qdisc_dump_children(rt, s->ifindex, c.major, collect_child, &c);
	if (err) {
		qd_err("change: cannot list the children of the mq at %s: %s", where,
		       strerror(-err));
		ret = QD_EXIT_FAIL;
	} else if (!c.n || !c.t[0].kind || c.other) {
		const char *bad = c.other ? c.other : c.n ? c.t[0].cur.kind : "none";

		qd_err("change: the children of the mq at %s are not all one of qdiscctl's kinds "
		       "(%s)",
		       where, bad);
		ret = QD_EXIT_FAIL;
	} else {
		ret = pick_options(s, &c.t[0], where, &optc, &optv);
	}
	if (ret)
		goto out;
	lock = qd_lock();
	if (lock < 0) {
		ret = QD_EXIT_FAIL;
		goto out;
	}
	for (int i = 0; i < c.n && !ret; i++)
		ret = change_instance(&c.t[i], where, optc, optv);
	qd_unlock(lock);
out:
	free(c.t);
	return ret;
}

static int run_change(int argc, char **argv)
{
	const struct qd_kind *named;
	struct qd_target t;
	struct qdisc_spec s;
	struct rtnl rt;
	char where[128], **optv;
	int lock, err, ret, optc;

	if (qdisc_spec_parse(argc - 1, argv + 1, &s))
		return QD_EXIT_USAGE;
	if (!s.have_parent) {
		qd_err("change: \"root\" or \"parent ID\" is required");
		return QD_EXIT_USAGE;
	}
	if (qdisc_spec_resolve(&s))
		return s.dev ? QD_EXIT_FAIL : QD_EXIT_USAGE;
	/* With the kind named, bad options are found before anything is looked up. */
	named = s.kind ? qd_kind_find(s.kind) : NULL;
	if (named) {
		_Alignas(uint64_t) char cfg[QD_CFG_MAX];

		qd_kind_defaults(named, cfg);
		/* Checks between options wait for the current ones (bands vs priomap). */
		if (qd_kind_parse_words(named, s.optc, s.optv, cfg))
			return QD_EXIT_USAGE;
	}
	ret = qd_cmd_root_rtnl("change", &rt);
	if (ret)
		return ret;
	qd_target_where(&s, where, sizeof(where));
	err = qd_target_lookup(&rt, &s, &t);
	if (err == -ENOENT) {
		/* What the kernel tells tc: a change needs a qdisc to change. */
		qd_err("change: no qdisc at %s (change never creates one; use add or replace)",
		       where);
		ret = QD_EXIT_KERNEL;
	} else if (err) {
		qd_err("change: cannot look up the qdisc at %s: %s", where, strerror(-err));
		ret = QD_EXIT_FAIL;
	} else if (!t.kind && !strcmp(t.cur.kind, "mq")) {
		ret = change_mq(&rt, &s, &t, where);
	} else if (!t.kind && !named) {
		qd_err("change: the qdisc at %s is %s, not one of qdiscctl's kinds (use tc change "
		       "for native qdiscs)",
		       where, t.cur.kind);
		ret = QD_EXIT_FAIL;
	} else if (!(ret = pick_options(&s, &t, where, &optc, &optv))) {
		/* Only now: the lock creates QD_PIN_ROOT, which a refusal must not leave. */
		lock = qd_lock();
		ret = lock < 0 ? QD_EXIT_FAIL : change_instance(&t, where, optc, optv);
		qd_unlock(lock);
	}
	rtnl_close(&rt);
	return ret;
}

static const struct qd_cmd change_cmd = {
	.name = "change",
	.args = "dev DEV (root | parent ID) [handle H] [KIND] OPTIONS",
	.summary = "change some options of one of qdiscctl's qdiscs, keeping its queue",
	.help = "Options not given keep their current values (replace resets them to the\n"
		"defaults). Never creates a qdisc. KIND, when given, must be the kind of\n"
		"the qdisc there. On an mq root whose children are all one of qdiscctl's\n"
		"kinds, every child changes. Exit status 2 when there is no qdisc there or\n"
		"it is of another kind, 1 when it is not one of qdiscctl's (use tc change).",
	.order = 25,
	.run = run_change,
};
QD_CMD_REGISTER(change_cmd);
