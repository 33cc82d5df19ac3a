// SPDX-License-Identifier: GPL-2.0
/*
 * show: every qdisc, like `tc qdisc show`, with the same JSON keys as
 * `tc -s -j qdisc show`. The options and counters of qdiscctl's kinds come
 * from their registrations' maps, since a BPF qdisc cannot dump them.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/show.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "lib/qdisc_print.h"

/*
 * The index in ctx of the registration of kernel kind id (one version of
 * k), or -1: one kept open a kind, its instances read when it is opened.
 */
static int reg_for(struct show_ctx *ctx, const struct qd_kind *k, const char *id)
{
	const struct qd_kind *const *kinds = qd_kinds();

	for (int i = 0; kinds[i] && i < SHOW_MAX_KINDS; i++) {
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

const struct qd_reg *show_instance(struct show_ctx *ctx, const struct qdisc_info *qi, uint32_t *id)
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

bool show_wanted(const struct show_ctx *ctx, const struct qdisc_info *qi)
{
	const struct qdisc_spec *f = ctx->filter;

	return (!f->have_parent || qi->parent == f->parent) &&
	       (!f->have_handle || qi->handle == f->handle);
}

const char *show_dev(const struct show_ctx *ctx, const struct qdisc_info *qi, char *buf)
{
	const char *name;

	if (ctx->filter->dev)
		return NULL;
	name = link_name(&ctx->names, qi->ifindex);
	if (name)
		return name;
	/* A device that came after the dump of names. */
	if (!if_indextoname(qi->ifindex, buf))
		snprintf(buf, IF_NAMESIZE, "if%d", qi->ifindex);
	return buf;
}

uint64_t show_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_options(const struct qdisc_info *qi, void *data)
{
	struct show_ctx *ctx = data;
	const struct qd_reg *reg;
	uint32_t id;

	if (!(reg = show_instance(ctx, ctx->printing ? ctx->printing : qi, &id)))
		return;
	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	if (qd_reg_cfg(reg, id, cfg))
		return;
	qd_kind_print(reg->kind, cfg);
	if (qd_opts.details) {
		char fp[QD_FP_LEN];

		qd_kind_fingerprint(reg->kind, fp);
		uint64_t mem;
		unsigned int maps;

		print_uint(PRINT_ANY, "qdiscctl_slot", "slot %llu ", id);
		print_uint(PRINT_ANY, "qdiscctl_slots", "of %llu ", reg->slots);
		/* Which program runs it: after an upgrade, old instances keep theirs. */
		print_string(PRINT_ANY, "qdiscctl_version", "version %s ", reg->id);
		print_string(PRINT_ANY, "qdiscctl_elf", "elf %s ",
			     reg->fp[0] ? reg->fp : "unknown");
		print_bool(PRINT_ANY, "qdiscctl_current", NULL, !strcmp(reg->fp, fp));
		if (strcmp(reg->fp, fp))
			print_string(PRINT_FP, NULL, "%s ", "(not this qdiscctl's)");
		/* What the whole registration holds in maps, as bpftool's bytes_memlock. */
		if (!qd_reg_memory(reg, &mem, &maps)) {
			print_uint(PRINT_JSON, "qdiscctl_memory", NULL, mem);
			print_text("memory %.1fMiB ", mem / 1048576.0);
		}
	}
}

static void print_xstats(const struct qdisc_info *qi, void *data)
{
	struct show_ctx *ctx = data;
	const struct qd_reg *reg;
	uint32_t id;

	_Alignas(uint64_t) char cfg[QD_CFG_MAX];
	char *inst;

	if (!(reg = show_instance(ctx, ctx->printing ? ctx->printing : qi, &id)) ||
	    (!reg->kind->stats && !reg->kind->table && !reg->kind->rows))
		return;
	/* Sized by the pinned map, which open_pinned bounds: not for the stack. */
	inst = malloc(reg->inst_size);
	if (!inst || qd_reg_inst(reg, id, inst)) {
		free(inst);
		return;
	}
	qd_kind_print_stats(reg->kind, inst, reg->inst_size, show_now());
	if (reg->kind->rows && !qd_reg_cfg(reg, id, cfg))
		qd_kind_print_rows(reg->kind, cfg, inst, reg->inst_size);
	if (reg->kind->table && !qd_reg_cfg(reg, id, cfg))
		qd_kind_print_table(reg->kind, inst, reg->inst_size, cfg);
	free(inst);
}

static int show_one(const struct qdisc_info *qi, void *data)
{
	struct show_ctx *ctx = data;
	const struct qd_kind *k = qd_reg_kind(qi->kind);
	struct qdisc_info q = *qi;
	char dev[IF_NAMESIZE];

	/* Every version of a kind is shown as the kind; -d tells the version. */
	if (k)
		snprintf(q.kind, sizeof(q.kind), "%s", k->id);
	ctx->printing = qi;
	if (show_wanted(ctx, qi))
		qdisc_print(&q, show_dev(ctx, qi, dev), qd_opts.stats, print_options, print_xstats,
			    ctx);
	ctx->printing = NULL;
	return 0;
}

static bool takes_value(const char *w)
{
	return !strcmp(w, "dev") || !strcmp(w, "parent") || !strcmp(w, "handle");
}

/* tc's qdisc filter words plus "flows [sort COLUMN]", in any order. */
static int parse_show(int argc, char **argv, struct qdisc_spec *s, bool *flows, const char **sort)
{
	/*
	 * The filter's words are moved down in argv itself (a word never
	 * moves up), so that s, which points into them, lives as long as argv.
	 */
	char **rest = argv + 1;
	int n = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "flows")) {
			*flows = true;
		} else if (!strcmp(argv[i], "sort")) {
			if (!qd_need_arg(argc, argv, i))
				return -EINVAL;
			*sort = argv[++i];
		} else {
			rest[n++] = argv[i];
			if (takes_value(argv[i]) && i + 1 < argc)
				rest[n++] = argv[++i];
		}
	}
	if (qdisc_spec_parse(n, rest, s))
		return -EINVAL;
	if (s->kind) {
		qd_err("show: unexpected \"%s\"", s->kind);
		return -EINVAL;
	}
	if (*sort && !*flows) {
		qd_err("show: \"sort\" applies to \"flows\" only");
		return -EINVAL;
	}
	return 0;
}

