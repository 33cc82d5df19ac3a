// SPDX-License-Identifier: GPL-2.0
/*
 * fq: sch_fq's fair queueing as a BPF qdisc.
 *
 * Per-flow queues served by deficit round robin (new flows first, then old
 * ones, each refilled by `quantum`) in three priority bands that share the
 * link by weighted round robin (sch_fq's bands, priomap and weights),
 * earliest-departure-time scheduling with a horizon, per-flow pacing at
 * min(maxrate, the socket's pacing rate) and throttled flows woken by the
 * qdisc watchdog.
 *
 * Unlike the kernel selftest's bpf_fq, flows never share a queue: a flow is
 * found by comparing its full key along its bucket's chain, so two flows
 * whose hashes collide get their own queues. Idle flows are collected
 * continuously, oldest first, and reclaimed early when the instance has no
 * room; a flow with packets queued or a departure time still ahead is never
 * taken, so pacing state is never lost.
 *
 * Layout (see fq.h): flows and packets are slots of ARRAY maps shared by
 * every instance of the registration. An instance takes free slots in
 * chains of FQ_*_BATCH from a pool (pool.h: a STACK map of chain heads,
 * locked by the kernel) or, while the pool has never-used slots, by an
 * atomic add on a counter of the "pool" map; it keeps at most two such
 * chains for itself and gives the rest back, and everything when it is
 * reset or destroyed. Instances run
 * concurrently on different CPUs (mq children); that is the only state they
 * share. Everything else an instance touches is its own: its flows, lists
 * linked through them, a leftist heap of throttled flows linked through
 * them, and its bucket heads.
 */
#include "common.h"
#include "ecn.h"
#include "fq.h"
#include "flowhash.h"
#include "pool.h"

_Static_assert(sizeof(((struct fq_inst *)0)->hash_key) == (FH_WORDS + 1) * sizeof(u64),
	       "fq_inst.hash_key holds flow_hash's key");

char _license[] SEC("license") = "GPL";

#define NSEC_PER_SEC	1000000000ULL
#define FQ_GC_AGE	(3 * NSEC_PER_SEC) /* sch_fq: 3 * HZ */
#define FQ_GC_MAX	8		   /* flows collected on one chain walk */
#define FQ_RECLAIM_LOOK 16		   /* idle flows a full instance looks at */
#define FQ_HEAP_STEPS	64		   /* > 2 x log2(flows): a leftist heap's merge */
#define FQ_DEQ_ROUNDS	256		   /* list steps one dequeue may take */
#define FQ_FLOW_BATCH	16		   /* flow slots taken from the pool at once */
#define FQ_PKT_BATCH	32		   /* packet slots taken from the pool at once */
#define TC_PRIO_MAX	15
/* A queued packet's band, in the top bits of its slot's len. */
#define FQ_PKT_BAND_SHIFT 30
#define FQ_PKT_LEN_MASK	  ((1U << FQ_PKT_BAND_SHIFT) - 1)

/* Capacities of the registration (kinds/fq.c). */
QD_CAP(flows, FQ_DEF_FLOWS);
QD_CAP(instance_flows, FQ_DEF_INSTANCE_FLOWS);
QD_CAP(packets, FQ_DEF_PACKETS);
QD_CAP(bucket_pool, FQ_DEF_BUCKET_POOL);

struct fq_pkt {
	struct sk_buff __kptr *skb;
	__u64 time_to_send;
	__u32 next; /* next packet of its flow, or of a free chain */
	/*
	 * Queued: the packet's length, its band above FQ_PKT_BAND_SHIFT (no
	 * packet comes near 1 GB). Free: the length of the chain it heads.
	 */
	__u32 len;
};

QD_INSTANCE_MAPS(struct fq_inst, struct fq_cfg);

/*
 * As compiled, for 64 instances and the default capacities; qdiscctl sizes
 * them from the registration's capacities (kinds/fq.c, fq_map_entries,
 * which must give these figures for the defaults).
 */
#define FQ_RESERVED(inst) (1 + (inst))

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_RESERVED(QD_DEFAULT_INSTANCES) + FQ_DEF_FLOWS);
	__type(key, u32);
	__type(value, struct fq_flow);
} flows SEC(".maps");

/* Heads of chains of free flow slots, given back by instances. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, FQ_DEF_FLOWS);
	__type(value, u32);
} flow_pool SEC(".maps");

/* Packet slots 1 .. packets; 0 means "none". */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 + FQ_DEF_PACKETS);
	__type(key, u32);
	__type(value, struct fq_pkt);
} pkts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, FQ_DEF_PACKETS);
	__type(value, u32);
} pkt_pool SEC(".maps");

/*
 * Bucket heads, FQ_BLOCK a block: block s is instance slot s's, then the
 * pool's. FQ_HEADS of them an entry, since an ARRAY rounds every value up
 * to 8 bytes.
 */
struct fq_heads {
	__u32 h[FQ_HEADS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, (QD_DEFAULT_INSTANCES * FQ_BLOCK + FQ_DEF_BUCKET_POOL) / FQ_HEADS);
	__type(key, u32);
	__type(value, struct fq_heads);
} buckets SEC(".maps");

/* Blocks of the bucket pool given back (numbered from 0, after the instances'). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, FQ_DEF_BUCKET_POOL / FQ_BLOCK);
	__type(value, u32);
} bucket_pool SEC(".maps");

/* Where each pool's never-used slots begin (fq.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct fq_pool);
} pool SEC(".maps");

static __always_inline struct fq_pool *fq_pool(void)
{
	return bpf_map_lookup_elem(&pool, &(u32){ 0 });
}

/* Everything an op needs about its instance. */
struct fq_ctx {
	u32 id;
	struct fq_inst *in;
	struct fq_cfg *cfg;
};

static __always_inline struct fq_flow *flow_at(u32 idx)
{
	return bpf_map_lookup_elem(&flows, &idx);
}

static __always_inline struct fq_pkt *pkt_at(u32 idx)
{
	return bpf_map_lookup_elem(&pkts, &idx);
}

static __always_inline u32 flow_overflow(const struct fq_ctx *c)
{
	return 1 + c->id;
}

/* Band b of the instance; a b out of range (never: callers clamp) is band 0. */
static __always_inline struct fq_band *band_at(struct fq_inst *in, u32 b)
{
	if (b >= FQ_BANDS)
		b = 0;
	return &in->band[b];
}

/* skb's band by the priomap; cfgs may hold anything, so it is clamped. */
static __always_inline u32 fq_band_of(const struct fq_cfg *cfg, const struct sk_buff *skb)
{
	u32 b = cfg->priomap[skb->priority & TC_PRIO_MAX];

	return b < FQ_BANDS ? b : FQ_BANDS - 1;
}

/* Band b's weight: what it may send a round, clamped as sch_fq's are. */
static __always_inline s32 fq_weight(const struct fq_ctx *c, u32 b)
{
	u32 w = c->cfg->weights[b < FQ_BANDS ? b : 0];

	if (w < FQ_MIN_WEIGHT)
		return FQ_MIN_WEIGHT;
	return w > 0x7fffffff ? 0x7fffffff : w;
}

/* The first flow slot of the pool: the ones before are reserved. */
static __always_inline u32 flow_first(void)
{
	return FQ_RESERVED(qd_cap_instances);
}

