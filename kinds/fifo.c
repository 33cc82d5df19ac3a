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
		.max = FIFO_RING,
		.unit = "p",
		.help = "queue length in packets; packets beyond it are dropped",
	},
	{}
};

/* Each instance owns FIFO_RING slots of "ring". */
static uint32_t fifo_map_entries(const char *map, const uint32_t *cap)
{
	return strcmp(map, "ring") ? 0 : cap[QD_CAP_INSTANCES] * FIFO_RING;
}

static const void *fifo_elf(size_t *size)
{
	return fifo_bpf__elf_bytes(size);
}

static const struct qd_kind fifo_kind = {
	.name = "fifo",
	.id = "qdiscctl_fifo",
	.summary = "first in, first out with tail drop, like pfifo",
	.opts = fifo_opts,
	.cfg_size = sizeof(struct fifo_cfg),
	.elf_bytes = fifo_elf,
	.map_entries = fifo_map_entries,
};
QD_KIND_REGISTER(fifo_kind);
