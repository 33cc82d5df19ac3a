// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "bpf/edt.h"
#include "edt.skel.h"
#include "kinds/kind.h"
#include "lib/cgroup.h"
#include "lib/common.h"
#include "lib/units.h"

#define NSEC_PER_USEC 1000ULL

static const char *const edt_backpressure[] = { "nobackpressure", "backpressure", NULL };

#define OPT(f) .off = offsetof(struct edt_opts, cfg.f), .width = sizeof(((struct edt_cfg *)0)->f)

_Static_assert(sizeof(struct edt_cgroup) <= QD_CGROUP_ENTRY_MAX &&
		       offsetof(struct edt_cgroup, rate) == offsetof(struct qd_cgroup_val, val),
	       "edt's cgroup entries are what QD_OPT_CGROUPS parses");

#define FIELD(f) .off = offsetof(struct edt_cgroup, f), .width = sizeof(((struct edt_cgroup *)0)->f)

/* The optional words of a cgroup entry, after "PATH rate RATE". */
static const struct qd_opt edt_cgroup_fields[] = {
	{
		.name = "ceil",
		.type = QD_OPT_RATE,
		FIELD(ceil),
		.def = 0,
		.min = 1,
		.max = UINT64_MAX >> 8,
		.special = "none",
		.special_val = 0,
		.help = "borrow what the link has spare up to this rate (none: only the rate)",
	},
	{
		.name = "prio",
		.type = QD_OPT_COUNT,
		FIELD(prio),
		.def = 0,
		.max = EDT_PRIOS - 1,
		.help = "borrowing order, as htb's: a lower prio borrows first",
	},
	{
		.name = "weight",
		.type = QD_OPT_COUNT,
		FIELD(weight),
		.def = 1,
		.min = 1,
		.max = EDT_MAX_WEIGHT,
		.help = "share of what is lent among the cgroups of a prio",
	},
	{
		.name = "burst",
		.type = QD_OPT_SIZE,
		FIELD(burst),
		.def = 0,
		.min = 1,
		.max = EDT_MAX_BURST,
		.special = "none",
		.special_val = 0,
		.help = "bytes the cgroup may send back to back after idle time "
			"(none: the instance's burst)",
	},
	{}
};

