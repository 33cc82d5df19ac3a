/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fq's options, statistics and flow table, as fq.bpf.c keeps them and
 * qdiscctl reads and writes them.
 *
 * Everything lives in preallocated ARRAY maps addressed by indices: flows
 * in a per-instance table, packets in a per-instance pool of skb kptr
 * slots chained by index, throttled flows in a binary heap. No object is
 * allocated per packet or per flow, no lock is taken (an instance runs
 * under its qdisc's root lock), and memory stays bounded whatever the
 * traffic.
 */
#ifndef QDISCCTL_BPF_FQ_H
#define QDISCCTL_BPF_FQ_H

#define FQ_FLOWS	 4096  /* flow slots per instance, the reserved ones included */
#define FQ_PKTS		 16384 /* packet slots per instance: the largest limit */
#define FQ_MAX_BUCKETS	 4096

/* Reserved flow slots; index 0 means "none" in every chain. */
#define FQ_FLOW_PRIO	 1 /* TC_PRIO_CONTROL packets, served first */
#define FQ_FLOW_OVERFLOW 2 /* packets whose flow found no free slot */
#define FQ_FLOW_FIRST	 3

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
	__u32 buckets;		  /* hash buckets, a power of two */
	__u32 orphan_mask;
	__u32 horizon_drop; /* 1: drop beyond the horizon, 0: cap */
	__u32 pacing;	    /* 1: pace flows at min(maxrate, socket pacing rate) */
};

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
	__u32 flows;
	__u32 inactive_flows;
	__u32 throttled_flows;
	__u32 pad;
};

struct fq_inst {
	struct qd_inst_hdr hdr;
	struct fq_stats stats;
	__u64 time_next_delayed_flow; /* CLOCK_MONOTONIC ns of the heap's top; 0: none */
	/* Runtime state, private to the program. */
	__u64 hash_key[12]; /* of the flow hash of packets without a socket */
	__u64 sch_addr;	    /* the Qdisc's address, for socket keys */
	__u32 new_head, new_tail;
	__u32 old_head, old_tail;
	__u32 free_flow, next_flow; /* free chain, then never-used slots */
	__u32 free_pkt, next_pkt;
	__u32 heap_len;
	__u32 idle_head, idle_tail; /* ring of flows in the order they went idle */
	__u32 buckets;		    /* how many buckets the chains are hashed for */
	__u32 psched_mtu;	    /* the device's MTU plus link header, for quanta */
	__u32 reclaim_pos;	    /* where the last scan for an idle flow stopped */
	__u32 fast;		    /* 1: the fast slot holds a packet */
};

/* A flow slot: key FQ_FLOWS * instance + index of the "flows" map. */
struct fq_flow {
	__u64 key;		/* socket pointer, or (hash & orphan_mask) << 1 | 1 */
	__u64 time_next_packet; /* ns; 0: none */
	__u64 age;		/* ns when it went idle */
	__u64 pkts;		/* sent */
	__u64 bytes;
	__u32 drops;
	__s32 credit;
	__u32 qlen;
	__u32 backlog;
	__u32 head, tail; /* packet slots + 1 */
	__u32 hnext;	  /* next flow in its bucket */
	__u32 lnext;	  /* next flow on the new or old list */
	__u32 bucket;
	__u32 socket_hash;
	__u32 state; /* enum fq_flow_state */
	__u32 pad;
};

#endif
