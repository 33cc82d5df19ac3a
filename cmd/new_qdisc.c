// SPDX-License-Identifier: GPL-2.0
/*
 * What add and replace share. For one of qdiscctl's kinds the options
 * travel through the registration's "pending" map, which the program's
 * .init reads: a BPF qdisc never sees TCA_OPTIONS safely and cannot dump
 * them, so the kernel only learns the kind's name.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "cmd/cmd.h"
#include "cmd/mq.h"
#include "core/instance.h"
#include "core/lock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/spec.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

static int new_bpf_qdisc(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_kind *k,
			 const void *cfg, unsigned int nlflags)
{
	struct qd_place place = { .ifindex = s->ifindex, .parent = s->parent };
	struct qd_reg reg;
	int lock, err, ret;

	err = rtnl_netns_cookie(rt, &place.netns);
	if (err) {
		qd_err("cannot identify the network namespace: %s", strerror(-err));
		return QD_EXIT_FAIL;
	}
	lock = qd_lock_and_open(rt, k, &reg, 1, cfg);
	if (lock < 0)
		return QD_EXIT_FAIL;
	ret = qd_new_instance(rt, s, &reg, &place, cfg, nlflags);
	qd_reg_close(&reg);
	/*
	 * Leave no registration behind that no qdisc uses: after a failure,
	 * or a replace that took another kind's last instance away.
	 */
	if (ret || (nlflags & NLM_F_REPLACE))
		qd_reg_sweep(NULL, NULL);
	qd_unlock(lock);
	return ret;
}

int qd_cmd_new_qdisc(int argc, char **argv, unsigned int nlflags)
{
	const struct qd_kind *k;
	struct qdisc_spec s;
	struct rtnl rt;
	int ret;

	if (qdisc_spec_parse(argc - 1, argv + 1, &s))
		return QD_EXIT_USAGE;
	if (!s.kind) {
		qd_err("%s: a qdisc kind is required (see 'qdiscctl kinds')", qd_tok(argv[0]));
		return QD_EXIT_USAGE;
	}
	if (!s.have_parent) {
		qd_err("%s: \"root\" or \"parent ID\" is required", qd_tok(argv[0]));
		return QD_EXIT_USAGE;
	}
	/* "mq KIND [OPTIONS]": an mq root with a KIND child on every tx queue. */
	if (!strcmp(s.kind, "mq") && s.optc)
		return qd_cmd_new_mq(argv[0], &s, nlflags);
	k = qd_kind_find(s.kind);
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	if (k) {
		qd_kind_defaults(k, cfg);
		if (qd_kind_parse(k, s.optc, s.optv, cfg) ||
		    qd_kind_check_required(k, s.optc, s.optv) ||
		    qd_kind_caps_check(k, qd_opts.capacity))
			return QD_EXIT_USAGE;
	} else if (s.optc) {
		/* Native kinds pass through without options; tc knows their formats. */
		qd_err("\"%s\" is not one of qdiscctl's kinds, so \"%s\" cannot be parsed (use tc "
		       "for native qdiscs' options)",
		       qd_tok(s.kind), qd_tok(s.optv[0]));
		return QD_EXIT_USAGE;
	}
	if (qdisc_spec_resolve(&s))
		return s.dev ? QD_EXIT_FAIL : QD_EXIT_USAGE;
	if (k && (ret = qd_check_kernel(k)))
		return ret;
	ret = qd_cmd_root_rtnl(argv[0], &rt);
	if (ret)
		return ret;
	ret = k ? new_bpf_qdisc(&rt, &s, k, cfg, nlflags)
		: qd_send_qdisc(&rt, RTM_NEWQDISC, nlflags, &s, s.kind);
	rtnl_close(&rt);
	/* A native qdisc may have replaced the last instance of one of ours. */
	if (!k && !ret)
		qd_reg_tidy();
	return ret;
}