static __always_inline u32 *bucket_at(const struct fq_ctx *c, u32 b)
{
	u32 key = c->in->block[(b >> FQ_BLOCK_SHIFT) & (FQ_MAX_BLOCKS - 1)] * FQ_BLOCK +
		  (b & (FQ_BLOCK - 1));
	struct fq_heads *e = bpf_map_lookup_elem(&buckets, &(u32){ key / FQ_HEADS });

	return e ? &e->h[key & (FQ_HEADS - 1)] : NULL;
}

/*
 * Whether sk keys its own flow. Listeners, request and time-wait sockets
 * do not (sch_fq's rule; they are not full sockets either), nor do closed
 * ones: unconnected UDP.
 */
static __always_inline bool fq_sk_flow(const struct sock *sk)
{
	u8 state = sk->__sk_common.skc_state;

	return state != TCP_LISTEN && state != TCP_NEW_SYN_RECV && state != TCP_TIME_WAIT &&
	       state != TCP_CLOSE;
}

/*
 * ce_threshold. sch_fq CE-marks at dequeue a packet that leaves more than
 * ce_threshold after it was due; a BPF qdisc cannot write packet data, so
 * here dequeue only notes, in ce_flows, the flows whose last packet left
 * that late, and fq_ce_mark, a tcx egress program qdiscctl attaches to the
 * device while an instance there has ce_threshold, marks those flows'
 * ECN-capable packets before they reach the qdisc, until one of theirs
 * leaves in time again. The mark thus lags sch_fq's by the packets already
 * queued. A flow is named as both programs can: by its socket's cookie
 * (which the egress program creates), or for packets without a socket of
 * their own by the packet hash (which the egress program computes).
 */
struct fq_ce_key {
	__u64 flow; /* socket cookie, or packet hash */
	__u64 netns;
	__u32 ifindex;
	__u32 orphan; /* 1: flow is a packet hash */
};

/* Sized for the defaults; qdiscctl gives it the instance_flows capacity. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FQ_DEF_INSTANCE_FLOWS);
	__type(key, struct fq_ce_key);
	__type(value, u32); /* the instance slot whose dequeue saw the flow late */
} ce_flows SEC(".maps");

/* The key of skb's flow on dev; flow 0 when the egress program never saw it. */
static __always_inline void fq_ce_key(struct fq_ce_key *k, const struct sk_buff *skb,
				      const struct net_device *dev)
{
	struct sock *sk = skb->sk;

	if (sk && fq_sk_flow(sk)) {
		k->flow = sk->__sk_common.skc_cookie.counter;
		k->orphan = 0;
	} else {
		k->flow = skb->hash;
		k->orphan = 1;
	}
	k->netns = dev->nd_net.net->net_cookie;
	k->ifindex = dev->ifindex;
}

/*
 * Dequeue's part: skb leaves late ns after it was due. ce_mark counts what
 * sch_fq's counts: every packet that leaves late, ECN-capable or not.
 */
static __noinline void fq_ce_note(const struct fq_ctx *c, const struct Qdisc *sch,
				  const struct sk_buff *skb, u64 late)
{
	bool above = late > c->cfg->ce_threshold;
	struct fq_ce_key k;

	if (above)
		c->in->stats.ce_mark++;
	fq_ce_key(&k, skb, sch->dev_queue->dev);
	/* Packets the egress program did not look at cannot be marked. */
	if (!k.flow)
		return;
	if (above) {
		if (!bpf_map_lookup_elem(&ce_flows, &k))
			bpf_map_update_elem(&ce_flows, &k, &c->id, BPF_ANY);
	} else if (bpf_map_lookup_elem(&ce_flows, &k)) {
		bpf_map_delete_elem(&ce_flows, &k);
	}
}

/*
 * sch_fq keys a socket's flow by the socket's address. The verifier keeps
 * a pointer a pointer through any cast, but the difference of two is a
 * number (for a program with CAP_PERFMON): the socket's distance from sch
 * plus sch's address, read once in .init.
 */
static __always_inline u64 fq_sk_key(const struct fq_ctx *c, const struct Qdisc *sch,
				     const struct sock *sk)
{
	return (u64)sk - (u64)sch + c->in->sch_addr;
}

/*
 * cfgs may hold any value: a quantum past 2^31 would make the s32 credit
 * never positive and stall the instance, so both are clamped where used.
 */
static __always_inline u32 fq_quantum(const struct fq_ctx *c)
{
	u32 q = c->cfg->quantum ?: 2 * c->in->psched_mtu;

	return q < FQ_MAX_QUANTUM ? q : FQ_MAX_QUANTUM;
}

static __always_inline u32 fq_initial_quantum(const struct fq_ctx *c)
{
	u32 q = c->cfg->initial_quantum ?: 10 * c->in->psched_mtu;

	return q < FQ_MAX_INITIAL_QUANTUM ? q : FQ_MAX_INITIAL_QUANTUM;
}

static __always_inline u32 fq_nbuckets(const struct fq_cfg *cfg)
{
	u32 n = cfg->buckets;

	/* qdiscctl only writes powers of two; anything else gets the default. */
	if (!n || n > FQ_MAX_BUCKETS || (n & (n - 1)))
		return FQ_BLOCK;
	return n;
}

static __always_inline u32 fq_bucket_of(u64 key, u32 nbuckets)
{
	return (u32)((key * 0x61C8864680B583EBULL) >> 32) & (nbuckets - 1);
}

/* --- pools ------------------------------------------------------------ */

/*
 * Packet and flow slots come from registration-wide pools (pool.h); free
 * flows chain through hnext, a chain's length kept in qlen. fresh_flows
 * counts from flow_first(), set by the first .init, so the flow pool has
 * base 0 and ends at flow_first() + flows: the reserved slots are never
 * handed out.
 */
static __always_inline __u64 *fq_fresh_pkts(void)
{
	struct fq_pool *pl = fq_pool();

	return pl ? &pl->fresh_pkts : NULL;
}

static __always_inline __u64 *fq_fresh_flows(void)
{
	struct fq_pool *pl = fq_pool();

	return pl ? &pl->fresh_flows : NULL;
}

QD_POOL(pkt, struct fq_pkt, pkt_at, pkt_pool, fq_fresh_pkts(), qd_cap_packets, 1, FQ_PKT_BATCH,
	next, len)
QD_POOL(flow_slot, struct fq_flow, flow_at, flow_pool, fq_fresh_flows(),
	flow_first() + qd_cap_flows, 0, FQ_FLOW_BATCH, hnext, qlen)

/* Everything the instance keeps for itself goes back to the pools. */
static __always_inline void pools_return(struct fq_inst *in)
{
	pkt_return(&in->pkt_cache);
	flow_slot_return(&in->flow_cache);
}

/* A block of the bucket pool, as a block number of the buckets map; 0: none. */
static __always_inline u32 block_take(void)
{
	u32 b;
	u64 n;

	struct fq_pool *pl;

	if (!bpf_map_pop_elem(&bucket_pool, &b))
		return qd_cap_instances + b;
	pl = fq_pool();
	if (!pl)
		return 0;
	n = __sync_fetch_and_add(&pl->fresh_blocks, 1);
	if (n >= qd_cap_bucket_pool / FQ_BLOCK)
		return 0;
	return qd_cap_instances + n;
}

static __always_inline void block_put(u32 block)
{
	u32 b = block - qd_cap_instances;

	bpf_map_push_elem(&bucket_pool, &b, 0);
}

