/* SPDX-License-Identifier: GPL-2.0 */
/* fifo's options, as qdiscctl writes them and fifo.bpf.c reads them. */
#ifndef QDISCCTL_BPF_FIFO_H
#define QDISCCTL_BPF_FIFO_H

/*
 * Ring slots per instance as compiled (the capacity "packets", qd_cap_packets,
 * is the registration's): the largest limit. A power of two.
 */
#define FIFO_RING 4096
/* The most ring slots an instance may have: 8 MiB of packet pointers. */
#define FIFO_RING_MAX (1U << 20)

struct fifo_cfg {
	__u32 limit; /* packets */
	__u32 pad;
};

#endif
