/* SPDX-License-Identifier: GPL-2.0 */
/* edt's options and statistics, as edt.bpf.c keeps them and qdiscctl reads them. */
#ifndef QDISCCTL_BPF_EDT_H
#define QDISCCTL_BPF_EDT_H

/*
 * Cgroup entries an instance takes at most: the most qdiscctl's option
 * buffer holds. The program has no such bound: entries and their classes
 * live in maps of the registration (the capacity "cgroups").
 */
#define EDT_CGROUPS 1024
/*
 * Entries and cgroup classes of a registration, all instances together
 * (the capacity "cgroups"), by default: a node's pods under one qdisc,
 * with room for a change to write them anew beside the old ones.
 */
#define EDT_DEF_CGROUPS 4096
/* The most: a class's place in a heap (edt_hnode) is then at most 21 bits. */
#define EDT_MAX_CGROUPS (1U << 20)
/*
 * Packets one cgroup's class may queue, so that the blocked senders of a
 * slow cgroup cannot take all of `limit` from everyone else.
 */
#define EDT_CGROUP_LIMIT 4096
#define EDT_CLASSES	 1 /* in the instance: class 0, every packet of no entry */
/*
 * Packet slots shared by every instance of a registration (the capacity
 * "packets"): by default six instances at the default limit of 10,000 at
 * once, or 512 packets for each of 128 queues: 1.75 MiB.
 */
#define EDT_DEF_PACKETS 65536
/*
 * The most packet slots, and so the largest limit: walking a queue is a
 * bpf_for, which runs not once beyond the kernel's BPF_MAX_LOOPS (2^23).
 */
#define EDT_MAX_PACKETS (1U << 23)
#define EDT_PKT_BATCH	32 /* packet slots an instance takes from the pool at once */
/* A socket's cgroup is matched to an entry at most this many levels below it. */
#define EDT_CGROUP_DEPTH 8
/* burst auto: at least this many bytes (16 full-size Ethernet frames). */
#define EDT_AUTO_BURST (16 * 1514)
/* The options' maxima: the program clamps what it reads from cfgs to them. */
#define EDT_MAX_BURST	     (1ULL << 30)	  /* bytes */
#define EDT_MAX_HORIZON	     (60 * 1000000000ULL) /* ns, also ce_threshold's */
#define EDT_MAX_TIMER_SLACK  1000000000ULL	  /* ns */
#define EDT_MAX_MIN_INFLIGHT 1000
/* Priorities of borrowing classes: 0 borrows first, as htb's prio. */
#define EDT_PRIOS      8
#define EDT_MAX_WEIGHT 1000
/* Borrowed bytes weigh len * EDT_WEIGHT_SCALE / weight in a class's virtual time. */
#define EDT_WEIGHT_SCALE 1024

/*
 * A cgroup with its own rate: what struct qd_cgroup_val holds in
 * userspace, then the entry's optional fields.
 */
struct edt_cgroup {
	__u64 id;     /* kernfs node id of the cgroup v2 directory; 0: unused */
	__u64 rate;   /* bytes/s guaranteed */
	__u64 ceil;   /* bytes/s at most, borrowing what the link has spare; 0: rate */
	__u64 burst;  /* bytes; 0: the instance's */
	__u32 prio;   /* borrowing order: lower first */
	__u32 weight; /* share of what is lent within a priority */
};

struct edt_cfg {
	__u64 rate;	    /* bytes/s */
	__u64 burst;	    /* bytes that may leave back to back after idle time; 0: auto */
	__u64 horizon;	    /* ns: packets scheduled further ahead are dropped... */
	__u64 ce_threshold; /* ns: ...and beyond this, congestion is signalled */
	__u64 timer_slack;  /* ns */
	__u32 min_inflight; /* ...unless their TCP flow has fewer packets in flight */
	__u32 limit;	    /* packets: the safety cap */
	__u32 backpressure; /* 1: never drop a local socket's packets below the cap */
	__u32 default_prio;
	__u64 default_rate; /* the default class's guarantee; 0: unlimited (what the link has left)
			     */
	__u64 default_ceil; /* 0: default_rate */
	__u32 default_weight;
	/*
	 * The cgroup entries: the set of the "cgroups" map keyed by this
	 * number (0: none), written anew by every change.
	 */
	__u32 cgset;
	__u32 ncgroups;
	__u32 pad;
};

/*
 * The options as qdiscctl parses and prints them: the cfgs value, then
 * the entries, which go to the maps.
 */
struct edt_opts {
	struct edt_cfg cfg;
	struct edt_cgroup cgroups[EDT_CGROUPS];
};

struct edt_stats {
	__u64 horizon_drops;
	__u64 cap_drops;   /* beyond `limit`, or a cgroup's EDT_CGROUP_LIMIT */
	__u64 alloc_drops; /* the registration's packet pool had no free slot */
	__u64 cn_signals;  /* NET_XMIT_CN returned to a TCP sender */
	__u64 ce_marks;	   /* by edt_ce_mark, before the qdisc */
	__u64 held_back;   /* past the horizon but kept: backpressure or min_inflight */
	__u64 rate_est;	   /* bytes/s that left in the last window */
};

/*
 * A class's node in a binary heap of cgroup classes (by class index; 0:
 * none). The nodes are the heap's places: a complete binary tree linked
 * through its members, so that it costs nothing per instance beyond its
 * root and size. A sift moves keys between places and leaves the links
 * alone; a class's own node is in the tree exactly while its key is.
 */