/* --- lists and the heap --------------------------------------------- */

/* The new and old lists: singly linked through lnext, with head and tail. */
static __always_inline void list_add_tail(u32 *head, u32 *tail, u32 idx, struct fq_flow *f)
{
	struct fq_flow *t;

	f->lnext = 0;
	if (*tail && (t = flow_at(*tail)))
		t->lnext = idx;
	else
		*head = idx;
	*tail = idx;
}

static __always_inline void list_pop_head(u32 *head, u32 *tail, struct fq_flow *f)
{
	*head = f->lnext;
	if (!*head)
		*tail = 0;
	f->lnext = 0;
}

/*
 * The idle list: every idle flow of the pool, in the order they went idle,
 * doubly linked (lnext, lprev) so that a flow leaving it costs no search.
 */
static __always_inline void idle_add(struct fq_inst *in, u32 idx, struct fq_flow *f)
{
	struct fq_flow *t;

	f->lnext = 0;
	f->lprev = in->idle_tail;
	if (in->idle_tail && (t = flow_at(in->idle_tail)))
		t->lnext = idx;
	else
		in->idle_head = idx;
	in->idle_tail = idx;
}

static __always_inline void idle_del(struct fq_inst *in, struct fq_flow *f)
{
	struct fq_flow *n;

	if (f->lprev && (n = flow_at(f->lprev)))
		n->lnext = f->lnext;
	else
		in->idle_head = f->lnext;
	if (f->lnext && (n = flow_at(f->lnext)))
		n->lprev = f->lprev;
	else
		in->idle_tail = f->lprev;
	f->lnext = 0;
	f->lprev = 0;
}

static __always_inline void set_idle(const struct fq_ctx *c, u32 idx, struct fq_flow *f, u64 now)
{
	f->state = FQ_IDLE;
	f->age = now;
	/* The reserved flow stays out of the counts and the collection. */
	if (idx < flow_first())
		return;
	c->in->stats.inactive_flows++;
	idle_add(c->in, idx, f);
}

static __always_inline u32 heap_rank(u32 idx)
{
	struct fq_flow *f = idx ? flow_at(idx) : NULL;

	return f ? f->hrank : 0;
}

/*
 * Merge two leftist heaps of throttled flows, keyed by time_next_packet.
 * Down the right spines (at most log2(n + 1) flows each), the right links
 * are turned to point back up; going up again they take the merged
 * subtree, children swap where the left rank would be the smaller, and
 * ranks are fixed. No memory but the flows' own, and O(log n) in the
 * worst case.
 */
static __noinline u32 heap_merge(u32 a, u32 b)
{
	struct fq_flow *fa, *fb, *p;
	u32 up = 0, t, res;
	int i;

	bpf_for(i, 0, FQ_HEAP_STEPS) {
		if (!a || !b)
			break;
		fa = flow_at(a);
		fb = flow_at(b);
		if (!fa || !fb)
			break;
		if (fb->time_next_packet < fa->time_next_packet) {
			t = a;
			a = b;
			b = t;
			fa = fb;
		}
		t = fa->hright;
		fa->hright = up;
		up = a;
		a = t;
	}
	res = a ?: b;
	bpf_for(i, 0, FQ_HEAP_STEPS) {
		u32 rl, rr;

		if (!up)
			break;
		p = flow_at(up);
		if (!p)
			break;
		t = p->hright;
		p->hright = res;
		rl = heap_rank(p->hleft);
		rr = heap_rank(res);
		if (rl < rr) {
			p->hright = p->hleft;
			p->hleft = res;
			rr = rl;
		}
		p->hrank = rr + 1;
		res = up;
		up = t;
	}
	return res;
}

static __always_inline void heap_push(struct fq_inst *in, u32 idx, struct fq_flow *f)
{
	f->hleft = 0;
	f->hright = 0;
	f->hrank = 1;
	in->heap_root = heap_merge(in->heap_root, idx);
}

static __always_inline void heap_pop(struct fq_inst *in, struct fq_flow *top)
{
	in->heap_root = heap_merge(top->hleft, top->hright);
	top->hleft = 0;
	top->hright = 0;
	top->hrank = 0;
}

/* Move flows whose time has come from the heap to the old list. */
static __always_inline void fq_check_throttled(const struct fq_ctx *c, u64 now)
{
	struct fq_inst *in = c->in;
	struct fq_band *b;
	struct fq_flow *f;
	int i;

	if (!in->heap_root || in->time_next_delayed_flow > now)
		return;
	/* sch_fq's EWMA of how late the watchdog woke us. */
	if (in->time_next_delayed_flow) {
		u64 sample = now - in->time_next_delayed_flow;

		in->stats.unthrottle_latency_ns -= in->stats.unthrottle_latency_ns >> 3;
		in->stats.unthrottle_latency_ns += sample >> 3;
	}
	in->time_next_delayed_flow = 0;
	bpf_for(i, 0, FQ_MAX_FLOWS) {
		u32 idx = in->heap_root;

		if (!idx)
			break;
		f = flow_at(idx);
		if (!f)
			break;
		if (f->time_next_packet > now) {
			in->time_next_delayed_flow = f->time_next_packet;
			break;
		}
		heap_pop(in, f);
		if (f->state != FQ_THROTTLED)
			continue;
		f->state = FQ_OLD;
		in->stats.throttled_flows--;
		b = band_at(in, f->band);
		list_add_tail(&b->old_head, &b->old_tail, idx, f);
	}
}

/* --- flows ----------------------------------------------------------- */

static __always_inline void flow_free(const struct fq_ctx *c, u32 idx, struct fq_flow *f)
{
	struct fq_inst *in = c->in;

	if (f->state == FQ_IDLE) {
		in->stats.inactive_flows--;
		idle_del(in, f);
	}
	f->state = FQ_FREE;
	f->key = 0;
	f->owner = 0;
	in->stats.flows--;
	flow_slot_free(&in->flow_cache, idx, f);
}

/* Whether idle flow f may be collected: nothing queued, no departure ahead. */
static __always_inline bool flow_collectable(const struct fq_flow *f, u64 now)
{
	return f->state == FQ_IDLE && !f->qlen && f->time_next_packet <= now;
}

/* Take idle flow idx out of its bucket's chain and free it. */
static __noinline bool flow_reclaim(const struct fq_ctx *c, u32 idx)
{
	struct fq_flow *f = flow_at(idx), *p;
	u32 *head, cur, prev = 0;
	int i;

	if (!f || f->state != FQ_IDLE || f->qlen || idx < flow_first())
		return false;
	head = bucket_at(c, f->bucket);
	if (!head)
		return false;
	cur = *head;
	bpf_for(i, 0, FQ_MAX_FLOWS) {
		if (!cur)
			break;
		if (cur == idx) {
			if (!prev) {
				*head = f->hnext;
			} else {
				p = flow_at(prev);
				if (!p)
					return false;
				p->hnext = f->hnext;
			}
			flow_free(c, idx, f);
			c->in->stats.gc_flows++;
			return true;
		}
		p = flow_at(cur);
		if (!p)
			break;
		prev = cur;
		cur = p->hnext;
	}
	return false;
}

/*
 * Collect from the head of the idle list: the flow idle longest once it has
 * been idle for FQ_GC_AGE (every packet looks, so one at a time keeps up),
 * or with force whatever its age (the instance has no room), looking at a
 * few in case the oldest ones still have a departure ahead.
 */