static int run_show(int argc, char **argv)
{
	struct show_ctx ctx = {};
	const char *sort = NULL;
	struct qdisc_spec s;
	bool flows = false;
	struct rtnl rt;
	int err, ret = QD_EXIT_OK;

	if (parse_show(argc, argv, &s, &flows, &sort))
		return QD_EXIT_USAGE;
	if (s.dev && qdisc_spec_resolve(&s))
		return QD_EXIT_FAIL;
	if (flows && geteuid() != 0) {
		qd_err("show flows needs root (it reads BPF maps)");
		return QD_EXIT_FAIL;
	}
	ret = qd_cmd_rtnl(&rt);
	if (ret)
		return ret;
	ctx.filter = &s;
	rtnl_netns_cookie(&rt, &ctx.netns);
	/* As tc: one dump of every device's name instead of a lookup a qdisc. */
	if (!s.dev)
		link_names_load(&rt, &ctx.names);
	if (flows) {
		ret = show_flows(&rt, &ctx, sort);
	} else {
		open_json_array(PRINT_JSON, NULL);
		err = qdisc_dump(&rt, s.ifindex, show_one, &ctx);
		close_json_array(PRINT_JSON, NULL);
		if (err) {
			qd_err_kernel(err, rt.errmsg);
			ret = QD_EXIT_KERNEL;
		}
	}
	rtnl_close(&rt);
	link_names_free(&ctx.names);
	for (size_t i = 0; i < SHOW_MAX_KINDS; i++)
		if (ctx.ok[i] > 0) {
			qd_reg_close(&ctx.regs[i]);
			qd_insts_free(&ctx.insts[i]);
		}
	return ret;
}

static const struct qd_cmd show_cmd = {
	.name = "show",
	.alias = "list",
	.args = "[dev DEV] [root | parent ID] [handle H] [flows [sort COLUMN]]",
	.summary = "list qdiscs, all kinds; -s adds statistics, -j prints JSON",
	.help = "With \"flows\", list the flows of qdiscctl's qdiscs that keep a flow table\n"
		"(qdiscctl help KIND tells which), one row per flow: largest first when sorted by "
		"a "
		"number, soonest first\n"
		"by a time; -s adds a total row. Needs root: the table is in a BPF map.",
	.order = 40,
	.run = run_show,
};
QD_CMD_REGISTER(show_cmd);
