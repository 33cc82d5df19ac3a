// SPDX-License-Identifier: GPL-2.0
/*
 * show: every qdisc, like `tc qdisc show`, with the same JSON keys as
 * `tc -s -j qdisc show`. The options of qdiscctl's kinds come from their
 * registrations' maps, since a BPF qdisc cannot dump them.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/qdisc_print.h"
#include "lib/registry.h"
#include "lib/spec.h"
#include "netlink/qdisc.h"
#include "netlink/rtnl.h"

struct show_ctx {
	const struct qdisc_spec *filter;
	__u64 netns;
	/* Registrations opened on first use; ok[i] < 0 when absent. */
	struct qd_reg regs[16];
	int ok[16];
};

static const struct qd_reg *reg_for(struct show_ctx *ctx, const struct qd_kind *k)
{
	const struct qd_kind *const *kinds = qd_kinds();

	for (int i = 0; kinds[i] && i < (int)ARRAY_SIZE(ctx->regs); i++) {
		if (kinds[i] != k)
			continue;
		if (ctx->ok[i] == 0)
			ctx->ok[i] = qd_reg_open(k, &ctx->regs[i], false) ? -1 : 1;
		return ctx->ok[i] > 0 ? &ctx->regs[i] : NULL;
	}
	return NULL;
}

static void print_options(const struct qdisc_info *qi, void *data)
{
	const struct qd_kind *k = qd_kind_find(qi->kind);
	struct show_ctx *ctx = data;
	struct qd_place place = { ctx->netns, qi->ifindex, qi->parent };
	const struct qd_reg *reg;
	uint32_t id;

	if (!k || strcmp(k->id, qi->kind) || !(reg = reg_for(ctx, k)))
		return;
	char cfg[k->cfg_size];
	if (qd_reg_find(reg, &place, qi->handle, &id) || qd_reg_cfg(reg, id, cfg))
		return;
	qd_kind_print(k, cfg);
	if (qd_opts.details)
		print_uint(PRINT_ANY, "qdiscctl_slot", "slot %llu ", id);
}

static int show_one(const struct qdisc_info *qi, void *data)
{
	struct show_ctx *ctx = data;
	const struct qdisc_spec *f = ctx->filter;
	char dev[IF_NAMESIZE];

	if ((f->have_parent && qi->parent != f->parent) ||
	    (f->have_handle && qi->handle != f->handle))
		return 0;
	if (!f->dev && !if_indextoname(qi->ifindex, dev))
		snprintf(dev, sizeof(dev), "if%d", qi->ifindex);
	qdisc_print(qi, f->dev ? NULL : dev, qd_opts.stats, print_options, ctx);
	return 0;
}

static int run_show(int argc, char **argv)
{
	struct show_ctx ctx = {};
	struct qdisc_spec s;
	struct rtnl rt;
	int err;

	if (qdisc_spec_parse(argc - 1, argv + 1, &s))
		return QD_EXIT_USAGE;
	if (s.kind) {
		qd_err("show: unexpected \"%s\"", s.kind);
		return QD_EXIT_USAGE;
	}
	if (s.dev && qdisc_spec_resolve(&s))
		return QD_EXIT_FAIL;
	if (rtnl_open(&rt)) {
		qd_err("cannot open rtnetlink: %s", strerror(errno));
		return QD_EXIT_FAIL;
	}
	ctx.filter = &s;
	rtnl_netns_cookie(&rt, &ctx.netns);
	open_json_array(PRINT_JSON, NULL);
	err = qdisc_dump(&rt, s.ifindex, show_one, &ctx);
	close_json_array(PRINT_JSON, NULL);
	rtnl_close(&rt);
	for (size_t i = 0; i < ARRAY_SIZE(ctx.regs); i++)
		if (ctx.ok[i] > 0)
			qd_reg_close(&ctx.regs[i]);
	if (err) {
		qd_err_kernel(err, rt.errmsg);
		return QD_EXIT_KERNEL;
	}
	return QD_EXIT_OK;
}

static const struct qd_cmd show_cmd = {
	.name = "show",
	.alias = "list",
	.args = "[dev DEV] [root | parent ID] [handle H]",
	.summary = "list qdiscs, all kinds; -s adds statistics, -j prints JSON",
	.order = 40,
	.run = run_show,
};
QD_CMD_REGISTER(show_cmd);