static __always_inline bool fq_gc_idle(const struct fq_ctx *c, u64 now, bool force)
{
	struct fq_inst *in = c->in;
	u32 idx = in->idle_head;
	struct fq_flow *h;
	int i;

	/* Most packets find nothing to collect: spare them the loop's setup. */
	if (!idx)
		return false;
	if (!force) {
		h = flow_at(idx);
		if (!h || now - h->age < FQ_GC_AGE || !flow_collectable(h, now))
			return false;
		return flow_reclaim(c, idx);
	}
	bpf_for(i, 0, FQ_RECLAIM_LOOK) {
		struct fq_flow *f;

		if (!idx)
			break;
		f = flow_at(idx);
		if (!f)
			break;
		if (flow_collectable(f, now))
			return flow_reclaim(c, idx);
		idx = f->lnext;
	}
	return false;
}

static __always_inline u32 flow_alloc(const struct fq_ctx *c, u64 now, struct fq_flow **fp)
{
	struct fq_inst *in = c->in;
	u32 idx;

	if (in->stats.flows < qd_cap_instance_flows) {
		idx = flow_slot_alloc(&in->flow_cache, fp);
		if (idx)
			return idx;
	}
	/* No room: the flow idle the longest gives its slot up early. */
	if (!fq_gc_idle(c, now, true))
		return 0;
	return flow_slot_alloc(&in->flow_cache, fp);
}

static __always_inline void flow_init(struct fq_flow *f, u64 key, u32 socket_hash, u32 credit,
				      u64 now)
{
	f->key = key;
	f->socket_hash = socket_hash;
	f->time_next_packet = 0;
	f->credit = credit;
	f->qlen = 0;
	f->backlog = 0;
	f->head = 0;
	f->tail = 0;
	f->lnext = 0;
	f->lprev = 0;
	f->hleft = 0;
	f->hright = 0;
	f->hrank = 0;
	f->pkts = 0;
	f->bytes = 0;
	f->drops = 0;
	f->state = FQ_FREE;
	f->age = now;
}

/*
 * The flow of skb: the socket for local traffic, the masked packet hash for
 * packets without one, listeners and time-wait sockets, and unconnected
 * UDP sockets (sch_fq's rules). Returns the flow's index, 0 when the
 * instance has no room; *fp is the flow when this found or made it, else
 * NULL.
 */
static __always_inline u32 fq_classify(const struct fq_ctx *c, struct Qdisc *sch,
				       struct sk_buff *skb, u64 now, struct fq_flow **fp)
{
	struct fq_inst *in = c->in;
	struct sock *sk = skb->sk;
	u32 socket_hash = 0, b, cur, idx = 0, prev = 0, gc = 0;
	struct fq_flow *f, *p, *found = NULL;
	bool crowded = false;
	u64 key;
	u32 *head;
	int i;

	*fp = NULL;
	if (sk && !fq_sk_flow(sk))
		sk = NULL;
	if (sk) {
		key = fq_sk_key(c, sch, sk);
		socket_hash = sk->__sk_common.skc_hash;
	} else {
		key = ((u64)(flow_hash(skb, c->in->hash_key) & c->cfg->orphan_mask) << 1) | 1;
	}

	b = fq_bucket_of(key, in->buckets);
	head = bucket_at(c, b);
	if (!head)
		return 0;
	cur = *head;
	bpf_for(i, 0, FQ_MAX_FLOWS) {
		u32 next;

		if (!cur)
			break;
		f = flow_at(cur);
		if (!f)
			break;
		next = f->hnext;
		if (f->key == key) {
			found = f;
			idx = cur;
			break;
		}
		/* Collect what this walk passes, as sch_fq does. */
		if (now - f->age > FQ_GC_AGE && gc < FQ_GC_MAX && flow_collectable(f, now)) {
			if (!prev) {
				*head = next;
			} else {
				p = flow_at(prev);
				if (!p)
					break;
				p->hnext = next;
			}
			flow_free(c, cur, f);
			in->stats.gc_flows++;
			gc++;
			cur = next;
			continue;
		}
		crowded = true;
		prev = cur;
		cur = next;
	}

	if (found) {
		/*
		 * The socket was freed and its memory reused by another one. A
		 * throttled flow keeps its time: the heap is ordered by it.
		 */
		if (sk && found->socket_hash != socket_hash) {
			found->socket_hash = socket_hash;
			found->credit = fq_initial_quantum(c);
			if (found->state != FQ_THROTTLED)
				found->time_next_packet = 0;
		}
		if (sk)
			in->recent[socket_hash & (FQ_RECENT - 1)] = idx;
		*fp = found;
		return idx;
	}

	f = NULL;
	idx = flow_alloc(c, now, &f);
	if (!idx || !f) {
		in->stats.allocation_errors++;
		return 0;
	}
	/* The reclaim above may have emptied our bucket. */
	head = bucket_at(c, b);
	if (!head)
		return 0;
	if (*head)
		crowded = true;
	if (crowded)
		in->stats.collisions++;
	flow_init(f, key, socket_hash, fq_initial_quantum(c), now);
	f->owner = c->id + 1;
	f->bucket = b;
	f->hnext = *head;
	*head = idx;
	in->stats.flows++;
	/* Idle until the caller queues to it, which takes it off the list. */
	set_idle(c, idx, f, now);
	if (sk)
		in->recent[socket_hash & (FQ_RECENT - 1)] = idx;
	*fp = f;
	return idx;
}

/*
 * Bucket heads for n buckets: the instance's own block, then blocks of the
 * pool; with too few blocks to be had, the most buckets the blocks held
 * give (a power of two). Returns how many buckets there are.
 */
static __always_inline u32 fq_blocks(struct fq_inst *in, u32 n)
{
	u32 want = (n + FQ_BLOCK - 1) / FQ_BLOCK, got;
	int i;

	bpf_for(i, 0, FQ_MAX_BLOCKS) {
		u32 nb = in->nblocks;

		if (nb <= want || nb <= 1)
			break;
		in->nblocks--;
		block_put(in->block[(nb - 1) & (FQ_MAX_BLOCKS - 1)]);
	}
	bpf_for(i, 0, FQ_MAX_BLOCKS) {
		u32 nb = in->nblocks, blk;

		if (nb >= want)
			break;
		blk = block_take();
		if (!blk)
			break;
		in->block[nb & (FQ_MAX_BLOCKS - 1)] = blk;
		in->nblocks++;
	}
	got = in->nblocks * FQ_BLOCK;
	if (got >= n)
		return n;
	/* The largest power of two that fits in what was had. */
	n = FQ_BLOCK;
	bpf_for(i, 0, 9) {
		if (n * 2 > got)
			break;
		n *= 2;
	}
	return n;
}

/*
 * Empty every bucket and return all the instance's flows as one list,
 * linked through hnext: rehash chains them anew, purge frees them.
 */
static __noinline u32 fq_unchain(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	u32 all = 0;
	int i, j;

	bpf_for(i, 0, FQ_MAX_BUCKETS) {
		u32 *h, cur;

		if ((u32)i >= in->buckets)
			break;
		h = bucket_at(c, i);
		if (!h)
			continue;
		cur = *h;
		*h = 0;
		bpf_for(j, 0, FQ_MAX_FLOWS) {
			struct fq_flow *f;
			u32 next;

			if (!cur)
				break;
			f = flow_at(cur);
			if (!f)
				break;
			next = f->hnext;
			f->hnext = all;
			all = cur;
			cur = next;
		}
	}
	return all;
}

