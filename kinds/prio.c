// SPDX-License-Identifier: GPL-2.0
/*
 * prio: pfifo_fast by default, sch_prio's bands and priomap as options.
 * Options print as tc prints pfifo_fast's and prio's ("bands 3 priomap 1 2
 * ..."); `show -s` adds a line of counters per band. Packets that took
 * the fast slot are counted under their priority and attributed to bands
 * by the current priomap, so after a `change` of the priomap their past
 * counts follow the new map (the qdisc's totals are exact either way).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "bpf/prio.h"
#include "kinds/kind.h"
#include "lib/common.h"
#include "prio.skel.h"

#define OPT(f) .off = offsetof(struct prio_cfg, f), .width = sizeof(((struct prio_cfg *)0)->f)

/* pfifo_fast's prio2band, which is also tc's default priomap for prio. */
static const uint64_t prio_priomap_def[PRIO_PRIOS] = { 1, 2, 2, 2, 1, 2, 0, 0,
						       1, 1, 1, 1, 1, 1, 1, 1 };

static const struct qd_opt prio_opts[] = {
	{
		.name = "bands",
		.type = QD_OPT_COUNT,
		OPT(bands),
		.def = 3,
		.min = 2,
		.max = PRIO_BANDS_MAX,
		.flags = QD_OPT_DECIMAL, /* tc's prio: get_integer(..., 10) */
		.help = "bands; band 0 is always served first, then 1, and so on",
	},
	{
		.name = "priomap",
		.type = QD_OPT_LIST,
		.off = offsetof(struct prio_cfg, priomap),
		.width = 1,
		.count = PRIO_PRIOS,
		.defs = prio_priomap_def,
		.min = 0,
		.max = PRIO_BANDS_MAX - 1,
		.flags = QD_OPT_DECIMAL,
		.metavar = "P0 ... P15",
		.help = "the band of each priority (skb->priority & 15), each below bands",
	},
	{
		.name = "limit",
		.type = QD_OPT_COUNT,
		OPT(limit),
		.def = 0,
		.min = 1,
		.max = PRIO_RING_MAX,
		.unit = "p",
		.special = "txqueuelen",
		.special_val = 0,
		.flags = QD_OPT_QUIET_DEFAULT,
		.help = "packets each band holds; txqueuelen: the device's, at most the band's "
			"ring (band_packets), as pfifo_fast",
		.cap = "band_packets",
	},
	{}
};

static const struct qd_cap prio_caps[] = {
	{
		.name = "band_packets",
		.help = "ring slots of each band: the largest limit (a limit beyond it makes a "
			"registration with more)",
		.def = PRIO_RING,
		.min = 1,
		.max = PRIO_RING_MAX,
		.flags = QD_CAP_POW2,
	},
	{}
};

static int prio_check(const struct qd_kind *k, const void *cfg)
{
	const struct prio_cfg *c = cfg;

	for (unsigned int i = 0; i < PRIO_PRIOS; i++) {
		if (c->priomap[i] < c->bands)
			continue;
		qd_err("%s: priomap value \"%u\" (priority %u) is not below bands %u", k->name,
		       c->priomap[i], i, c->bands);
		return -EINVAL;
	}
	return 0;
}

/* One band's counters as show -s prints them. */
struct prio_band_rec {
	__u64 band;
	__u64 bytes;
	__u64 packets;
	__u64 drops;
	__u64 backlog;
	__u64 qlen;
};

#define REC(f) .off = offsetof(struct prio_band_rec, f), .width = 8

/* tc's layout of a class's statistics, on one line per band. */
static const struct qd_stat prio_band_stats[] = {
	{ .name = "band", .text = "  band %s:", REC(band), .flags = QD_STAT_LABEL },
	{ .name = "bytes", .text = " Sent %s bytes", REC(bytes) },
	{ .name = "packets", .text = " %s pkt", REC(packets) },
	{ .name = "drops", .text = " (dropped %s)", REC(drops) },
	{ .name = "backlog", .text = " backlog %s", .type = QD_STAT_SIZE, REC(backlog) },
	{ .name = "qlen", .text = " %sp", REC(qlen), .flags = QD_STAT_GAUGE },
	{}
};

/*
 * Bands a change removed stay listed while they hold or have counted
 * packets, so the bands always add up to the qdisc's totals. Packets that
 * took the fast slot were counted under their priority (see prio.bpf.c)
 * and are added to the band the current priomap gives it: after a change
 * of the priomap their past counts follow the new map.
 */
static unsigned int prio_fill(const void *inst, size_t size, const void *cfg, void *recs)
{
	const struct prio_cfg *c = cfg;
	struct prio_band_rec *r = recs;
	struct prio_inst in;
	unsigned int n = 0, fb;

	if (size < sizeof(in))
		return 0;
	memcpy(&in, inst, sizeof(in));
	for (unsigned int i = 0; i < PRIO_BANDS_MAX; i++) {
		const struct prio_band *b = &in.band[i];

		r[i] = (struct prio_band_rec){
			.band = i,
			.bytes = b->bytes,
			.packets = b->packets,
			.drops = b->drops,
			.backlog = b->backlog,
			.qlen = (__u32)(b->tail - b->head),
		};
	}
	/* check keeps the priomap below bands; the mask keeps r[] safe from any other value. */
	for (unsigned int p = 0; p < PRIO_PRIOS; p++) {
		fb = c->priomap[p] & (PRIO_BANDS_MAX - 1);
		r[fb].bytes += in.prio[p].bytes;
		r[fb].packets += in.prio[p].packets;
	}
	/* The fast packet was counted when it arrived; it is still queued. */
	if (in.fast_len) {
		fb = c->priomap[in.fast_prio & (PRIO_PRIOS - 1)] & (PRIO_BANDS_MAX - 1);
		r[fb].bytes -= in.fast_len;
		r[fb].packets--;
		r[fb].backlog += in.fast_len;
		r[fb].qlen++;
	}
	for (unsigned int i = 0; i < PRIO_BANDS_MAX; i++)
		if (i < c->bands || r[i].bytes || r[i].drops || r[i].qlen)
			n = i + 1;
	return n;
}

static const struct qd_stat_table prio_table = {
	.name = "bands",
	.help = "one record per band",
	.stats = prio_band_stats,
	.size = sizeof(struct prio_band_rec),
	.max = PRIO_BANDS_MAX,
	.fill = prio_fill,
};

/*
 * Each band of each instance owns cap[1] ("band_packets") slots of
 * "ring"; a product past what a map holds asks for the most, which the
 * kernel refuses.
 */
static uint32_t prio_map_entries(const char *map, const uint32_t *cap)
{
	uint64_t n = (uint64_t)cap[QD_CAP_INSTANCES] * PRIO_BANDS_MAX * cap[1];

	return strcmp(map, "ring") ? 0 : n > UINT32_MAX ? UINT32_MAX : n;
}

static const void *prio_elf(size_t *size)
{
	return prio_bpf__elf_bytes(size);
}

_Static_assert(sizeof(struct prio_cfg) <= QD_CFG_MAX, "prio's options fit QD_CFG_MAX");

static const struct qd_kind prio_kind = {
	.name = "prio",
	.id = "qdiscctl_prio",
	.summary = "strict priority bands chosen by skb->priority, like pfifo_fast and prio",
	.opts = prio_opts,
	.cfg_size = sizeof(struct prio_cfg),
	.elf_bytes = prio_elf,
	.check = prio_check,
	.table = &prio_table,
	.caps = prio_caps,
	.map_entries = prio_map_entries,
};
QD_KIND_REGISTER(prio_kind);
