// SPDX-License-Identifier: GPL-2.0
/*
 * save [dev DEV]: the current state as an apply file (core/config.h), so
 * that `save | apply -` changes nothing: qdiscctl's instances with every
 * option, the root qdiscs someone added of other kinds by their kind, the
 * default qdisc when it is one of qdiscctl's, and the sysctls qdiscctl
 * manages that differ from the kernel's defaults. What the kernel attached
 * by itself (handle 0) is left out, and so are other kinds below the root:
 * their options are tc's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <linux/pkt_sched.h>

#include "cmd/cmd.h"
#include "core/current.h"
#include "core/registry.h"
#include "lib/common.h"
#include "lib/units.h"
#include "netlink/link.h"
#include "netlink/qdisc.h"
#include "sysctl/proc.h"
#include "sysctl/profile.h"
#include "sysctl/sysctl.h"

struct qdiscs {
	int n, max;
	struct qdisc_info *q;
	bool *covered; /* said by an "mq KIND" line */
};

static int collect(const struct qdisc_info *qi, void *data)
{
	struct qdiscs *l = data;

	if (qd_grow(&l->q, &l->max, l->n, sizeof(*l->q), 64))
		return -ENOMEM;
	l->q[l->n] = *qi;
	l->q[l->n++].options = NULL;
	return 0;
}

/* "dev D root handle 1: " or "dev D parent 1:2 handle 10: " (no handle when 0). */
static void print_place(const char *dev, uint32_t parent, uint32_t handle)
{
	char p[UNITS_BUF], h[UNITS_BUF];

	printf("dev %s %s%s", dev, parent == TC_H_ROOT ? "root" : "parent ",
	       parent == TC_H_ROOT ? "" : sprint_classid(parent, p, sizeof(p)));
	if (handle)
		printf(" handle %s", sprint_handle(handle, h, sizeof(h)));
}

/* " KIND OPTIONS" of an instance: false when its options cannot be said. */
static bool print_instance(const struct qd_kind *k, const void *cfg, const char *where)
{
	char words[4096];
	int err = qd_kind_words(k, cfg, words, sizeof(words));

	if (err) {
		qd_err("save: %s: the options of %s cannot be written%s", where, k->id,
		       err == -ENOENT ? " (a cgroup it names is gone)" : "");
		return false;
	}
	printf(" %s%s%s\n", k->name, words[0] ? " " : "", words);
	return true;
}

/* An mq whose children are all one of qdiscctl's kinds with the same options. */
static bool mq_alike(const struct qd_current *cur)
{
	char desc[QD_PLAN_TEXT], words[QD_PLAN_TEXT];

	if (strcmp(cur->qi.kind, "mq") || !cur->nchild)
		return false;
	for (int i = 0; i < cur->nchild; i++)
		if (cur->child[i].ours != cur->child[0].ours || !cur->child[i].cfg ||
		    qd_kind_diff(cur->child[0].ours, cur->child[i].cfg, cur->child[0].cfg, desc,
				 sizeof(desc), words, sizeof(words)))
			return false;
	return true;
}

static int save_root(struct rtnl *rt, __u64 netns, const char *dev, const struct qdisc_info *qi,
		     struct qdiscs *l)
{
	struct qd_current cur;
	int err = qd_current_read(rt, netns, qi->ifindex, TC_H_ROOT, &cur), ret = 0;

	if (err) {
		qd_err("save: dev %s: cannot read its root qdisc: %s", dev, strerror(-err));
		return QD_EXIT_FAIL;
	}
	if (cur.present && mq_alike(&cur)) {
		print_place(dev, TC_H_ROOT, cur.qi.handle);
		printf(" mq");
		ret = print_instance(cur.child[0].ours, cur.child[0].cfg, dev) ? 0 : QD_EXIT_FAIL;
		for (int i = 0; i < l->n; i++)
			l->covered[i] |= l->q[i].ifindex == qi->ifindex &&
					 l->q[i].parent != TC_H_ROOT &&
					 TC_H_MAJ(l->q[i].parent) == TC_H_MAJ(cur.qi.handle);
	} else if (cur.present && cur.ours && cur.cfg) {
		print_place(dev, TC_H_ROOT, cur.qi.handle);
		ret = print_instance(cur.ours, cur.cfg, dev) ? 0 : QD_EXIT_FAIL;
	} else if (cur.present && cur.qi.handle) {
		print_place(dev, TC_H_ROOT, cur.qi.handle);
		printf(" %s\n", cur.qi.kind);
	}
	qd_current_free(&cur);
	return ret;
}

static int save_child(struct rtnl *rt, __u64 netns, const char *dev, const struct qdisc_info *qi)
{
	struct qd_current cur;
	int ret = 0;

	if (!qd_reg_kind(qi->kind) || qd_current_read(rt, netns, qi->ifindex, qi->parent, &cur))
		return 0;
	if (cur.ours && cur.cfg) {
		print_place(dev, qi->parent, cur.qi.handle);
		ret = print_instance(cur.ours, cur.cfg, dev) ? 0 : QD_EXIT_FAIL;
	}
	qd_current_free(&cur);
	return ret;
}