/*
 * Re-chain every flow after `buckets` changed: gather the chains into one
 * list, resize the blocks, empty the new heads and chain the flows anew.
 */
static __noinline void fq_rehash(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	u32 all = fq_unchain(c), nb;
	int i, j;

	nb = fq_blocks(in, fq_nbuckets(c->cfg));
	bpf_for(i, 0, FQ_MAX_BUCKETS) {
		u32 *h;

		if ((u32)i >= nb)
			break;
		h = bucket_at(c, i);
		if (h)
			*h = 0;
	}
	bpf_for(j, 0, FQ_MAX_FLOWS) {
		struct fq_flow *f;
		u32 next, *h;

		if (!all)
			break;
		f = flow_at(all);
		if (!f)
			break;
		next = f->hnext;
		f->bucket = fq_bucket_of(f->key, nb);
		h = bucket_at(c, f->bucket);
		if (h) {
			f->hnext = *h;
			*h = all;
		}
		all = next;
	}
	in->buckets = nb;
	in->buckets_want = c->cfg->buckets;
}

/* sch_fq's pacing, with the socket's rate applied whatever the skb's EDT:
 * TCP only paces itself for sch_fq, which a BPF qdisc cannot tell it is.
 * Returns whether flow f is to wait after skb, and then in *wait how long.
 */
static __always_inline bool fq_pace(const struct fq_ctx *c, struct fq_flow *f, struct sk_buff *skb,
				    u32 plen, u64 *wait)
{
	u64 rate = c->cfg->maxrate, len;
	struct sock *sk = skb->sk;

	if (!c->cfg->pacing)
		return false;
	if (sk && !(f->key & 1)) {
		u64 sk_rate = sk->sk_pacing_rate;

		if (sk_rate < rate)
			rate = sk_rate;
	}
	if (rate <= c->cfg->low_rate_threshold) {
		f->credit = 0;
	} else {
		if (plen < fq_quantum(c))
			plen = fq_quantum(c);
		if (f->credit > 0)
			return false;
	}
	if (rate == ~0ULL)
		return false;
	len = (u64)plen * NSEC_PER_SEC;
	len = rate ? len / rate : NSEC_PER_SEC;
	if (len > NSEC_PER_SEC) {
		len = NSEC_PER_SEC;
		c->in->stats.pkts_too_long++;
	}
	*wait = len;
	return true;
}

/*
 * Flow f's next packet leaves wait after now, less what the watchdog's
 * slack made it late, as sch_fq does. Apart from fq_pace so that a caller
 * reads the clock only for a flow that waits.
 */
static __always_inline void fq_pace_from(struct fq_flow *f, u64 wait, u64 now)
{
	if (f->time_next_packet && now > f->time_next_packet) {
		u64 late = now - f->time_next_packet;

		wait -= late < wait / 2 ? late : wait / 2;
	}
	f->time_next_packet = now + wait;
}

/* Whether a band has flows listed: work for dequeue, unless they are out of rounds. */
static __always_inline bool fq_listed(const struct fq_inst *in)
{
	return in->band[0].new_head || in->band[0].old_head || in->band[1].new_head ||
	       in->band[1].old_head || in->band[2].new_head || in->band[2].old_head;
}

/*
 * fq_rehash with a context of its own: one the fast path passes to no call
 * stays in registers.
 */
static __always_inline void fq_rehash_of(struct fq_inst *in, struct fq_cfg *cfg, u32 id)
{
	struct fq_ctx c = { .id = id, .in = in, .cfg = cfg };

	fq_rehash(&c);
}

/*
 * enqueue for a packet that does not take the fast slot: hashed, given its
 * flow (found or made) and queued there. Not inlined, so that the
 * registers it needs are not pushed and popped on the fast slot's path.
 * now: the time if the caller read the clock, else 0.
 */
static __noinline int fq_enqueue_flow(unsigned long long *ctx, struct fq_inst *in,
				      struct fq_cfg *cfg, u32 id, u64 now)
{
	struct fq_ctx c = { .id = id, .in = in, .cfg = cfg };
	struct sk_buff *skb = ENQ_SKB(ctx);
	struct Qdisc *sch = ENQ_SCH(ctx);
	u32 len = qdisc_pkt_len(skb), idx, p;
	u32 band = fq_band_of(cfg, skb);
	struct fq_pkt *slot = NULL, *tp;
	struct fq_band *b;
	struct fq_flow *f;
	u64 tts;

	/* As sch_fq: each band holds up to limit, so that no band crowds out another. */
	if (in->stats.band_pkts[band] >= cfg->limit) {
		in->stats.band_drops[band]++;
		goto drop;
	}
	if (!now)
		now = bpf_ktime_get_ns();
	fq_gc_idle(&c, now, false);

	tts = qd_time_to_send(skb, now);
	if (tts > now + cfg->horizon) {
		if (cfg->horizon_drop) {
			in->stats.horizon_drops++;
			goto drop;
		}
		tts = now + cfg->horizon;
		in->stats.horizon_caps++;
	}

	idx = fq_classify(&c, sch, skb, now, &f) ?: flow_overflow(&c);
	if (!f)
		f = flow_at(idx);
	if (!f)
		goto drop;
	if (f->qlen >= cfg->flow_limit) {
		in->stats.flows_plimit++;
		f->drops++;
		goto drop;
	}

	p = pkt_alloc(&in->pkt_cache, &slot);
	if (!p || !slot) {
		in->stats.allocation_errors++;
		goto drop;
	}
	slot->time_to_send = tts;
	slot->len = (len & FQ_PKT_LEN_MASK) | band << FQ_PKT_BAND_SHIFT;
	slot->next = 0;
	skb = bpf_kptr_xchg(&slot->skb, skb);
	if (skb) {
		/* Cannot happen: the slot was free. Never leak what was there. */
		bpf_qdisc_skb_drop(skb, ENQ_TO_FREE(ctx));
	}
	if (f->tail && (tp = pkt_at(f->tail)))
		tp->next = p;
	else
		f->head = p;
	f->tail = p;
	f->qlen++;
	f->backlog += len;
	sch->q.qlen++;
	sch->qstats.backlog += len;
	in->stats.band_pkts[band]++;
	/*
	 * The flow goes on the lists of its latest packet's band (sch_fq puts a
	 * flow's first packet on band 0's lists, whatever its band).
	 */
	f->band = band;

	if (f->state == FQ_IDLE) {
		if (idx >= flow_first()) {
			in->stats.inactive_flows--;
			idle_del(in, f);
		}
		f->state = FQ_NEW;
		b = band_at(in, band);
		list_add_tail(&b->new_head, &b->new_tail, idx, f);
		if (now - f->age > cfg->refill_delay && f->credit < (s32)fq_quantum(&c))
			f->credit = fq_quantum(&c);
	}
	return NET_XMIT_SUCCESS;

drop:
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, ENQ_TO_FREE(ctx));
	return NET_XMIT_DROP;
}

