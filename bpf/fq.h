/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fq's options, statistics and flow table, as fq.bpf.c keeps them and
 * qdiscctl reads and writes them.
 *
 * Flows and packets live in ARRAY maps shared by every instance of a
 * registration, handed out from pools (pool.h); each instance keeps
 * only its lists, a small cache of free slots and its bucket heads. No
 * object is allocated per packet, an instance's own work takes no lock
 * (it runs under its qdisc's root lock), and memory stays bounded
 * whatever the traffic.
 */
#ifndef QDISCCTL_BPF_FQ_H
#define QDISCCTL_BPF_FQ_H

/*
 * Default capacities of a registration (kinds/fq.c lists them with their
 * ranges; qdiscctl may register the kind with others).
 */
#define FQ_DEF_FLOWS	      131072 /* flow slots shared by all instances */
#define FQ_DEF_INSTANCE_FLOWS 16384  /* the most flows one instance holds */
#define FQ_DEF_PACKETS	      262144 /* packet slots shared by all instances */
#define FQ_DEF_BUCKET_POOL    262144 /* buckets beyond each instance's first block */

/*
 * The most flows and packets a registration may have. A bpf_for over more
 * than the kernel's BPF_MAX_LOOPS (2^23) runs not once, and the walks of
 * a chain, a flow's packets or the heap are such loops.
 */
#define FQ_MAX_FLOWS   (1U << 22)
#define FQ_MAX_PACKETS (1U << 23)

/*
 * Buckets come in blocks of FQ_BLOCK heads: every instance owns one block
 * (slot s owns block s), and takes further ones from the bucket pool when
 * its `buckets` exceeds FQ_BLOCK.
 */
#define FQ_BLOCK_SHIFT 10
#define FQ_BLOCK       (1U << FQ_BLOCK_SHIFT)
#define FQ_MAX_BUCKETS 262144 /* sch_fq's most (fq_trees_log 18) */

/* The largest quanta: a flow's credit is an s32, so far below 2^31. */
#define FQ_MAX_QUANTUM	       (1U << 20)
#define FQ_MAX_INITIAL_QUANTUM (1U << 24)
#define FQ_MAX_BLOCKS	       (FQ_MAX_BUCKETS / FQ_BLOCK)
#define FQ_HEADS	       8 /* bucket heads an entry of the buckets map */
/*
 * Busy socket flows the fast slot can find without the flow table: 64, so
 * that eight TCP flows (a host's bulk senders on one queue) mostly have an
 * entry each; 256 bytes an instance.
 */
#define FQ_RECENT 64

/*
 * Instance slot s has one reserved flow in the shared table, 1 + s, for
 * packets whose flow found no free slot; index 0 means "none" in every
 * chain, and the pool's flows follow the reserved ones. Its key names it
 * in `show flows`.
 */
#define FQ_KEY_OVERFLOW 4

/*
 * sch_fq's bands (Linux 6.8 and later): skb->priority & 15 picks a band
 * through the priomap, and the bands share the link by weighted round
 * robin, each band's flows by deficit round robin. Only three, as in
 * sch_fq; a weight is the bytes a band sends a round, at least
 * FQ_MIN_WEIGHT.
 */
#define FQ_BANDS      3
#define FQ_PRIOS      16 /* TC_PRIO_MAX + 1 */
#define FQ_MIN_WEIGHT 16384

enum fq_flow_state {
	FQ_FREE = 0,
	FQ_IDLE,      /* empty, waiting to be reused or collected */
	FQ_NEW,	      /* on the new-flows list */
	FQ_OLD,	      /* on the old-flows list */
	FQ_THROTTLED, /* in the heap until its next packet is due */
};

struct fq_cfg {
	__u32 limit;		  /* packets, whole qdisc */
	__u32 flow_limit;	  /* packets, per flow */
	__u32 quantum;		  /* bytes; 0: 2 x the device's MTU, resolved in .init */
	__u32 initial_quantum;	  /* bytes; 0: 10 x the device's MTU */
	__u64 maxrate;		  /* bytes/s per flow; ~0: unlimited */
	__u64 low_rate_threshold; /* bytes/s */
	__u64 horizon;		  /* ns */
	__u64 timer_slack;	  /* ns */
	__u64 refill_delay;	  /* ns */
	__u64 ce_threshold;	  /* ns; FQ_CE_OFF and beyond: no marking */
	__u32 buckets;		  /* hash buckets, a power of two */
	__u32 orphan_mask;
	__u32 horizon_drop; /* 1: drop beyond the horizon, 0: cap */
	__u32 pacing;	    /* 1: pace flows at min(maxrate, socket pacing rate) */
	/* ns; always 0: pacing is never left to the device */
	__u32 offload_horizon;
	__u32 bands; /* always FQ_BANDS, as sch_fq */
	__u8 priomap[FQ_PRIOS];
	__u32 weights[FQ_BANDS]; /* bytes a round, each >= FQ_MIN_WEIGHT */
	__u32 pad;
};

/* sch_fq's "no ce_threshold": ~0U microseconds, what it keeps and dumps. */
#define FQ_CE_OFF (0xffffffffULL * 1000)

/* sch_fq's tc_fq_qd_stats, the counters a BPF qdisc can keep, and ours. */
struct fq_stats {
	__u64 gc_flows;
	__u64 highprio_packets;
	__u64 throttled;
	__u64 flows_plimit;
	__u64 pkts_too_long;
	__u64 allocation_errors;
	__u64 horizon_drops;
	__u64 horizon_caps;
	__u64 collisions; /* flows created in a bucket another flow used */
	__u64 unthrottle_latency_ns;
	/* packets that left later than ce_threshold, as sch_fq counts them */
	__u64 ce_mark;
	__u64 band_drops[FQ_BANDS]; /* packets dropped for their band's limit */
	__u32 band_pkts[FQ_BANDS];  /* packets queued in each band, the fast slot's not */
	__u32 flows;		    /* the instance's flows, the reserved one not counted */
	__u32 inactive_flows;	    /* of them, idle ones */
	__u32 throttled_flows;
};

/*
 * The registration's pools, entry 0 of the "pool" map: where the slots
 * nobody has used yet begin. Instances take them by atomic adds, so a
 * fresh pool needs no filling; qdiscctl reads fresh_flows to know how
 * much of the flow table `show flows` has to read.
 */
struct fq_pool {
	__u64 fresh_flows;  /* index in the flows map; those before are or were in use */
	__u64 fresh_pkts;   /* packet slots handed out, from slot 1 */
	__u64 fresh_blocks; /* bucket blocks of the pool handed out */
};

/* A band's flow lists and its credit in the round between the bands. */
struct fq_band {
	__u32 new_head, new_tail;
	__u32 old_head, old_tail;
	__s32 credit;
	__u32 pad;
};

struct fq_inst {
	struct fq_stats stats;
	__u64 time_next_delayed_flow; /* CLOCK_MONOTONIC ns of the heap's top; 0: none */
	/* Runtime state, private to the program. */
	__u64 hash_key[12]; /* of the flow hash of packets without a socket */
	__u64 sch_addr;	    /* the Qdisc's address, for socket keys */
	struct fq_band band[FQ_BANDS];
	__u32 band_nr; /* the band being served */
	/*
	 * The dequeue loop's bands passed without work, whether it has tried
	 * to skip rounds since a flow last left the lists, and how often it
	 * has tried, kept here rather than in locals: a value read back
	 * from a map is not tracked, so the loop's states at each turn stay
	 * alike and prune. With locals, 6.17's and 6.18's verifiers (which do
	 * not widen loop scalars) gave up on fq_dequeue.
	 */
	__u32 deq_retry;
	__u16 deq_skipped;
	__u16 deq_skips;
	__u32 idle_head, idle_tail; /* idle flows, oldest first */
	__u32 heap_root;	    /* leftist heap of throttled flows */
	__u32 buckets;		    /* how many buckets the chains are hashed for */
	__u32 buckets_want;	    /* the `buckets` they were made for */
	__u32 nblocks;		    /* bucket blocks held, the own one included */
	__u32 psched_mtu;	    /* the device's MTU plus link header, for quanta */
	/*
	 * Socket flows classify found or made last, by the socket's hash:
	 * the fast slot's busy flows (fq.bpf.c), several at once.
	 */
	__u32 recent[FQ_RECENT];
	/*
	 * The fast slot (fq.bpf.c): a packet that found the qdisc empty, its
	 * length, and the flow that is to wait after it, from its dequeue (0:
	 * none; a flow's credit is charged when its packet arrives).
	 */
	__u32 fast_len;
	__u32 fast_flow;
	__u64 fast_wait; /* how long fast_flow waits after it */
#ifdef __BPF__
	struct sk_buff __kptr *fast;
#else
	__u64 fast; /* reads as 0 from userspace */
#endif
	struct qd_pool_cache flow_cache; /* free flow slots this instance holds */
	struct qd_pool_cache pkt_cache;	 /* free packet slots this instance holds */
	__u32 block[FQ_MAX_BLOCKS];	 /* bucket block of each FQ_BLOCK buckets */
};

/* A flow slot of the shared "flows" map. */
struct fq_flow {
	__u64 key;		/* socket pointer, or (hash & orphan_mask) << 1 | 1 */
	__u64 time_next_packet; /* ns; 0: none */
	__u64 age;		/* ns when it went idle */
	__u64 pkts;		/* sent */
	__u64 bytes;
	__u32 owner; /* instance slot + 1; 0: free */
	__u32 drops;
	__s32 credit;
	__u32 qlen;
	__u32 backlog;
	__u32 head, tail;	    /* packet slots */
	__u32 hnext;		    /* next flow in its bucket, or in a free chain */
	__u32 lnext;		    /* next flow on the new, old or idle list */
	__u32 lprev;		    /* previous flow on the idle list */
	__u32 hleft, hright, hrank; /* in the heap of throttled flows */
	__u32 bucket;
	__u32 socket_hash;
	__u32 state; /* enum fq_flow_state */
	__u32 band;  /* of its last packet: the band whose lists it goes on */
};

#endif
