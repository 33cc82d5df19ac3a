// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

struct nlmsghdr *qdisc_msg_build(void *buf, const struct qdisc_req *req)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = req->type;
	nlh->nlmsg_flags = NLM_F_REQUEST | req->flags;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = req->ifindex;
	tcm->tcm_parent = req->parent;
	tcm->tcm_handle = req->handle;
	if (req->kind)
		mnl_attr_put_strz(nlh, TCA_KIND, req->kind);
	return nlh;
}

static void parse_stats2(const struct nlattr *nest, struct qdisc_info *qi)
{
	struct nlattr *attr;
	bool have_pkt64 = false;

	mnl_attr_for_each_nested(attr, nest) {
		const void *p = mnl_attr_get_payload(attr);
		size_t len = mnl_attr_get_payload_len(attr);

		switch (mnl_attr_get_type(attr)) {
		case TCA_STATS_BASIC: {
			struct gnet_stats_basic b = {};

			memcpy(&b, p, len < sizeof(b) ? len : sizeof(b));
			qi->stats.bytes = b.bytes;
			if (!have_pkt64)
				qi->stats.packets = b.packets;
			qi->has_stats = true;
			break;
		}
		case TCA_STATS_PKT64:
			if (len >= sizeof(uint64_t)) {
				qi->stats.packets = mnl_attr_get_u64(attr);
				have_pkt64 = true;
			}
			break;
		case TCA_STATS_QUEUE: {
			struct gnet_stats_queue q = {};

			memcpy(&q, p, len < sizeof(q) ? len : sizeof(q));
			qi->stats.qlen = q.qlen;
			qi->stats.backlog = q.backlog;
			qi->stats.drops = q.drops;
			qi->stats.requeues = q.requeues;
			qi->stats.overlimits = q.overlimits;
			qi->has_stats = true;
			break;
		}
		}
	}
}

static void parse_stats1(const struct nlattr *attr, struct qdisc_info *qi)
{
	struct tc_stats st = {};
	size_t len = mnl_attr_get_payload_len(attr);

	memcpy(&st, mnl_attr_get_payload(attr), len < sizeof(st) ? len : sizeof(st));
	qi->stats.bytes = st.bytes;
	qi->stats.packets = st.packets;
	qi->stats.drops = st.drops;
	qi->stats.overlimits = st.overlimits;
	qi->stats.qlen = st.qlen;
	qi->stats.backlog = st.backlog;
	qi->has_stats = true;
}

int qdisc_msg_parse(const struct nlmsghdr *nlh, struct qdisc_info *qi)
{
	const struct tcmsg *tcm;
	const struct nlattr *stats1 = NULL, *stats2 = NULL;
	struct nlattr *attr;

	memset(qi, 0, sizeof(*qi));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return -EBADMSG;
	tcm = mnl_nlmsg_get_payload(nlh);
	qi->ifindex = tcm->tcm_ifindex;
	qi->handle = tcm->tcm_handle;
	qi->parent = tcm->tcm_parent;
	qi->refcnt = tcm->tcm_info;

	mnl_attr_for_each(attr, nlh, sizeof(*tcm)) {
		switch (mnl_attr_get_type(attr)) {
		case TCA_KIND:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(qi->kind, sizeof(qi->kind), "%s", mnl_attr_get_str(attr));
			break;
		case TCA_OPTIONS:
			qi->options = mnl_attr_get_payload(attr);
			qi->options_len = mnl_attr_get_payload_len(attr);
			break;
		case TCA_HW_OFFLOAD:
			if (mnl_attr_get_payload_len(attr) >= 1)
				qi->offloaded = mnl_attr_get_u8(attr);
			break;
		case TCA_STATS:
			stats1 = attr;
			break;
		case TCA_STATS2:
			stats2 = attr;
			break;
		}
	}
	if (!qi->kind[0])
		return -EBADMSG;
	/* tc prefers the newer nested stats and falls back to struct tc_stats. */
	if (stats2)
		parse_stats2(stats2, qi);
	else if (stats1)
		parse_stats1(stats1, qi);
	return 0;
}

struct dump_ctx {
	int ifindex;
	int (*cb)(const struct qdisc_info *qi, void *data);
	void *data;
};

static int dump_one(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *ctx = data;
	struct qdisc_info qi;

	if (nlh->nlmsg_type != RTM_NEWQDISC || qdisc_msg_parse(nlh, &qi))
		return MNL_CB_OK;
	/* Old kernels ignore the ifindex of a dump request. */
	if (ctx->ifindex && qi.ifindex != ctx->ifindex)
		return MNL_CB_OK;
	return ctx->cb(&qi, ctx->data) ? MNL_CB_ERROR : MNL_CB_OK;
}

int qdisc_dump(struct rtnl *r, int ifindex, int (*cb)(const struct qdisc_info *qi, void *data),
	       void *data)
{
	char buf[RTNL_MSG_SIZE];
	struct qdisc_req req = { .type = RTM_GETQDISC, .ifindex = ifindex };
	struct dump_ctx ctx = { ifindex, cb, data };

	return rtnl_dump(r, qdisc_msg_build(buf, &req), dump_one, &ctx);
}

struct children_ctx {
	uint32_t major;
	int (*cb)(const struct qdisc_info *qi, void *data);
	void *data;
};

static int child_one(const struct qdisc_info *qi, void *data)
{
	struct children_ctx *ctx = data;

	if (qi->parent == TC_H_ROOT || TC_H_MAJ(qi->parent) != TC_H_MAJ(ctx->major))
		return 0;
	return ctx->cb(qi, ctx->data);
}

int qdisc_dump_children(struct rtnl *r, int ifindex, uint32_t major,
			int (*cb)(const struct qdisc_info *qi, void *data), void *data)
{
	struct children_ctx ctx = { major, cb, data };

	return qdisc_dump(r, ifindex, child_one, &ctx);
}

struct lookup_ctx {
	uint32_t parent;
	struct qdisc_info *out;
	bool found;
};

static int lookup_one(const struct qdisc_info *qi, void *data)
{
	struct lookup_ctx *ctx = data;

	if (qi->parent != ctx->parent || ctx->found)
		return 0;
	*ctx->out = *qi;
	ctx->out->options = NULL;
	ctx->out->options_len = 0;
	ctx->found = true;
	return 0;
}

int qdisc_lookup(struct rtnl *r, int ifindex, uint32_t parent, struct qdisc_info *out)
{
	struct lookup_ctx ctx = { parent, out, false };
	int err = qdisc_dump(r, ifindex, lookup_one, &ctx);

	if (err)
		return err;
	return ctx.found ? 0 : -ENOENT;
}
