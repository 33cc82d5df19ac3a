// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <net/if.h>
#include <string.h>
#include <time.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <bpf/btf.h>
#include <libmnl/libmnl.h>

#include "core/egress.h"
#include "core/instance.h"
#include "core/lock.h"
#include "core/register.h"
#include "core/sweep.h"
#include "lib/common.h"
#include "lib/testkill.h"

/* Does the running kernel let BPF implement Qdisc_ops? 1, 0, or -errno. */
static int kernel_supported(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id;

	if (!btf)
		return errno == ENOENT ? 0 : -errno;
	id = btf__find_by_name_kind(btf, "bpf_struct_ops_Qdisc_ops", BTF_KIND_STRUCT);
	btf__free(btf);
	return id > 0;
}

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
	ok = kernel_supported();

	if (ok > 0)
		return 0;
	if (ok == 0)
		qd_err("this kernel cannot run BPF qdiscs: Linux >= 6.16 with CONFIG_NET_SCH_BPF=y "
		       "is needed");
	else
		qd_err("cannot read the kernel's BTF: %s", strerror(-ok));
	return QD_EXIT_UNSUPPORTED;
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

static int qdisc_talk(struct rtnl *rt, uint16_t type, unsigned int nlflags,
		      const struct qdisc_spec *s, const char *kind)
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

	return rtnl_talk(rt, qdisc_msg_build(buf, &req));
}

