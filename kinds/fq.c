// SPDX-License-Identifier: GPL-2.0
/*
 * fq: sch_fq as a BPF qdisc. Options, statistics and the flow table are
 * laid out in bpf/fq.h; they print in the order and with the JSON keys
 * tc uses for sch_fq, so scripts can switch between the two.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "bpf/fq.h"
#include "fq.skel.h"
#include "kinds/kind.h"

#define MSEC 1000000ULL
#define SEC  1000000000ULL

static const char *const fq_pacing[] = { "nopacing", "pacing", NULL };
static const char *const fq_horizon[] = { "horizon_cap", "horizon_drop", NULL };

#define CFG(f) .off = offsetof(struct fq_cfg, f), .width = sizeof(((struct fq_cfg *)0)->f)

/* sch_fq's defaults: pfifo_fast's priomap, TC_PRIO_CONTROL (7) and 6 in band 0. */
static const uint64_t fq_priomap_def[FQ_PRIOS] = { 1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
/* Band 0 gets 9 parts of the link, band 1 three, band 2 one, when all are busy. */
static const uint64_t fq_weights_def[FQ_BANDS] = { 9 << 16, 3 << 16, 1 << 16 };

/* In the order tc prints sch_fq's options. */
static const struct qd_opt fq_opts[] = {
	{
		.name = "limit",
		.type = QD_OPT_COUNT,
		CFG(limit),
		.def = 10000,
		.min = 1,
		.max = UINT32_MAX,
		.unit = "p",
		.help = "packets the qdisc holds; beyond it packets are dropped",
	},
	{
		.name = "flow_limit",
		.type = QD_OPT_COUNT,
		CFG(flow_limit),
		.def = 100,
		.min = 1,
		.max = UINT32_MAX,
		.unit = "p",
		.help = "packets one flow may queue",
	},
	{
		.name = "buckets",
		.type = QD_OPT_COUNT,
		CFG(buckets),
		.def = 1024,
		.min = 1,
		.max = FQ_MAX_BUCKETS,
		.flags = QD_OPT_POW2,
		.help = "hash buckets flows are looked up in, a power of two",
	},
	{
		.name = "orphan_mask",
		.type = QD_OPT_COUNT,
		CFG(orphan_mask),
		.def = 1023,
		.min = 0,
		.max = UINT32_MAX,
		.metavar = "MASK",
		.help = "bits of the packet hash that tell flows without a socket apart",
	},
	{
		.name = "pacing",
		.type = QD_OPT_BOOL,
		CFG(pacing),
		.def = 1,
		.choices = fq_pacing,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "pace flows at min(maxrate, their socket's pacing rate)",
	},
	{
		.name = "bands",
		.type = QD_OPT_COUNT,
		CFG(bands),
		.def = FQ_BANDS,
		.min = FQ_BANDS,
		.max = FQ_BANDS,
		.flags = QD_OPT_DECIMAL, /* tc's fq: get_integer(..., 10) */
		.metavar = "3",
		.help = "priority bands: only 3, as sch_fq",
	},
	{
		.name = "priomap",
		.type = QD_OPT_LIST,
		.off = offsetof(struct fq_cfg, priomap),
		.width = 1,
		.count = FQ_PRIOS,
		.defs = fq_priomap_def,
		.min = 0,
		.max = FQ_BANDS - 1,
		.flags = QD_OPT_DECIMAL,
		.metavar = "P0 ... P15",
		.json_key = "priomap ",
		.help = "the band of each priority (skb->priority & 15), 0 to 2",
	},
	{
		.name = "weights",
		.type = QD_OPT_LIST,
		.off = offsetof(struct fq_cfg, weights),
		.width = 4,
		.count = FQ_BANDS,
		.defs = fq_weights_def,
		.min = FQ_MIN_WEIGHT,
		.max = INT32_MAX,
		.flags = QD_OPT_DECIMAL,
		.metavar = "W0 W1 W2",
		.json_key = "weights ",
		.help = "bytes each band sends a round of the bands' weighted round robin, each at "
			"least 16384",
	},
	{
		.name = "quantum",
		.type = QD_OPT_SIZE,
		CFG(quantum),
		.def = 0,
		.min = 256,
		.max = FQ_MAX_QUANTUM,
		.special = "auto",
		.special_val = 0,
		.flags = QD_OPT_RESOLVED,
		.help = "bytes a flow sends per round; 0 (auto): 2 x the device's MTU",
	},
	{
		.name = "initial_quantum",
		.type = QD_OPT_SIZE,
		CFG(initial_quantum),
		.def = 0,
		.min = 256,
		.max = FQ_MAX_INITIAL_QUANTUM,
		.special = "auto",
		.special_val = 0,
		.flags = QD_OPT_RESOLVED,
		.help = "credit of a new flow in bytes; 0 (auto): 10 x the device's MTU",
	},
	{
		.name = "maxrate",
		.type = QD_OPT_RATE,
		CFG(maxrate),
		.def = UINT64_MAX,
		.min = 0,
		.max = UINT64_MAX,
		.special = "unlimited",
		.special_val = UINT64_MAX,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "the most a flow is paced at",
	},
	{
		.name = "low_rate_threshold",
		.type = QD_OPT_RATE,
		CFG(low_rate_threshold),
		.def = 550000 / 8,
		.min = 0,
		.max = UINT32_MAX,
		.flags = QD_OPT_QUIET_ZERO,
		.help = "flows paced below it send one packet a round",
	},
	{
		.name = "refill_delay",
		.type = QD_OPT_TIME,
		CFG(refill_delay),
		.def = 40 * MSEC,
		.min = 0,
		.max = UINT32_MAX * 1000ULL,
		.json_div = 1000, /* tc reports microseconds */
		.help = "idle time after which a flow's credit is refilled",
	},
	{
		.name = "ce_threshold",
		.type = QD_OPT_TIME,
		CFG(ce_threshold),
		.def = FQ_CE_OFF,
		.min = 0,
		.max = FQ_CE_OFF,
		.json_div = 1000, /* tc reports microseconds */
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "ECN-capable packets of a flow whose packets leave this long after they "
			"were "
			"due are CE-marked (by a program before the qdisc; default: none)",
	},
	{
		.name = "timer_slack",
		.type = QD_OPT_TIME,
		CFG(timer_slack),
		.def = 10000,
		.min = 0,
		.max = UINT32_MAX,
		.bare_ns = 1, /* tc's get_time64 */
		.help = "slack of the watchdog timer that wakes throttled flows (a bare number is "
			"nanoseconds, as with tc)",
	},
	{
		.name = "horizon",
		.type = QD_OPT_TIME,
		CFG(horizon),
		.def = 10 * SEC,
		.min = 0,
		.max = UINT32_MAX * 1000ULL,
		.json_div = 1000, /* tc reports microseconds */
		.help = "how far in the future a packet's departure time may be",
	},
	{
		.name = "horizon_drop",
		.type = QD_OPT_WORD,
		CFG(horizon_drop),
		.def = 1,
		.choices = fq_horizon,
		.help = "packets beyond the horizon are dropped, or capped to it",
	},
	{
		.name = "offload_horizon",
		.type = QD_OPT_TIME,
		CFG(offload_horizon),
		.def = 0,
		.min = 0,
		.max = 0,
		.json_div = 1000, /* tc reports microseconds */
		.help = "how far ahead the device may take packets to pace itself: only 0, since "
			"fq paces every packet itself (sch_fq allows more only on devices that "
			"offload "
			"pacing)",
	},
	{}
};

#define STAT(f) .off = offsetof(struct fq_inst, stats.f), .width = sizeof(((struct fq_stats *)0)->f)

/* tc's layout of sch_fq's xstats and its JSON keys ("throttled" twice, as tc). */
static const struct qd_stat fq_stats[] = {
	{ .name = "flows", .text = "  flows %s", STAT(flows), .flags = QD_STAT_GAUGE },
	{ .name = "inactive",
	  .text = " (inactive %s",
	  STAT(inactive_flows),
	  .flags = QD_STAT_GAUGE },
	{
		.name = "throttled",
		.text = " throttled %s)",
		STAT(throttled_flows),
		.flags = QD_STAT_GAUGE,
		.metric = "throttled_flows", /* the throttle events below are "throttled" too */
	},
	{ .name = "band0_pkts",
	  .text = " band0_pkts %s",
	  STAT(band_pkts[0]),
	  .flags = QD_STAT_GAUGE },
	{ .name = "band1_pkts",
	  .text = " band1_pkts %s",
	  STAT(band_pkts[1]),
	  .flags = QD_STAT_GAUGE },
	{ .name = "band2_pkts",
	  .text = " band2_pkts %s",
	  STAT(band_pkts[2]),
	  .flags = QD_STAT_GAUGE },
	{
		.name = "next_packet_delay",
		.text = " next_packet_delay %s",
		.type = QD_STAT_DEADLINE,
		.off = offsetof(struct fq_inst, time_next_delayed_flow),
		.width = 8,
		.flags = QD_STAT_NONZERO,
	},
	{ .name = "gc", .text = "  gc %s", STAT(gc_flows), .flags = QD_STAT_NEWLINE },
	{ .name = "highprio", .text = " highprio %s", STAT(highprio_packets) },
	{ .name = "throttled", .text = " throttled %s", STAT(throttled) },
	{
		.name = "latency",
		.text = " latency %s",
		.type = QD_STAT_TIME,
		STAT(unthrottle_latency_ns),
		.flags = QD_STAT_NONZERO,
	},
	{ .name = "ce_mark", .text = " ce_mark %s", STAT(ce_mark), .flags = QD_STAT_NONZERO },
	{
		.name = "flows_plimit",
		.text = " flows_plimit %s",
		STAT(flows_plimit),
		.flags = QD_STAT_NONZERO,
	},
	/* Ours: flows that found their bucket used; many say buckets is too small. */
	{ .name = "collisions", .text = " collisions %s", STAT(collisions) },
	{
		.name = "pkts_too_long",
		.text = " pkts_too_long %s",
		STAT(pkts_too_long),
		.flags = QD_STAT_NEWLINE | QD_STAT_NONZERO,
	},
	{
		.name = "alloc_errors",
		.text = " alloc_errors %s",
		STAT(allocation_errors),
		.flags = QD_STAT_NONZERO,
	},
	{
		.name = "horizon_drops",
		.text = " horizon_drops %s",
		STAT(horizon_drops),
		.flags = QD_STAT_NONZERO,
	},
	{
		.name = "horizon_caps",
		.text = "  horizon_caps %s",
		STAT(horizon_caps),
		.flags = QD_STAT_NONZERO,
	},
	{
		.name = "band0_drops",
		.text = " band0_drops %s",
		STAT(band_drops[0]),
		.flags = QD_STAT_NONZERO,
	},
	{
		.name = "band1_drops",
		.text = " band1_drops %s",
		STAT(band_drops[1]),
		.flags = QD_STAT_NONZERO,
	},
	{
		.name = "band2_drops",
		.text = " band2_drops %s",
		STAT(band_drops[2]),
		.flags = QD_STAT_NONZERO,
	},
	{}
};

static const char *const fq_states[] = {
	[FQ_FREE] = "free", [FQ_IDLE] = "idle",		  [FQ_NEW] = "new",
	[FQ_OLD] = "old",   [FQ_THROTTLED] = "throttled", NULL,
};

/*
 * The socket cookie is out of reach of a BPF qdisc, so a flow is named by
 * its key: the socket's address, or the masked hash of an orphan packet;
 * the reserved flow has a key of its own, which no socket can have.
 */
static void fq_flow_name(const void *entry, uint32_t index, char *buf, size_t len)
{
	const struct fq_flow *f = entry;

	(void)index;
	if (f->key == FQ_KEY_OVERFLOW)
		snprintf(buf, len, "overflow");
	else if (f->key & 1)
		snprintf(buf, len, "hash 0x%" PRIx64, (uint64_t)f->key >> 1);
	else
		snprintf(buf, len, "sk 0x%016" PRIx64, (uint64_t)f->key);
}

#define FLOW(f) .off = offsetof(struct fq_flow, f), .width = sizeof(((struct fq_flow *)0)->f)

static const struct qd_col fq_cols[] = {
	{ .name = "flow", .type = QD_COL_CUSTOM, FLOW(key), .format = fq_flow_name },
	{ .name = "state",
	  .type = QD_COL_NAME,
	  FLOW(state),
	  .flags = QD_COL_USED,
	  .names = fq_states },
	{ .name = "qlen", FLOW(qlen), .flags = QD_COL_TOTAL },
	{ .name = "backlog", FLOW(backlog), .flags = QD_COL_TOTAL },
	{ .name = "credit", .type = QD_COL_INT, FLOW(credit) },
	{ .name = "next", .type = QD_COL_DEADLINE, FLOW(time_next_packet) },
	{ .name = "packets", FLOW(pkts), .flags = QD_COL_TOTAL | QD_COL_COUNTER },
	{ .name = "bytes", FLOW(bytes), .flags = QD_COL_TOTAL | QD_COL_COUNTER },
	{ .name = "drops", FLOW(drops), .flags = QD_COL_TOTAL | QD_COL_COUNTER },
	{}
};

static const struct qd_flows fq_flows = {
	.map = "flows",
	.owner_off = offsetof(struct fq_flow, owner),
	.used_map = "pool",
	.used_off = offsetof(struct fq_pool, fresh_flows),
	.value_size = sizeof(struct fq_flow),
	.cols = fq_cols,
};

/*
 * The registration's capacities, in the order of cap[1..] (fq.bpf.c reads
 * them as qd_cap_NAME). Flows and packets are pools every instance takes
 * from; each instance owns FQ_BLOCK buckets, and takes more from the bucket
 * pool when its `buckets` asks for more.
 */
static const struct qd_cap fq_caps[] = {
	{
		.name = "flows",
		.help = "flow slots shared by every instance",
		.def = FQ_DEF_FLOWS,
		.min = 1024,
		.max = FQ_MAX_FLOWS,
	},
	{
		.name = "instance_flows",
		.help = "the most flows one instance holds",
		.def = FQ_DEF_INSTANCE_FLOWS,
		.min = 16,
		.max = FQ_MAX_FLOWS,
	},
	{
		.name = "packets",
		.help = "packet slots shared by every instance",
		.def = FQ_DEF_PACKETS,
		.min = 1024,
		.max = FQ_MAX_PACKETS,
	},
	{
		.name = "bucket_pool",
		.help = "buckets shared by instances whose buckets exceeds 1024",
		.def = FQ_DEF_BUCKET_POOL,
		.min = 0,
		.max = 1 << 24,
		.flags = QD_CAP_POW2,
	},
	{}
};

enum { FQ_CAP_FLOWS = 1, FQ_CAP_INSTANCE_FLOWS, FQ_CAP_PACKETS, FQ_CAP_BUCKET_POOL };

/* What fq.bpf.c declares for the defaults at 64 instances; the two must agree. */
static uint32_t fq_map_entries(const char *map, const uint32_t *cap)
{
	uint32_t inst = cap[QD_CAP_INSTANCES];

	if (!strcmp(map, "flows"))
		return 1 + inst + cap[FQ_CAP_FLOWS];
	if (!strcmp(map, "flow_pool"))
		return cap[FQ_CAP_FLOWS];
	if (!strcmp(map, "pkts"))
		return 1 + cap[FQ_CAP_PACKETS];
	if (!strcmp(map, "pkt_pool"))
		return cap[FQ_CAP_PACKETS];
	if (!strcmp(map, "buckets"))
		return (inst * FQ_BLOCK + cap[FQ_CAP_BUCKET_POOL] / FQ_BLOCK * FQ_BLOCK) / FQ_HEADS;
	if (!strcmp(map, "bucket_pool"))
		return cap[FQ_CAP_BUCKET_POOL] / FQ_BLOCK ?: 1;
	/* The flows ce_threshold finds late at once: as many as one instance holds. */
	if (!strcmp(map, "ce_flows"))
		return cap[FQ_CAP_INSTANCE_FLOWS];
	return 0;
}

/* The marking program runs only on devices where some instance wants marks. */
static bool fq_egress_wanted(const struct qd_place *p, const void *cfg)
{
	const struct fq_cfg *c = cfg;

	(void)p;
	return c->ce_threshold < FQ_CE_OFF;
}

static const void *fq_elf(size_t *size)
{
	return fq_bpf__elf_bytes(size);
}

_Static_assert(sizeof(struct fq_cfg) <= QD_CFG_MAX, "fq's options fit QD_CFG_MAX");

static const struct qd_kind fq_kind = {
	.name = "fq",
	.id = "qdiscctl_fq",
	.summary = "fair queueing with pacing, like sch_fq, without its hash collisions",
	.opts = fq_opts,
	.cfg_size = sizeof(struct fq_cfg),
	.elf_bytes = fq_elf,
	.stats = fq_stats,
	.flows = &fq_flows,
	.egress_prog = "fq_ce_mark",
	.egress_wanted = fq_egress_wanted,
	.caps = fq_caps,
	.map_entries = fq_map_entries,
};
QD_KIND_REGISTER(fq_kind);