static const struct qd_opt edt_opts[] = {
	{
		.name = "rate",
		.type = QD_OPT_RATE,
		OPT(rate),
		.min = 1,
		.max = UINT64_MAX >> 8,
		.flags = QD_OPT_REQUIRED,
		.help = "the rate all packets together leave at",
	},
	{
		.name = "burst",
		.type = QD_OPT_SIZE,
		OPT(burst),
		.def = 0,
		.min = 1,
		.max = EDT_MAX_BURST,
		.special = "auto",
		.special_val = 0,
		.help = "bytes that may leave back to back after idle time; "
			"auto: 1 ms at the rate, at least 16 full-size packets",
	},
	{
		.name = "horizon",
		.type = QD_OPT_TIME,
		OPT(horizon),
		.def = 500 * NSEC_PER_USEC,
		.min = 1,
		.max = EDT_MAX_HORIZON,
		.help = "packets scheduled further ahead are dropped (HBM's 500us)",
	},
	{
		.name = "ce_threshold",
		.type = QD_OPT_TIME,
		OPT(ce_threshold),
		.def = 50 * NSEC_PER_USEC,
		.max = EDT_MAX_HORIZON,
		.help = "TCP senders scheduled further ahead are told to slow down (HBM's 50us)",
	},
	{
		.name = "min_inflight",
		.type = QD_OPT_COUNT,
		OPT(min_inflight),
		.def = 2,
		.max = EDT_MAX_MIN_INFLIGHT,
		.help = "TCP flows with fewer packets in flight are never dropped",
	},
	{
		.name = "limit",
		.type = QD_OPT_COUNT,
		OPT(limit),
		.def = 10000,
		.min = 1,
		.max = EDT_MAX_PACKETS,
		.unit = "p",
		.help = "packets queued at most: the safety cap",
	},
	{
		.name = "backpressure",
		.type = QD_OPT_BOOL,
		OPT(backpressure),
		.def = 1,
		.choices = edt_backpressure,
		.help = "keep local sockets' packets below the cap, so that senders block instead",
	},
	{
		.name = "default_rate",
		.type = QD_OPT_RATE,
		OPT(default_rate),
		.def = 0,
		.min = 1,
		.max = UINT64_MAX >> 8,
		.special = "unlimited",
		.special_val = 0,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "the guarantee of every packet in no cgroup entry "
			"(unlimited: the link's time the cgroups' rates leave)",
	},
	{
		.name = "default_ceil",
		.type = QD_OPT_RATE,
		OPT(default_ceil),
		.def = 0,
		.min = 1,
		.max = UINT64_MAX >> 8,
		.special = "none",
		.special_val = 0,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "with a default_rate: borrow up to this rate (none: only the default_rate)",
	},
	{
		.name = "default_prio",
		.type = QD_OPT_COUNT,
		OPT(default_prio),
		.def = 0,
		.max = EDT_PRIOS - 1,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "the default class's borrowing order, as a cgroup's prio",
	},
	{
		.name = "default_weight",
		.type = QD_OPT_COUNT,
		OPT(default_weight),
		.def = 1,
		.min = 1,
		.max = EDT_MAX_WEIGHT,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "the default class's share of what is lent, as a cgroup's weight",
	},
	{
		.name = "cgroup",
		.type = QD_OPT_CGROUPS,
		.off = offsetof(struct edt_opts, cgroups),
		.width = sizeof(struct edt_cgroup),
		.count = EDT_CGROUPS,
		.sub = "rate",
		.sub_type = QD_OPT_RATE,
		.unset = "nocgroup",
		.min = 1,
		.max = UINT64_MAX >> 8,
		.fields = edt_cgroup_fields,
		.metavar = "PATH rate RATE [ceil RATE] [prio NUMBER] [weight NUMBER] [burst BYTES]",
		.help = "packets of local sockets in cgroup PATH or below it are guaranteed RATE, "
			"and leave at most at RATE, or at ceil borrowing (1024 cgroups at most)",
	},
	{
		.name = "timer_slack",
		.type = QD_OPT_TIME,
		OPT(timer_slack),
		/*
		 * Late wakeups cost no rate: a class's clock may lag `burst`
		 * (auto: 1 ms) behind now, so what waited leaves together.
		 * With fq's 10us, 16 cgroups sharing 20 Mbit/s in small
		 * packets took 0.46 to 0.77 timer interrupts a packet; with
		 * 50us, the kernel's default slack for a task's timers, 0.26
		 * (README, "The watchdog's slack").
		 */
		.def = 50 * NSEC_PER_USEC,
		.max = EDT_MAX_TIMER_SLACK,
		.bare_ns = 1, /* as fq's, which is tc's */
		.help = "slack of the watchdog timer (a bare number is nanoseconds, as fq's)",
	},
	{}
};

#define STAT(f) \
	.off = offsetof(struct edt_inst, stats.f), .width = sizeof(((struct edt_stats *)0)->f)

static const struct qd_stat edt_stats[] = {
	{ .name = "rate_est",
	  .text = "  rate %s",
	  STAT(rate_est),
	  .type = QD_STAT_RATE,
	  .of = "rate" },
	{
		.name = "next_departure",
		.text = " next_departure %s",
		.type = QD_STAT_DEADLINE,
		.off = offsetof(struct edt_inst, t_next),
		.width = 8,
		.flags = QD_STAT_NONZERO,
	},
	{ .name = "horizon_drops",
	  .text = "  horizon_drops %s",
	  STAT(horizon_drops),
	  .flags = QD_STAT_NEWLINE },
	{ .name = "cap_drops", .text = " cap_drops %s", STAT(cap_drops) },
	{ .name = "alloc_drops", .text = " alloc_drops %s", STAT(alloc_drops) },
	{ .name = "held_back", .text = " held_back %s", STAT(held_back) },
	{ .name = "cn_signals", .text = " cn_signals %s", STAT(cn_signals) },
	{ .name = "ce_marks", .text = " ce_marks %s", STAT(ce_marks) },
	{}
};

#define ROW(f) .off = offsetof(struct edt_class, f), .width = sizeof(((struct edt_class *)0)->f)

static const struct qd_stat edt_row_stats[] = {
	{ .name = "bytes", .text = " sent %s bytes", ROW(bytes) },
	{ .name = "packets", .text = " %s pkt", ROW(packets) },
	{ .name = "drops", .text = " (dropped %s)", ROW(drops) },
	{ .name = "borrowed", .text = " borrowed %s bytes", ROW(borrowed) },
	{ .name = "rate_est", .text = " rate %s", ROW(rate_est), .type = QD_STAT_RATE },
	{}
};