/*
 * The fast slot: one packet that found the qdisc empty and owes nothing to
 * pacing, kept outside the flow table (sch_fq's fast path, its "internal"
 * flow), or whose flow's credit and pacing let it leave at once, charged
 * to its flow as it arrives. Dequeue serves it first: it is the oldest
 * packet there is.
 *
 * A packet may take it (sch_fq's fq_fastpath_check) when no maxrate is
 * set, it is due, whatever its band, and either the qdisc is empty and no
 * rate applies to its flow (pacing delays a flow only at a finite maxrate
 * or socket pacing rate), or its socket's flow is the one classify found
 * last for the socket's hash (recent), has nothing queued and its pacing
 * lets it go at once, while the qdisc is empty or holds packets of
 * throttled flows alone, none of them due. Nothing else may send then: the
 * deficit round robin would send it after the rounds that refill its
 * credit, which it is given here at once (sch_fq's fast path charges no
 * credit: it leaves pacing to the EDT stamps of TCP, which paces itself
 * for sch_fq alone). So its flow's queue, credit and pacing state could
 * not have held it back. The rest goes to fq_enqueue_flow.
 */
SEC("struct_ops/fq_enqueue")
int fq_enqueue(unsigned long long *ctx)
{
	u32 id = qd_slot(ENQ_SCH(ctx)), len, flow = 0;
	struct fq_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct fq_cfg *cfg = bpf_map_lookup_elem(&cfgs, &id);
	struct fq_ctx c = { .id = id, .in = in, .cfg = cfg };
	struct sk_buff *skb;
	struct fq_flow *f;
	struct Qdisc *sch;
	struct sock *sk;
	u64 now = 0, wait;

	if (!in || !cfg) {
		ENQ_SCH(ctx)->qstats.drops++;
		bpf_qdisc_skb_drop(ENQ_SKB(ctx), ENQ_TO_FREE(ctx));
		return NET_XMIT_DROP;
	}
	skb = ENQ_SKB(ctx);
	if (!cfg->limit || cfg->maxrate != ~0ULL)
		goto flow;
	/*
	 * Packets queued, in throttled flows alone (none listed, and the fast
	 * slot free): as in sch_fq's fast path, a packet of a flow found
	 * below, which has none queued, may go ahead of them while none is
	 * due. Only a socket's flow is found before classification.
	 */
	if (ENQ_SCH(ctx)->q.qlen &&
	    (ENQ_SCH(ctx)->q.qlen >= cfg->limit || in->fast || fq_listed(in)))
		goto flow;
	sk = skb->sk;
	/*
	 * A stamp not ahead of the monotonic clock is due whatever its type:
	 * TAI and realtime ones are ahead by the time since the epoch (and
	 * sch_fq takes every stamp as monotonic). The clock is read before
	 * anything else is looked at, so that little has to outlive the call.
	 */
	if (!cfg->pacing || !sk || !fq_sk_flow(sk) || sk->sk_pacing_rate == ~0UL) {
		if (ENQ_SCH(ctx)->q.qlen)
			goto flow;
		if (skb->tstamp) {
			now = bpf_ktime_get_ns();
			if (ENQ_SKB(ctx)->tstamp > now)
				goto flow;
		}
	} else {
		now = bpf_ktime_get_ns();
		if (ENQ_SCH(ctx)->q.qlen && (!in->heap_root || in->time_next_delayed_flow <= now))
			goto flow;
		sk = ENQ_SKB(ctx)->sk;
		if (!sk)
			goto flow;
		flow = in->recent[sk->__sk_common.skc_hash & (FQ_RECENT - 1)];
		/* Flow 0 is nobody's: the owner test fails it. */
		f = flow_at(flow);
		if (!f)
			goto flow;
		skb = ENQ_SKB(ctx);
		sch = ENQ_SCH(ctx);
		sk = skb->sk;
		/* Tested above, but read again for the verifier's sake. */
		if (!sk || f->key != fq_sk_key(&c, sch, sk) || f->owner != sch->limit ||
		    f->socket_hash != sk->__sk_common.skc_hash || f->qlen ||
		    f->time_next_packet > now || skb->tstamp > now)
			goto flow;
		len = qdisc_pkt_len(skb);
		/* What fq_enqueue_flow gives a flow that comes back from idle. */
		if (f->state == FQ_IDLE && now - f->age > cfg->refill_delay &&
		    f->credit < (s32)fq_quantum(&c))
			f->credit = fq_quantum(&c);
		/*
		 * No flow has a packet it may send: the rounds the dequeue loop
		 * would give this one until its credit is positive, at once.
		 */
		if (f->credit <= 0) {
			u32 q = fq_quantum(&c);

			f->credit = (s64)f->credit + (s64)((u32)-f->credit / q + 1) * q;
		}
		f->credit -= len;
		f->pkts++;
		f->bytes += len;
		/* fq_pace's answer for a flow with credit left above the low rate. */
		if ((f->credit <= 0 || sk->sk_pacing_rate <= cfg->low_rate_threshold) &&
		    fq_pace(&c, f, skb, len, &wait))
			in->fast_wait = wait;
		else
			flow = 0;
	}
	skb = ENQ_SKB(ctx);
	sch = ENQ_SCH(ctx);
	len = qdisc_pkt_len(skb);
	in->fast_len = len;
	in->fast_flow = flow;
	sch->q.qlen++;
	sch->qstats.backlog += len;
	/* Tested free above. */
	skb = bpf_kptr_xchg(&in->fast, skb);
	return qd_enq_stored(ctx, skb);
flow:
	/* Here rather than in fq_enqueue_flow, for the stack its calls take. */
	if (in->buckets_want != cfg->buckets)
		fq_rehash_of(in, cfg, id);
	return fq_enqueue_flow(ctx, in, cfg, id, now);
}

/* Take the head packet of flow f from its slot; its band no longer holds it. */
static __always_inline struct sk_buff *flow_dequeue(const struct fq_ctx *c, struct fq_flow *f,
						    struct fq_pkt *slot)
{
	u32 p = f->head, band = slot->len >> FQ_PKT_BAND_SHIFT;
	struct sk_buff *skb;

	skb = bpf_kptr_xchg(&slot->skb, NULL);
	f->head = slot->next;
	if (!f->head)
		f->tail = 0;
	f->qlen--;
	f->backlog -= slot->len & FQ_PKT_LEN_MASK;
	if (band < FQ_BANDS && c->in->stats.band_pkts[band])
		c->in->stats.band_pkts[band]--;
	pkt_free(&c->in->pkt_cache, p, slot);
	return skb;
}

static __always_inline struct sk_buff *fq_done(struct Qdisc *sch, const struct fq_ctx *c,
					       struct fq_flow *f, struct sk_buff *skb)
{
	u32 len = qdisc_pkt_len(skb);

