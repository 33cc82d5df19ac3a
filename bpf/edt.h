/* SPDX-License-Identifier: GPL-2.0 */
/* edt's options and statistics, as edt.bpf.c keeps them and qdiscctl reads them. */
#ifndef QDISCCTL_BPF_EDT_H
#define QDISCCTL_BPF_EDT_H

#define EDT_MAX_INSTANCES 8
#define EDT_RING	  16384 /* packet slots per instance: the largest limit */

struct edt_cfg {
	__u64 rate;	    /* bytes/s */
	__u64 burst;	    /* bytes that may leave back to back after idle time */
	__u64 horizon;	    /* ns: packets scheduled further ahead are dropped... */
	__u64 ce_threshold; /* ns: ...and beyond this, congestion is signalled */
	__u64 timer_slack;  /* ns */
	__u32 min_inflight; /* ...unless their TCP flow has fewer packets in flight */
	__u32 limit;	    /* packets: the safety cap */
	__u32 backpressure; /* 1: never drop a local socket's packets below the cap */
	__u32 pad;
};

struct edt_stats {
	__u64 horizon_drops;
	__u64 cap_drops;      /* beyond `limit` */
	__u64 cn_signals;     /* NET_XMIT_CN returned to a TCP sender */
	__u64 ce_marks;	      /* by edt_ce_mark, before the qdisc */
	__u64 held_back;      /* past the horizon but kept: backpressure or min_inflight */
	__u64 rate_est;	      /* bytes/s that left in the last window */
};

struct edt_inst {
	struct qd_inst_hdr hdr;
	struct edt_stats stats;
	__u64 t_next; /* CLOCK_MONOTONIC ns at which the link is free again */
	/* Runtime state, private to the program. */
	__u32 head, tail;
	__u64 win_start;
	__u64 win_bytes;
};

#endif