/* The default qdisc when it is one of qdiscctl's, with what its instances start with. */
static int save_default(const struct qd_sysctl_env *env)
{
	char cur[QD_SYSCTL_TEXT];
	const struct qd_kind *k;
	struct qd_reg reg;
	int ret = 0;

	if (qd_sysctl_read(env, qd_sysctl_find("net.core.default_qdisc"), cur, sizeof(cur), NULL) ||
	    !(k = qd_reg_kind(cur)) || qd_reg_open_id(cur, &reg))
		return 0;
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	if (!qd_reg_defaults(&reg, cfg)) {
		printf("default");
		ret = print_instance(k, cfg, "default") ? 0 : QD_EXIT_FAIL;
	}
	qd_reg_close(&reg);
	return ret;
}

/* The sysctls this namespace may set that differ from the kernel's defaults. */
static void save_sysctls(const struct qd_sysctl_env *env)
{
	for (const struct qd_sysctl *s = qd_sysctls; s->name; s++) {
		char cur[QD_SYSCTL_TEXT], buf[QD_SYSCTL_TEXT];
		const char *dflt;
		bool writable;

		/* An unknown default (NULL) is not known to differ. */
		if (qd_sysctl_read(env, s, cur, sizeof(cur), &writable) || !writable || !s->dflt ||
		    !(dflt = s->dflt(&env->kernel, buf, sizeof(buf))) || !strcmp(cur, dflt))
			continue;
		/* One of qdiscctl's kinds is said by the default line. */
		if (!strcmp(s->name, "net.core.default_qdisc") && qd_reg_kind(cur))
			continue;
		printf("sysctl %s %s\n", s->name, cur);
	}
}

static int run_save(int argc, char **argv)
{
	struct qd_sysctl_env env;
	struct qdiscs l = {};
	struct link_names ln;
	struct rtnl rt;
	int ifindex = 0, err, ret;
	__u64 netns;

	if (argc == 3 && !strcmp(argv[1], "dev")) {
		ifindex = if_nametoindex(argv[2]);
		if (!ifindex) {
			qd_err("Cannot find device \"%s\"", argv[2]);
			return QD_EXIT_FAIL;
		}
	} else if (argc != 1) {
		qd_err("save: takes only \"dev DEV\", not \"%s\"", argv[1]);
		return QD_EXIT_USAGE;
	}
	if (qd_opts.json) {
		qd_err("save prints an apply file: -j does not apply");
		return QD_EXIT_USAGE;
	}
	ret = qd_cmd_root_rtnl("save", &rt);
	if (ret)
		return ret;
	err = rtnl_netns_cookie(&rt, &netns);
	if (!err)
		err = link_names_load(&rt, &ln);
	if (!err) {
		err = qdisc_dump(&rt, ifindex, collect, &l);
		if (err)
			link_names_free(&ln);
	}
	if (err) {
		qd_err("save: cannot list the qdiscs: %s", strerror(-err));
		rtnl_close(&rt);
		free(l.q);
		return QD_EXIT_FAIL;
	}
	l.covered = calloc(l.n + 1, sizeof(*l.covered));
	printf("# qdiscctl save: 'qdiscctl apply FILE' makes it so again\n");
	qd_sysctl_env_init(&env);
	if (!ifindex) {
		ret = save_default(&env);
		save_sysctls(&env);
	}
	/* Roots first: apply makes a parent before what sits under it. */
	for (int pass = 0; pass < 2 && l.covered; pass++)
		for (int i = 0; i < l.n; i++) {
			const struct qdisc_info *qi = &l.q[i];
			const char *dev = link_name(&ln, qi->ifindex);
			int r = 0;

			if (!dev || (pass == 0) != (qi->parent == TC_H_ROOT) || l.covered[i])
				continue;
			r = pass ? save_child(&rt, netns, dev, qi)
				 : save_root(&rt, netns, dev, qi, &l);
			if (r && !ret)
				ret = r;
		}
	if (!l.covered) {
		qd_err("out of memory");
		ret = QD_EXIT_FAIL;
	}
	free(l.covered);
	free(l.q);
	link_names_free(&ln);
	rtnl_close(&rt);
	return ret;
}

static const struct qd_cmd save_cmd = {
	.name = "save",
	.args = "[dev DEV]",
	.summary = "print the qdiscs, default and sysctls as a file apply takes",
	.help = "qdiscctl's qdiscs with every option, other kinds' root qdiscs by kind (not\n"
		"what the kernel attached by itself), the default qdisc when it is one of\n"
		"qdiscctl's and the sysctls of 'qdiscctl sysctl' that differ from the kernel's\n"
		"defaults. 'qdiscctl save > FILE; qdiscctl apply FILE' changes nothing. With\n"
		"dev DEV, only that device's qdiscs.",
	.order = 62,
	.run = run_save,
};
QD_CMD_REGISTER(save_cmd);
