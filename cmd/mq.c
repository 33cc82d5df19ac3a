// SPDX-License-Identifier: GPL-2.0
/*
 * add/replace dev DEV root [handle H] mq KIND [OPTIONS]: an mq root and
 * one KIND instance on each of its classes H:1..H:N, one per tx queue, so
 * that every queue has its own qdisc on its own lock. Every check that can
 * fail is made before the kernel sees anything; should the kernel refuse a
 * child after the root is in place, the root goes again (and its children
 * with it): no mq is left without all its children.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "cmd/cmd.h"
#include "cmd/mq.h"
#include "core/instance.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"

/* The children, once the root is there; on failure the root goes again. */
static int add_children(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_reg *reg,
			__u64 netns, uint32_t ntx, const void *cfg)
{
	struct qdisc_spec root = *s, child = *s;
	struct qdisc_info cur;
	int err, ret = QD_EXIT_OK;

	err = qdisc_lookup(rt, s->ifindex, TC_H_ROOT, &cur);
	if (err || strcmp(cur.kind, "mq")) {
		qd_err("mq: the root of %s is %s after it was added", s->dev,
		       err ? strerror(-err) : cur.kind);
		return QD_EXIT_FAIL;
	}
	/* The kernel chooses the children's handles, as for tc without "handle". */
	child.have_handle = false;
	child.handle = 0;
	for (uint32_t q = 1; q <= ntx && !ret; q++) {
		struct qd_place place = { netns, s->ifindex, TC_H_MAKE(cur.handle, q) };

		child.parent = place.parent;
		ret = qd_new_instance(rt, &child, reg, &place, cfg, NLM_F_CREATE | NLM_F_REPLACE);
	}
	if (ret) {
		root.have_handle = false;
		root.handle = 0;
		qd_send_qdisc(rt, RTM_DELQDISC, 0, &root, NULL);
	}
	return ret;
}

static int new_mq(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_kind *k,
		  const void *cfg, unsigned int nlflags)
{
	struct qd_reg reg;
	uint32_t ntx;
	__u64 netns;
	int lock, err, ret;

	err = rtnl_netns_cookie(rt, &netns);
	if (!err)
		err = link_num_tx_queues(rt, s->ifindex, &ntx);
	if (err) {
		qd_err("mq: cannot read the tx queues of %s: %s", s->dev, strerror(-err));
		return QD_EXIT_FAIL;
	}
	if (ntx < 2) {
		qd_err("mq: %s has one tx queue; mq needs a multiqueue device", s->dev);
		return QD_EXIT_FAIL;
	}
	/* Room for every child in one registration before anything changes. */
	lock = qd_lock_and_open(rt, k, &reg, ntx, cfg);
	if (lock < 0)
		return QD_EXIT_FAIL;
	ret = qd_send_qdisc(rt, RTM_NEWQDISC, nlflags, s, "mq");
	if (!ret)
		ret = add_children(rt, s, &reg, netns, ntx, cfg);
	qd_reg_close(&reg);
	if (ret || (nlflags & NLM_F_REPLACE))
		qd_reg_sweep(NULL, NULL);
	qd_unlock(lock);
	return ret;
}

int qd_cmd_new_mq(const char *cmd, const struct qdisc_spec *spec, unsigned int nlflags)
{
	struct qdisc_spec s = *spec;
	const struct qd_kind *k = qd_kind_find(s.optv[0]);
	struct rtnl rt;
	int ret;

	if (!k) {
		qd_err("%s: mq: \"%s\" is not one of qdiscctl's kinds (use tc for mq with other "
		       "children)",
		       cmd, qd_tok(s.optv[0]));
		return QD_EXIT_USAGE;
	}
	if (s.parent != TC_H_ROOT) {
		qd_err("%s: mq: only \"root\" can hold an mq", cmd);
		return QD_EXIT_USAGE;
	}
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	qd_kind_defaults(k, cfg);
	if (qd_kind_parse(k, s.optc - 1, s.optv + 1, cfg) ||
	    qd_kind_check_required(k, s.optc - 1, s.optv + 1) ||
	    qd_kind_caps_check(k, qd_opts.capacity))
		return QD_EXIT_USAGE;
	if (qdisc_spec_resolve(&s))
		return s.dev ? QD_EXIT_FAIL : QD_EXIT_USAGE;
	if ((ret = qd_check_kernel(k)))
		return ret;
	ret = qd_cmd_root_rtnl(cmd, &rt);
	if (ret)
		return ret;
	ret = new_mq(&rt, &s, k, cfg, nlflags);
	rtnl_close(&rt);
	return ret;
}
