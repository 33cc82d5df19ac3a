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
#include "cmd/show_flows.h"
#include "core/instance.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "lib/json_print.h"
#include "netlink/qdisc_print.h"

/*
 * The listing and, while a qdisc is printed that is an instance of one of
 * qdiscctl's kinds, its registration, slot and options, read once for both
 * callbacks.
 */
struct show_ctx {
	struct qd_lookup lk;
	const struct qd_reg *reg;
	uint32_t id;
	void *cfg; /* QD_CFG_MAX bytes */
};

static void print_options(const struct qdisc_info *qi, void *data)
{
	struct show_ctx *ctx = data;
	const struct qd_reg *reg = ctx->reg;

	(void)qi;
	if (!reg)
		return;
	qd_kind_print(reg->kind, ctx->cfg);
	if (qd_opts.details) {
		char fp[QD_FP_LEN];

		qd_kind_fingerprint(reg->kind, fp);
		uint64_t mem;
		unsigned int maps;

		print_uint(PRINT_ANY, "qdiscctl_slot", "slot %llu ", ctx->id);
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
	const struct qd_reg *reg = ctx->reg;
	const struct qd_kind *k;
	const void *inst;

	(void)qi;
	if (!reg)
		return;
	k = reg->kind;
	if ((!k->stats && !k->table && !k->rows) ||
	    !(inst = qd_lookup_inst(&ctx->lk, reg, ctx->id, ctx->cfg)))
		return;
	qd_kind_print_stats(k, inst, reg->inst_len, qd_inst_now());
	qd_kind_print_rows(k, ctx->cfg, inst, reg->inst_len);
	qd_kind_print_table(k, inst, reg->inst_len, ctx->cfg);
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
	if (!qd_lookup_wanted(&ctx->lk, qi))
		return 0;
	ctx->reg = k ? qd_lookup_cfg(&ctx->lk, qi, &ctx->id, ctx->cfg) : NULL;
	qdisc_print(&q, qd_lookup_dev(&ctx->lk, qi, dev), qd_opts.stats, print_options,
		    print_xstats, ctx);
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
		qd_err("show: unexpected \"%s\"", qd_tok(s->kind));
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
	qd_lookup_init(&ctx.lk, &rt, &s);
	ctx.cfg = malloc(QD_CFG_MAX);
	if (!ctx.cfg) {
		qd_err("show: %s", strerror(ENOMEM));
		ret = QD_EXIT_FAIL;
	} else if (flows) {
		ret = show_flows(&rt, &ctx.lk, sort);
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
	qd_lookup_free(&ctx.lk);
	free(ctx.cfg);
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
