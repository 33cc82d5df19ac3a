// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/fifo.h"
#include "fifo.skel.h"
#include "kinds/kind.h"

static const struct qd_opt fifo_opts[] = {
	{
		.name = "limit",
		.type = QD_OPT_COUNT,
		.off = offsetof(struct fifo_cfg, limit),
		.width = 4,
		.def = 1000,
		.min = 1,
		.max = FIFO_RING_MAX,
		.unit = "p",
		.help = "queue length in packets; packets beyond it are dropped",
		.cap = "packets",
	},
	{}
};

static const struct qd_cap fifo_caps[] = {
	{
		.name = "packets",
		.help = "ring slots of each instance: the largest limit (a limit beyond it makes a "
			"registration with more)",
		.def = FIFO_RING,
		.min = 1,
		.max = FIFO_RING_MAX,
		.flags = QD_CAP_POW2,
	},
	{}
};

/*
 * Each instance owns cap[1] ("packets") slots of "ring"; a product past
 * what a map holds asks for the most, which the kernel refuses.
 */
static uint32_t fifo_map_entries(const char *map, const uint32_t *cap)
{
	uint64_t n = (uint64_t)cap[QD_CAP_INSTANCES] * cap[1];

	return strcmp(map, "ring") ? 0 : n > UINT32_MAX ? UINT32_MAX : n;
}

static const void *fifo_elf(size_t *size)
{
	return fifo_bpf__elf_bytes(size);
}

_Static_assert(sizeof(struct fifo_cfg) <= QD_CFG_MAX, "fifo's options fit QD_CFG_MAX");

static const struct qd_kind fifo_kind = {
	.name = "fifo",
	.id = "qdiscctl_fifo",
	.summary = "first in, first out with tail drop, like pfifo",
	.opts = fifo_opts,
	.cfg_size = sizeof(struct fifo_cfg),
	.elf_bytes = fifo_elf,
	.caps = fifo_caps,
	.map_entries = fifo_map_entries,
};
QD_KIND_REGISTER(fifo_kind);
