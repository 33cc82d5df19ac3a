// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <linux/types.h>

#include "bpf/abi.h"
#include "bpf/fq.h"
#include "fq.skel.h"
#include "kinds/kind.h"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

static const char *const fq_horizon_modes[] = { "horizon_cap", "horizon_drop", NULL };
static const char *const fq_pacing_modes[] = { "nopacing", "pacing", NULL };

#define FQ_OPT(field) .off = offsetof(struct fq_cfg, field), .width = sizeof(((struct fq_cfg *)0)->field)

static const struct qd_opt fq_opts[] = {
	{ .name = "limit", .type = QD_OPT_COUNT, FQ_OPT(limit), .def = 10000, .min = 1, .max = FQ_PKTS,
	  .unit = "p", .help = "packets queued in all, beyond which packets are dropped" },
	{ .name = "flow_limit", .type = QD_OPT_COUNT, FQ_OPT(flow_limit), .def = 100, .min = 1,
	  .max = FQ_PKTS, .unit = "p", .help = "packets queued per flow" },
	{ .name = "quantum", .type = QD_OPT_SIZE, FQ_OPT(quantum), .def = 0, .min = 0, .max = 1 << 20,
	  .help = "credit a flow gets a round (0: twice the device's MTU)" },
	{ .name = "initial_quantum", .type = QD_OPT_SIZE, FQ_OPT(initial_quantum), .def = 0, .min = 0,
	  .max = 1 << 20, .help = "credit of a new flow (0: ten times the device's MTU)" },
	{ .name = "maxrate", .type = QD_OPT_RATE, FQ_OPT(maxrate), .def = ~0ULL, .min = 0, .max = ~0ULL,
	  .help = "pacing rate of each flow at most" },
	{ .name = "buckets", .type = QD_OPT_COUNT, FQ_OPT(buckets), .def = 1024, .min = 1,
	  .max = FQ_MAX_BUCKETS, .help = "hash buckets (a power of two)" },
	{ .name = "horizon", .type = QD_OPT_TIME, FQ_OPT(horizon), .def = 10 * NSEC_PER_SEC,
	  .min = 1, .max = 3600 * NSEC_PER_SEC, .help = "packets stamped further ahead are dropped or capped" },
	{ .name = "horizon_drop", .type = QD_OPT_CHOICE, FQ_OPT(horizon_drop), .def = 1,
	  .choices = fq_horizon_modes, .help = "drop or cap packets beyond the horizon" },
	{ .name = "timer_slack", .type = QD_OPT_TIME, FQ_OPT(timer_slack), .def = 10 * NSEC_PER_USEC,
	  .min = 0, .max = NSEC_PER_SEC, .help = "slack of the watchdog timer" },
	{ .name = "refill_delay", .type = QD_OPT_TIME, FQ_OPT(refill_delay), .def = 40 * NSEC_PER_MSEC,
	  .min = 0, .max = 3600 * NSEC_PER_SEC, .help = "idle time after which a flow's credit is refilled" },
	{ .name = "low_rate_threshold", .type = QD_OPT_RATE, FQ_OPT(low_rate_threshold), .def = 68750,
	  .min = 0, .max = ~0ULL, .help = "flows paced below it send one packet at a time" },
	{ .name = "orphan_mask", .type = QD_OPT_COUNT, FQ_OPT(orphan_mask), .def = 1023, .min = 0,
	  .max = 0xffffffff, .help = "mask on the hash of packets without a socket" },
	{ .name = "pacing", .type = QD_OPT_CHOICE, FQ_OPT(pacing), .def = 1, .choices = fq_pacing_modes,
	  .help = "pace flows at min(maxrate, socket pacing rate)" },
	{}
};

static const void *fq_elf(size_t *size)
{
	return fq_bpf__elf_bytes(size);
}

static const struct qd_kind fq_kind = {
	.name = "fq",
	.id = "qdiscctl_fq",
	.summary = "fair queueing with pacing, like sch_fq, without its hash collisions",
	.opts = fq_opts,
	.cfg_size = sizeof(struct fq_cfg),
	.elf_bytes = fq_elf,
};
QD_KIND_REGISTER(fq_kind);
