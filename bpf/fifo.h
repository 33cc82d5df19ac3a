/* SPDX-License-Identifier: GPL-2.0 */
/* fifo's options, as qdiscctl writes them and fifo.bpf.c reads them. */
#ifndef QDISCCTL_BPF_FIFO_H
#define QDISCCTL_BPF_FIFO_H

/* Ring slots per instance: the largest limit fifo accepts. A power of two. */
#define FIFO_RING 4096

struct fifo_cfg {
	__u32 limit; /* packets */
	__u32 pad;
};

#endif