struct edt_hnode {
	__u64 key; /* of class c, whose key this place holds */
	__u32 c;
	__u32 up, kid[2];
	__u32 at; /* the place holding this class's own key; 0: in no heap */
};

/*
 * The heaps of an instance's cgroup classes with packets: by when their
 * rate lets their head go; by when their ceil does, those it does not yet;
 * by virtual time for each prio, those it does.
 */
#define EDT_HEAP_RATE 0
#define EDT_HEAP_CEIL 1
#define EDT_HEAP_LEND 2 /* + prio */
#define EDT_HEAPS     (EDT_HEAP_LEND + EDT_PRIOS)
/* Room for them: a power of two, so that a heap's index is bounded by a mask. */
#define EDT_HEAP_ROOM 16

/*
 * A class of packets in departure order (slots of the shared
 * pool linked by index), its clock, its counters.
 */
struct edt_class {
	__u64 id;      /* the cgroup these counters are for */
	__u64 bytes;   /* sent */
	__u64 packets; /* sent */
	__u64 drops;
	__u64 backlog;	/* bytes queued */
	__u64 borrowed; /* bytes sent beyond the rate, lent by the link */
	__u64 rate_est; /* bytes/s sent in its last window with traffic */
	/* Runtime state, private to the program. */
	__u64 t_next;	 /* when its rate lets the next packet go */
	__u64 t_ceil;	 /* when its ceil does */
	__u64 t_last;	 /* the default class: the time of its last packet (FIFO order holds) */
	__u64 vt;	 /* borrowed bytes / weight, against the instance's vtime */
	__u64 win_start; /* of rate_est's window */
	__u64 win_bytes;
	__u32 head, tail; /* slots of the pool; 0: empty */
	__u32 qlen;
	__u32 last_len; /* of the packet that last advanced t_next and t_ceil */
	/* A cgroup's class: its place in the class pool and on its instance's lists. */
	__u32 owner; /* the instance's slot + 1; 0: free */
	__u32 next;  /* on the instance's list of its classes, or the free chain */
	__u32 prev;  /* on that list */
	/*
	 * With packets, in its instance's heaps: node 0 in EDT_HEAP_RATE,
	 * node 1 in heap eh - 1 (0: none) while its ceil is above its rate.
	 */
	__u32 eh;
	__u32 prio; /* of its heap in EDT_HEAP_LEND */
	/*
	 * ent: its entry as read under the cfg's cgset ent_set (0: none),
	 * which every change renews: while that is the cfg's, no packet
	 * needs the entry's lookup. Clamped where used, as the entry is.
	 */
	__u32 ent_set;
	struct edt_cgroup ent;
	__u64 pace; /* what it adds to the instance's pace_sum (EDT_PACE_INF: unlimited); 0: none */
	struct edt_hnode hn[2];
};

/*
 * The registration's cache of sockets' cgroups: which class (0: the
 * default class) a socket of cgroup cg sends to in the instance whose
 * cfg names entry set set, so that a packet of a cgroup seen before takes
 * no hash lookup. eid: the cgroup of the class's entry. Every instance
 * shares it, as it shares the classes: one bucket of EDT_CGC_WAYS for each
 * class the capacity "cgroups" has room for, so that it holds every
 * class with room to spare however the classes are spread over instances,
 * and an instance slot pays nothing for it. Instances on other CPUs may
 * write a place while it is read: check, a hash of the other fields and of
 * the instance's slot, tells a place written whole for this instance from
 * one mixed by two writers, or written for another instance.
 */
#define EDT_CGC_WAYS 2
struct edt_cgc {
	__u64 cg;
	__u64 eid;
	__u32 set;
	__u32 c;
	__u64 check;
};

struct edt_cgc_bucket {
	struct edt_cgc way[EDT_CGC_WAYS];
};

struct edt_inst {
	struct edt_stats stats;
	__u64 t_next; /* CLOCK_MONOTONIC ns at which the link is free again (dequeue's clock) */
	/* Runtime state, private to the program. */
	__u64 win_start;
	__u64 win_bytes;
	__u64 vtime[EDT_PRIOS];		/* per priority: virtual time of the last borrowed packet */
	__u64 inv_rate;			/* the rate inv is for */
	__u64 inv;			/* NSEC_PER_SEC << 32 / inv_rate; 0: divide */
	__u64 seen;			/* the clock as last read under the qdisc's lock */
	__u32 busy;			/* bit 0: class 0 has packets queued; bit 1: a cgroup's */
	__u32 last_len;			/* of the packet that last advanced t_next */
	struct qd_pool_cache pkt_cache; /* free packet slots this instance holds */
	__u32 cls_head;			/* its cgroups' classes, in the class pool */
	__u32 cgset;			/* cfg's cgset when its classes were last checked */
	__u32 hroot[EDT_HEAP_ROOM];	/* of its heaps of classes with packets */
	__u32 hsize[EDT_HEAP_ROOM];
	__u64 cg_backlog; /* bytes queued in its cgroups' classes */
	__u64 pace_sum;	  /* bytes/s: the paces of those with packets... */
	__u32 pace_inf;	  /* ...but these, unlimited */
	__u32 hmask;	  /* bit h: heap h has classes (dequeue reads no empty one) */
	/*
	 * Nothing may go before due (0: unknown), as dequeue last weighed
	 * the classes, checked for cgset; what could change that (a class
	 * placed, emptied or sent from) sets it 0.
	 */
	__u64 due;
	__u64 wd_at; /* the watchdog was last set for this time */
	struct edt_class classes[EDT_CLASSES];
};

#endif
