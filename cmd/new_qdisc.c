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
#include "cmd/target.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/registry.h"
#include "lib/spec.h"
#include "lib/testkill.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

int qd_check_kernel(void)
{
	int ok = qd_kernel_supported();

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
	uint32_t id;

	*done = false;
	/* An instance of another version is replaced by one of this version. */
	if (qd_target_lookup(rt, s, &t) || strcmp(t.cur.kind, reg->id) ||
	    qd_reg_find(reg, &t.place, t.cur.handle, &id))
		return QD_EXIT_OK;
	*done = true;
	return qd_target_write(reg, &t, id, cfg) ? QD_EXIT_FAIL : QD_EXIT_OK;
}

/* RTM_NEWQDISC for the place s names: QD_EXIT_OK, or the kernel's refusal printed. */
static int send_new_qdisc(struct rtnl *rt, const struct qdisc_spec *s, const char *kind,
			  unsigned int nlflags)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct qdisc_req req = {
		.type = RTM_NEWQDISC,
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

static int new_bpf_qdisc(struct rtnl *rt, const struct qdisc_spec *s, const struct qd_kind *k,
			 const void *cfg, unsigned int nlflags)
{
	struct qd_place place = { .ifindex = s->ifindex, .parent = s->parent };
	struct qd_reg reg;
	int lock, err, ret = QD_EXIT_OK;
	bool done;

	err = rtnl_netns_cookie(rt, &place.netns);
	if (err) {
		qd_err("cannot identify the network namespace: %s", strerror(-err));
		return QD_EXIT_FAIL;
	}
	lock = qd_lock();
	if (lock < 0)
		return QD_EXIT_FAIL;
	/* Whatever a killed run left goes before it could be mistaken for ours. */
	qd_reg_sweep(NULL, NULL);
	if (qd_reg_open(k, &reg, true)) {
		qd_unlock(lock);
		return QD_EXIT_FAIL;
	}

	if (nlflags & NLM_F_REPLACE) {
		ret = replace_in_place(rt, s, &reg, cfg, &done);
		if (done)
			goto out;
	}

	err = qd_reg_set_pending(&reg, &place, cfg);
	if (err) {
		qd_err("cannot hand the options to %s: %s", reg.id, strerror(-err));
		ret = QD_EXIT_FAIL;
		goto out;
	}
	qd_test_kill(QD_KILL_PENDING);
	/* Before the qdisc exists the egress program finds nothing to do. */
	ret = qd_reg_attach_egress(&reg, &place) ? QD_EXIT_FAIL : QD_EXIT_OK;
	qd_test_kill(QD_KILL_EGRESS);
	if (!ret)
		ret = send_new_qdisc(rt, s, reg.id, nlflags);
	qd_test_kill(QD_KILL_CREATED);
	qd_reg_clear_pending(&reg, &place);
out:
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
	k = qd_kind_find(s.kind);
	char cfg[k ? k->cfg_size : 1];
	if (k) {
		qd_kind_defaults(k, cfg);
		if (qd_kind_parse(k, s.optc, s.optv, cfg) ||
		    qd_kind_check_required(k, s.optc, s.optv))
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
	if (k && (ret = qd_check_kernel()))
		return ret;
	if (geteuid() != 0) {
		qd_err("%s needs root (CAP_NET_ADMIN and CAP_BPF)", argv[0]);
		return QD_EXIT_FAIL;
	}
	if (rtnl_open(&rt)) {
		qd_err("cannot open rtnetlink: %s", strerror(errno));
		return QD_EXIT_FAIL;
	}
	ret = k ? new_bpf_qdisc(&rt, &s, k, cfg, nlflags) : send_new_qdisc(&rt, &s, s.kind, nlflags);
	rtnl_close(&rt);
	/* A native qdisc may have replaced the last instance of one of ours. */
	if (!k && !ret)
		qd_reg_tidy();
	return ret;
}
