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
#include "cmd/new_qdisc.h"
#include "cmd/target.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/registry.h"
#include "lib/spec.h"
#include "lib/testkill.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

int qd_check_kernel(const struct qd_kind *k)
{
	struct qd_reg reg;
	int ok;

	/*
	 * A registration of k (any version: the first is enough to look at)
	 * proves the kernel runs BPF qdiscs; parsing its BTF to find out costs
	 * more than the rest of an add together.
	 */
	if (!qd_reg_open_id(k->id, &reg)) {
		qd_reg_close(&reg);
		return 0;
	}
	ok = qd_kernel_supported();

	if (ok > 0)
		return 0;
	if (ok == 0)
		qd_err("this kernel cannot run BPF qdiscs: Linux >= 6.16 with CONFIG_NET_SCH_BPF=y "
		       "is needed");
	else
		qd_err("cannot read the kernel's BTF: %s", strerror(-ok));
	return QD_EXIT_UNSUPPORTED;
}

/*
 * replace on an instance of the same kind would reach the kernel's change
 * path, which cannot pass options to a BPF qdisc: rewrite them in place.
 * Sets *done when it did (or failed to); otherwise the kernel creates one.
 */
static int replace_in_place(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_reg *reg,
			    const void *cfg, bool *done)
{
	struct qd_target t;
	struct qd_reg own;
	int ret = QD_EXIT_OK;
	uint32_t id;

	*done = false;
	if (qd_target_lookup(rt, s, &t) || qd_reg_open_id(t.cur.kind, &own))
		return QD_EXIT_OK;
	/*
	 * An instance of another version is replaced by one of this version;
	 * one of this version in a further registration is rewritten where it
	 * is, unless the options need more than that registration holds.
	 */
	if (own.kind == reg->kind && !strcmp(own.fp, reg->fp) && !qd_reg_caps(&own) &&
	    !qd_kind_caps_exceeded(own.kind, cfg, own.cap) &&
	    !qd_reg_find(&own, &t.place, t.cur.handle, &id)) {
		*done = true;
		ret = qd_target_write(&own, &t, id, cfg) ? QD_EXIT_FAIL : QD_EXIT_OK;
	}
	qd_reg_close(&own);
	return ret;
}

int qd_send_qdisc(struct rtnl *rt, uint16_t type, unsigned int nlflags, const struct qdisc_spec *s,
		  const char *kind)
{
	char buf[RTNL_MSG_SIZE];
	struct qdisc_req req = {
		.type = type,
		.flags = nlflags,
		.ifindex = s->ifindex,
		.parent = s->parent,
		.handle = s->handle,
		.kind = kind,
	};
	int err = rtnl_talk(rt, qdisc_msg_build(buf, &req));

	if (err) {
		qd_err_kernel(err, rt->errmsg);
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

int qd_lock_and_open(struct rtnl *rt, const struct qd_kind *k, struct qd_reg *reg, uint32_t need,
		     const void *cfg)
{
	int lock = qd_lock(), err;
	uint64_t here;

	if (lock < 0)
		return -1;
	qd_reg_sweep(NULL, NULL);
	err = qd_reg_open(k, reg, need, cfg);
	/* A new registration is sized for every tx queue here, too. */
	if (err == -ENOENT)
		err = qd_reg_create(k, reg, need, link_tx_queues_total(rt, &here) ? 0 : here, cfg);
	if (err) {
		qd_unlock(lock);
		return -1;
	}
	return lock;
}

int qd_new_instance(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_reg *reg,
		    const struct qd_place *place, const void *cfg, unsigned int nlflags)
{
	bool done;
	int err, ret;

	if (nlflags & NLM_F_REPLACE) {
		ret = replace_in_place(rt, s, reg, cfg, &done);
		if (done)
			return ret;
	}
	err = qd_reg_set_pending(reg, place, cfg);
	if (err) {
		qd_err("cannot hand the options to %s: %s", reg->id, strerror(-err));
		return QD_EXIT_FAIL;
	}
	qd_test_kill(QD_KILL_PENDING);
	/* Before the qdisc exists the egress program finds nothing to do. */
	ret = qd_reg_attach_egress(reg, place) ? QD_EXIT_FAIL : QD_EXIT_OK;
	qd_test_kill(QD_KILL_EGRESS);
	if (!ret)
		ret = qd_send_qdisc(rt, RTM_NEWQDISC, nlflags, s, reg->id);
	qd_test_kill(QD_KILL_CREATED);
	qd_reg_clear_pending(reg, place);
	return ret;
}

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
		qd_err("%s: a qdisc kind is required (see 'qdiscctl kinds')", argv[0]);
		return QD_EXIT_USAGE;
	}
	if (!s.have_parent) {
		qd_err("%s: \"root\" or \"parent ID\" is required", argv[0]);
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
		       s.kind, s.optv[0]);
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