	f->pkts++;
	f->bytes += len;
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * The rounds of the dequeue loop that would only refill flows of band b,
 * for a head flow out of credit: how many whole ones (every flow listed,
 * new ones first, at or below 0 credit at its turn), and in *winner the
 * flow whose turn then ends them, the first of those that need the
 * fewest. 0 if a flow has credit now.
 */
static __noinline u32 fq_rounds(const struct fq_ctx *c, const struct fq_band *b, u32 *winner)
{
	u32 q = fq_quantum(c), idx = b->new_head, rounds = ~0U, k;
	bool from_new = true;
	struct fq_flow *f;
	int i;

	bpf_for(i, 0, FQ_MAX_FLOWS + 1) {
		if (!idx) {
			if (!from_new)
				break;
			from_new = false;
			idx = b->old_head;
			continue;
		}
		f = flow_at(idx);
		if (!f)
			break;
		if (f->credit > 0)
			return 0;
		k = (u32)-f->credit / q + 1;
		if (k < rounds) {
			rounds = k;
			*winner = idx;
		}
		idx = f->lnext;
	}
	return rounds;
}

/*
 * Give band b's old flows what `rounds` whole rounds and the partial one up
 * to winner give them (those before it a quantum more), and rotate the list
 * to start at winner, as those rounds leave it.
 */
static __noinline void fq_refill(const struct fq_ctx *c, struct fq_band *b, u32 rounds, u32 winner)
{
	u32 q = fq_quantum(c), idx = b->old_head, before = 0;
	struct fq_flow *f, *t;
	bool seen = false;
	int i;

	bpf_for(i, 0, FQ_MAX_FLOWS) {
		if (!idx)
			break;
		f = flow_at(idx);
		if (!f)
			return;
		if (idx == winner)
			seen = true;
		else if (!seen)
			before = idx;
		f->credit += (rounds + !seen) * q;
		f->state = FQ_OLD;
		idx = f->lnext;
	}
	if (!before)
		return;
	f = flow_at(before);
	t = flow_at(b->old_tail);
	if (!f || !t)
		return;
	t->lnext = b->old_head;
	f->lnext = 0;
	b->old_head = winner;
	b->old_tail = before;
}

/*
 * A round in which every listed flow of a band is out of credit only gives
 * each a quantum and leaves them in their order, the new ones ahead of the
 * old, all of them old: a flow that sent a 64 KB GSO packet at a quantum of
 * two MTUs takes 21 such rounds before it sends again, and the loop below
 * one step a flow for each. Do those rounds and the partial one that
 * follows at once, in two walks of the band's lists. Returns whether there
 * were any. The band's own credit is untouched: such rounds send nothing.
 */
static __always_inline bool fq_skip_rounds(const struct fq_ctx *c, struct fq_band *b)
{
	u32 rounds, winner = 0;
	struct fq_flow *t;

	rounds = fq_rounds(c, b, &winner);
	if (!rounds || rounds == ~0U)
		return false;
	if (b->new_head) {
		t = flow_at(b->new_tail);
		if (!t)
			return false;
		t->lnext = b->old_head;
		if (!b->old_head)
			b->old_tail = b->new_tail;
		b->old_head = b->new_head;
		b->new_head = 0;
		b->new_tail = 0;
	}
	fq_refill(c, b, rounds, winner);
	return true;
}

/*
 * dequeue from the flows: the bands by weighted round robin as sch_fq
 * serves them (the band being served goes on while it has credit and flows;
 * the next one gets its weight added, up to its weight), and within a band
 * the new and old lists by deficit round robin, throttled flows waiting in
 * the heap. Inlined: as a subprogram its call cost the full path 25
 * instructions a packet, and the fast slot's path needs as many registers
 * without it.
 */
static __always_inline struct sk_buff *fq_dequeue_flows(struct Qdisc *sch, struct fq_inst *in,
							u32 id)
{
	struct fq_ctx c = { .id = id, .in = in };
	struct sk_buff *skb = NULL;
	u32 nb;
	struct fq_band *b;
	struct fq_flow *f;
	struct fq_pkt *slot;
	u64 now, due, wait;
	s64 credit;
	s32 w;
	int i;

	c.cfg = bpf_map_lookup_elem(&cfgs, &c.id);
	if (!c.cfg)
		return NULL;
	now = bpf_ktime_get_ns();

	fq_check_throttled(&c, now);
	c.in->deq_retry = 0;
	c.in->deq_skipped = 0;
	bpf_for(i, 0, FQ_DEQ_ROUNDS) {
		bool from_new;
		u32 *head, *tail, idx;

		nb = c.in->band_nr < FQ_BANDS ? c.in->band_nr : 0;
		b = band_at(c.in, nb);
		if (b->credit <= 0 || (!b->new_head && !b->old_head)) {
			/* Every band passed with credit and no flow: nothing is due. */
			if (++c.in->deq_retry > FQ_BANDS)
				break;
			nb = nb + 1 < FQ_BANDS ? nb + 1 : 0;
			c.in->band_nr = nb;
			b = band_at(c.in, nb);
			w = fq_weight(&c, nb);
			credit = (s64)b->credit + w;
			b->credit = credit < w ? credit : w;
			if (b->credit <= 0)
				c.in->deq_retry = 0;
			continue;
		}
		from_new = b->new_head;
		head = from_new ? &b->new_head : &b->old_head;
		tail = from_new ? &b->new_tail : &b->old_tail;
		idx = *head;
		f = flow_at(idx);
		if (!f)
			break;
		c.in->deq_retry = 0;
		if (f->credit <= 0) {
			/* Once a dequeue: the walk is as long as the band's lists. */
			if (!c.in->deq_skipped) {
				c.in->deq_skipped = 1;
				if (fq_skip_rounds(&c, b))
					continue;
			}
			f->credit += fq_quantum(&c);
			list_pop_head(head, tail, f);
			f->state = FQ_OLD;
			b = band_at(c.in, f->band);
			list_add_tail(&b->old_head, &b->old_tail, idx, f);
			continue;
		}
		if (!f->qlen) {
			list_pop_head(head, tail, f);
			/* Force a pass through old flows so they do not starve. */
			if (from_new && b->old_head) {
				f->state = FQ_OLD;
				list_add_tail(&b->old_head, &b->old_tail, idx, f);
			} else {
				set_idle(&c, idx, f, now);
			}
			continue;
		}
		slot = pkt_at(f->head);
		if (!slot)
			break;
		due = slot->time_to_send > f->time_next_packet ? slot->time_to_send
							       : f->time_next_packet;
		if (now < due) {
			list_pop_head(head, tail, f);
			f->time_next_packet = due;
			f->state = FQ_THROTTLED;
			c.in->stats.throttled++;
			c.in->stats.throttled_flows++;
			heap_push(c.in, idx, f);
			if (!c.in->time_next_delayed_flow || due < c.in->time_next_delayed_flow)
				c.in->time_next_delayed_flow = due;
			continue;
		}
		skb = flow_dequeue(&c, f, slot);
		if (!skb)
			continue;
		if (c.cfg->ce_threshold < FQ_CE_OFF)
			fq_ce_note(&c, sch, skb, now - due);
		f->credit -= qdisc_pkt_len(skb);
		b->credit -= qdisc_pkt_len(skb);
		if (fq_pace(&c, f, skb, qdisc_pkt_len(skb), &wait))
			fq_pace_from(f, wait, now);
		return fq_done(sch, &c, f, skb);
	}

	if (fq_listed(c.in))
		/* Out of rounds with work left: come back at once. */
		bpf_qdisc_watchdog_schedule(sch, now, 0);
	else if (c.in->heap_root)
		bpf_qdisc_watchdog_schedule(sch, c.in->time_next_delayed_flow, c.cfg->timer_slack);
	return NULL;
}

/* The fast packet's flow waits from now: it is leaving. */
static __noinline void fq_fast_pace(struct fq_inst *in)
{
	struct fq_flow *f = flow_at(in->fast_flow);

	if (f)
		fq_pace_from(f, in->fast_wait, bpf_ktime_get_ns());
}

SEC("struct_ops/fq_dequeue")
struct sk_buff *BPF_PROG(fq_dequeue, struct Qdisc *sch)
{
	struct fq_inst *in;
	struct sk_buff *skb;
	u32 id;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return NULL;
	if (!in->fast)
		return fq_dequeue_flows(sch, in, id);
	/*
	 * It arrived when nothing queued could leave before it. As in prio,
	 * everything but the statistics is settled before the exchange, so
	 * that only sch and skb outlive it.
	 */
	if (in->fast_flow)
		fq_fast_pace(in);
	sch->q.qlen--;
	sch->qstats.backlog -= in->fast_len;
	skb = bpf_kptr_xchg(&in->fast, NULL);
	/* Never NULL: the root lock keeps the slot as tested. */
	if (skb)
		bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/* Free the packets queued on flow f and give their slots back. */
static __always_inline void flow_purge(const struct fq_ctx *c, struct fq_flow *f)
{
	struct sk_buff *skb;
	int i;

	bpf_for(i, 0, FQ_MAX_PACKETS) {
		struct fq_pkt *slot;
		u32 p = f->head;

		if (!p)
			break;
		slot = pkt_at(p);
		if (!slot)
			break;
		skb = bpf_kptr_xchg(&slot->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
		f->head = slot->next;
		pkt_free(&c->in->pkt_cache, p, slot);
	}
	f->head = 0;
	f->tail = 0;
	f->qlen = 0;
	f->backlog = 0;
}

static __always_inline void reserved_init(const struct fq_ctx *c, u32 idx, u64 key, u32 owner)
{
	struct fq_flow *f = flow_at(idx);

	if (!f)
		return;
	flow_purge(c, f);
	flow_init(f, key, 0, 0, 0);
	f->owner = owner;
	f->state = owner ? FQ_IDLE : FQ_FREE;
}

/*
 * Free every queued packet, forget every flow and give every slot back to
 * the pools (the bucket blocks stay: they go with the instance).
 */
static __noinline void fq_purge(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	struct sk_buff *skb;
	u32 all;
	int i;

	skb = bpf_kptr_xchg(&in->fast, NULL);
	if (skb)
		bpf_kfree_skb(skb);
	all = fq_unchain(c);
	bpf_for(i, 0, FQ_MAX_FLOWS) {
		struct fq_flow *f;
		u32 next;

		if (!all)
			break;
		f = flow_at(all);
		if (!f)
			break;
		next = f->hnext;
		flow_purge(c, f);
		f->state = FQ_FREE;
		f->key = 0;
		f->owner = 0;
		flow_slot_free(&in->flow_cache, all, f);
		all = next;
	}
	reserved_init(c, flow_overflow(c), FQ_KEY_OVERFLOW, c->id + 1);
	__builtin_memset(in->band, 0, sizeof(in->band));
	in->band_nr = 0;
	__builtin_memset(in->stats.band_pkts, 0, sizeof(in->stats.band_pkts));
	in->idle_head = in->idle_tail = 0;
	in->heap_root = 0;
	in->time_next_delayed_flow = 0;
	in->stats.flows = 0;
	in->stats.inactive_flows = 0;
	in->stats.throttled_flows = 0;
	pools_return(in);
}

SEC("struct_ops/fq_init")
int BPF_PROG(fq_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	const struct net_device *dev = sch->dev_queue->dev;
	struct fq_pool *pl;
	struct fq_ctx c;
	u64 sch_addr;
	s64 slot;
	int i;

	/* sch's address as a number: its gso_skb list is empty, so points at itself. */
	if (bpf_probe_read_kernel(&sch_addr, sizeof(sch_addr), &sch->gso_skb.next))
		return -EINVAL;
	slot = qd_init_instance(sch, &slots, &cfgs, &pending, sizeof(struct fq_cfg));
	if (slot < 0)
		return slot;
	c.id = slot;
	c.in = bpf_map_lookup_elem(&insts, &c.id);
	c.cfg = bpf_map_lookup_elem(&cfgs, &c.id);
	if (!c.in || !c.cfg)
		return -ENOSPC;
	c.in->psched_mtu = dev->mtu + dev->hard_header_len;
	c.in->sch_addr = sch_addr - bpf_core_field_offset(struct Qdisc, gso_skb);
	/* Store what "the device's MTU" means, so show prints real values. */
	if (!c.cfg->quantum)
		c.cfg->quantum = 2 * c.in->psched_mtu;
	if (!c.cfg->initial_quantum)
		c.cfg->initial_quantum = 10 * c.in->psched_mtu;
	__builtin_memset(&c.in->stats, 0, sizeof(c.in->stats));
	for (i = 0; i < FH_WORDS + 1; i++)
		c.in->hash_key[i] = (u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
	/* A slot's state from a previous instance is gone: .destroy gave it all back. */
	__builtin_memset(&c.in->flow_cache, 0, sizeof(c.in->flow_cache));
	__builtin_memset(&c.in->pkt_cache, 0, sizeof(c.in->pkt_cache));
	c.in->block[0] = c.id;
	c.in->nblocks = 1;
	pl = fq_pool();
	if (pl)
		/* The first instance of the registration starts the flow pool. */
		__sync_val_compare_and_swap(&pl->fresh_flows, 0, flow_first());
	c.in->buckets = 0;
	fq_purge(&c);
	c.in->buckets = fq_blocks(c.in, fq_nbuckets(c.cfg));
	c.in->buckets_want = c.cfg->buckets;
	bpf_for(i, 0, FQ_MAX_BUCKETS) {
		u32 *h;

		if ((u32)i >= c.in->buckets)
			break;
		h = bucket_at(&c, i);
		if (h)
			*h = 0;
	}
	return 0;
}

/* What .reset and .destroy free (QD_QDISC_OPS_RELEASE): queues and flows. */
static __always_inline void fq_drain(struct fq_inst *in, u32 id)
{
	struct fq_ctx c = { .id = id, .in = in };

	fq_purge(&c);
}

/*
 * What only .destroy gives up: the reserved flow, left free for the next
 * instance of the slot, and the bucket blocks beyond the slot's own.
 */
static __always_inline void fq_release(struct fq_inst *in, u32 id)
{
	struct fq_ctx c = { .id = id, .in = in };

	reserved_init(&c, flow_overflow(&c), FQ_KEY_OVERFLOW, 0);
	fq_blocks(in, FQ_BLOCK);
	in->buckets = 0;
}

/*
 * Before the qdisc, on a device where an fq instance has ce_threshold:
 * CE-mark the ECN-capable packets of flows that dequeue found late.
 */
SEC("tc")
int fq_ce_mark(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct fq_ce_key k;
	struct qd_inst_hdr *h;
	struct fq_cfg *cfg;
	u32 *slot, id;

	/* Most packets cannot be marked: they cost this test only. */
	if (!qd_maybe_ect(ctx, skb))
		return TC_ACT_OK;
	fq_ce_key(&k, skb, skb->dev);
	k.flow = k.orphan ? bpf_get_hash_recalc(ctx) : bpf_get_socket_cookie(ctx);
	slot = bpf_map_lookup_elem(&ce_flows, &k);
	if (!slot)
		return TC_ACT_OK;
	/* The entry may outlive its instance, and the slot hold another since. */
	id = *slot;
	h = bpf_map_lookup_elem(&slots, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (h && cfg && h->in_use && h->place.ifindex == k.ifindex && h->place.netns == k.netns &&
	    cfg->ce_threshold < FQ_CE_OFF)
		bpf_skb_ecn_set_ce(ctx);
	return TC_ACT_OK;
}

QD_QDISC_OPS_RELEASE(fq, struct fq_inst);