/* The cgroups' classes are in the registration's class pool, after the instance. */
static const struct qd_stat_rows edt_rows = {
	.name = "cgroups",
	.opt = "cgroup",
	.off = sizeof(struct edt_inst),
	.stride = sizeof(struct edt_class),
	.key_off = offsetof(struct edt_class, id),
	.stats = edt_row_stats,
	.index_map = "class_of",
	.table = "cls",
	.owner_off = offsetof(struct edt_class, owner),
};

static const struct qd_entries edt_entries = {
	.opt = "cgroup",
	.set_off = offsetof(struct edt_opts, cfg.cgset),
	.count_off = offsetof(struct edt_opts, cfg.ncgroups),
	.map = "cgroups",
	.list_map = "cgroup_list",
	.cap = "cgroups",
};

/*
 * The registration's capacities, in the order of cap[1..] (edt.bpf.c
 * reads them as qd_cap_NAME).
 */
static const struct qd_cap edt_caps[] = {
	{
		.name = "packets",
		.help = "packet slots shared by every instance",
		.def = EDT_DEF_PACKETS,
		.min = 1024,
		.max = EDT_MAX_PACKETS,
	},
	{
		.name = "cgroups",
		.help = "cgroup entries, and classes of cgroups that send, of every instance",
		.def = EDT_DEF_CGROUPS,
		.min = 64,
		.max = EDT_MAX_CGROUPS,
	},
	{}
};

enum { EDT_CAP_PACKETS = 1, EDT_CAP_CGROUPS };

/* What edt.bpf.c declares for the default; the two must agree. */
static uint32_t edt_map_entries(const char *map, const uint32_t *cap)
{
	if (!strcmp(map, "pkts"))
		return 1 + cap[EDT_CAP_PACKETS];
	if (!strcmp(map, "pkt_pool"))
		return cap[EDT_CAP_PACKETS];
	if (!strcmp(map, "fast"))
		return cap[QD_CAP_INSTANCES];
	if (!strcmp(map, "cls"))
		return 1 + cap[EDT_CAP_CGROUPS];
	if (!strcmp(map, "cgroups") || !strcmp(map, "cgroup_list") || !strcmp(map, "class_of") ||
	    !strcmp(map, "cls_pool") || !strcmp(map, "cgc"))
		return cap[EDT_CAP_CGROUPS];
	return 0;
}

/* A ceil below its rate would lend nothing and cap nothing: say so. */
static int edt_check(const struct qd_kind *k, const void *p)
{
	const struct edt_opts *o = p;
	const struct edt_cfg *cfg = &o->cfg;
	char path[4096], a[UNITS_BUF], b[UNITS_BUF];

	if (cfg->default_ceil && cfg->default_rate && cfg->default_ceil < cfg->default_rate) {
		qd_err("%s: default_ceil %s is below default_rate %s", k->name,
		       sprint_rate(cfg->default_ceil, a, sizeof(a)),
		       sprint_rate(cfg->default_rate, b, sizeof(b)));
		return -EINVAL;
	}
	for (int i = 0; i < EDT_CGROUPS; i++) {
		const struct edt_cgroup *e = &o->cgroups[i];

		if (!e->id || !e->ceil || e->ceil >= e->rate)
			continue;
		if (!qd_cgroup_path(e->id, path, sizeof(path)))
			snprintf(path, sizeof(path), "(id %llu)", (unsigned long long)e->id);
		qd_err("%s: cgroup %s ceil %s is below its rate %s", k->name, path,
		       sprint_rate(e->ceil, a, sizeof(a)), sprint_rate(e->rate, b, sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

static const void *edt_elf(size_t *size)
{
	return edt_bpf__elf_bytes(size);
}

_Static_assert(sizeof(struct edt_opts) <= QD_CFG_MAX, "edt's options fit QD_CFG_MAX");

static const struct qd_kind edt_kind = {
	.name = "edt",
	.id = "qdiscctl_edt",
	.summary = "rate limiting by earliest departure time, with backpressure instead of drops",
	.opts = edt_opts,
	.cfg_size = sizeof(struct edt_opts),
	.cfg_map_size = sizeof(struct edt_cfg),
	.entries = &edt_entries,
	.stats = edt_stats,
	.rows = &edt_rows,
	.elf_bytes = edt_elf,
	.egress_prog = "edt_ce_mark",
	.check = edt_check,
	.caps = edt_caps,
	.map_entries = edt_map_entries,
};
QD_KIND_REGISTER(edt_kind);
