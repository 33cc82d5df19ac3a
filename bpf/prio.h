/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prio's options and per-instance state, as qdiscctl writes and reads them
 * and prio.bpf.c uses them. The insts value is read by `show -s` for the
 * per-band counters, so its layout is shared too.
 */
#ifndef QDISCCTL_BPF_PRIO_H
#define QDISCCTL_BPF_PRIO_H

#define PRIO_BANDS_MAX 16
#define PRIO_PRIOS     16 /* TC_PRIO_MAX + 1: skb->priority & TC_PRIO_MAX picks the entry */
/*
 * Ring slots per band as compiled (the capacity "band_packets",
 * qd_cap_band_packets, is the registration's): the largest limit. A power
 * of two.
 */
#define PRIO_RING 1024
/* The most a band's ring may have: 8 MiB of packet pointers an instance. */
#define PRIO_RING_MAX (1U << 16)
struct prio_cfg {
	__u32 bands;
	__u32 limit; /* packets a band holds; 0: the device's txqueuelen; at most its ring */
	__u8 priomap[PRIO_PRIOS];
};

struct prio_band {
	__u32 head; /* free-running ring positions */
	__u32 tail;
	__u64 backlog; /* bytes in the ring */
	__u64 bytes;   /* dequeued from the ring, as the qdisc's totals count them */
	__u64 packets;
	__u64 drops;
};

/* What the fast slot took of one priority (skb->priority & 15). */
struct prio_count {
	__u64 bytes;
	__u64 packets;
};

struct prio_inst {
#ifdef __BPF__
	/* The packet that found the qdisc empty; see prio.bpf.c. */
	struct sk_buff __kptr *fast;
#else
	__u64 fast; /* reads as 0 from userspace */
#endif
	/*
	 * The fast packet, always a single segment, counted under its
	 * priority in prio[] when it arrived, so that neither its enqueue
	 * reads the options nor its dequeue touches a band: fast_len is 0
	 * while the slot is empty, and userspace takes it out of the
	 * counters and adds prio[] to the bands of the current priomap.
	 */
	__u32 fast_prio;
	__u32 fast_len;
	__u32 active; /* bit b: band b's ring holds packets */
	__u32 id;     /* the slot's number, where a lookup can take it as its key */
	struct prio_band band[PRIO_BANDS_MAX];
	struct prio_count prio[PRIO_PRIOS];
};

#endif