int qd_send_qdisc(struct rtnl *rt, uint16_t type, unsigned int nlflags, const struct qdisc_spec *s,
		  const char *kind)
{
	int err = qdisc_talk(rt, type, nlflags, s, kind);

	if (err) {
		qd_err_kernel(err, rt->errmsg);
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

/*
 * A new instance of reg. The kernel's ENOSPC is the program's .init
 * finding every slot taken: qdiscctl counted a free one under its lock,
 * so another program (tc, or the kernel making a default qdisc) took it
 * since. The bare errno would name neither the limit nor the way out.
 */
static int send_instance(struct rtnl *rt, unsigned int nlflags, const struct qdisc_spec *s,
			 const struct qd_reg *reg)
{
	int err = qdisc_talk(rt, RTM_NEWQDISC, nlflags, s, reg->id);

	if (err == -ENOSPC && !rt->errmsg[0]) {
		qd_err("%s: all %u instance slots of %s are taken (by a qdisc made without "
		       "qdiscctl since it counted them): run the command again for a further "
		       "registration, or give one more room with -C instances=N",
		       reg->kind->name, reg->slots, reg->id);
		return QD_EXIT_KERNEL;
	}
	if (err) {
		qd_err_kernel(err, rt->errmsg);
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

int qd_target_slot(const struct qd_target *t, struct qd_reg *reg, uint32_t *id)
{
	if (qd_reg_open_id(t->cur.kind, reg))
		return -ENOENT;
	if (qd_reg_find(reg, &t->place, t->cur.handle, id)) {
		qd_reg_close(reg);
		return -ESRCH;
	}
	return 0;
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
	if (qd_target_lookup(rt, s, &t) || qd_target_slot(&t, &own, &id))
		return QD_EXIT_OK;
	/*
	 * An instance of another version is replaced by one of this version;
	 * one of this version in a further registration is rewritten where it
	 * is, unless the options need more than that registration holds.
	 */
	if (own.kind == reg->kind && !strcmp(own.fp, reg->fp) && !qd_reg_caps(&own) &&
	    !qd_kind_caps_exceeded(own.kind, cfg, own.cap)) {
		*done = true;
		ret = qd_target_write(&own, &t, id, cfg) ? QD_EXIT_FAIL : QD_EXIT_OK;
	}
	qd_reg_close(&own);
	return ret;
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
		/* Beyond the registration's capacity is said where it is found. */
		if (err != -ERANGE)
			qd_err("cannot hand the options to %s: %s", reg->id, strerror(-err));
		return QD_EXIT_FAIL;
	}
	qd_test_kill(QD_KILL_PENDING);
	/* Before the qdisc exists the egress program finds nothing to do. */
	ret = qd_reg_attach_egress(reg, place, cfg) ? QD_EXIT_FAIL : QD_EXIT_OK;
	qd_test_kill(QD_KILL_EGRESS);
	if (!ret)
		ret = send_instance(rt, nlflags, s, reg);
	qd_test_kill(QD_KILL_CREATED);
	qd_reg_clear_pending(reg, place);
	return ret;
}

uint64_t qd_inst_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void qd_lookup_init(struct qd_lookup *l, struct rtnl *rt, const struct qdisc_spec *filter)
{
	memset(l, 0, sizeof(*l));
	l->filter = filter;
	rtnl_netns_cookie(rt, &l->netns);
	/* The caller may have opened rt in another namespace and left it. */
	l->name_fd = mnl_socket_get_fd(rt->nl);
}

void qd_lookup_free(struct qd_lookup *l)
{
	free(l->inst);
	for (size_t i = 0; i < QD_LOOKUP_KINDS; i++)
		if (l->ok[i] > 0) {
			qd_reg_close(&l->regs[i]);
			qd_insts_free(&l->insts[i]);
		}
}

bool qd_lookup_wanted(const struct qd_lookup *ctx, const struct qdisc_info *qi)
{
	const struct qdisc_spec *f = ctx->filter;

	return (!f->have_parent || qi->parent == f->parent) &&
	       (!f->have_handle || qi->handle == f->handle);
}

const char *qd_lookup_dev(struct qd_lookup *ctx, const struct qdisc_info *qi, char *buf)
{
	if (ctx->filter->dev)
		return NULL;
	if (ctx->name_ifindex && ctx->name_ifindex == qi->ifindex)
		return ctx->name;
	if (link_index_name(ctx->name_fd, qi->ifindex, ctx->name)) {
		/* Gone since the dump listed its qdisc. */
		ctx->name_ifindex = 0;
		snprintf(buf, IF_NAMESIZE, "if%d", qi->ifindex);
		return buf;
	}
	ctx->name_ifindex = qi->ifindex;
	return ctx->name;
}

/*
 * The index in ctx of the registration of kernel kind id (one version of
 * k), or -1: one kept open a kind, its instances read when it is opened.
 */
static int reg_for(struct qd_lookup *ctx, const struct qd_kind *k, const char *id)
{
	const struct qd_kind *const *kinds = qd_kinds();

	for (int i = 0; kinds[i] && i < QD_LOOKUP_KINDS; i++) {
		if (kinds[i] != k)
			continue;
		if (ctx->ok[i] && strcmp(ctx->regs[i].id, id)) {
			if (ctx->ok[i] > 0) {
				qd_reg_close(&ctx->regs[i]);
				qd_insts_free(&ctx->insts[i]);
			}
			ctx->ok[i] = 0;
		}
		if (ctx->ok[i] == 0) {
			ctx->ok[i] = qd_reg_open_id(id, &ctx->regs[i]) ? -1 : 1;
			if (ctx->ok[i] > 0 && qd_reg_list(&ctx->regs[i], &ctx->insts[i])) {
				qd_reg_close(&ctx->regs[i]);
				ctx->ok[i] = -1;
			}
		}
		return ctx->ok[i] > 0 ? i : -1;
	}
	return -1;
}

const struct qd_reg *qd_lookup_instance(struct qd_lookup *ctx, const struct qdisc_info *qi,
					uint32_t *id)
{
	const struct qd_kind *k = qd_reg_kind(qi->kind);
	int r;

	if (!k || (r = reg_for(ctx, k, qi->kind)) < 0)
		return NULL;
	for (int i = 0; i < ctx->insts[r].n; i++) {
		const struct qd_inst_hdr *h = &ctx->insts[r].hdrs[i];

		if (h->handle == qi->handle && h->place.netns == ctx->netns &&
		    h->place.ifindex == (uint32_t)qi->ifindex && h->place.parent == qi->parent) {
			*id = ctx->insts[r].ids[i];
			return &ctx->regs[r];
		}
	}
	return NULL;
}

const struct qd_reg *qd_lookup_cfg(struct qd_lookup *l, const struct qdisc_info *qi, uint32_t *id,
				   void *cfg)
{
	const struct qd_reg *reg = qd_lookup_instance(l, qi, id);

	return reg && !qd_reg_cfg(reg, *id, cfg) ? reg : NULL;
}

const void *qd_lookup_inst(struct qd_lookup *l, const struct qd_reg *reg, uint32_t id,
			   const void *cfg)
{
	/* Sized by the pinned map, which open_pinned bounds: not for the stack. */
	if (reg->inst_len > l->inst_max) {
		void *p = realloc(l->inst, reg->inst_len);

		if (!p)
			return NULL;
		l->inst = p;
		l->inst_max = reg->inst_len;
	}
	return qd_reg_inst(reg, id, cfg, l->inst) ? NULL : l->inst;
}
