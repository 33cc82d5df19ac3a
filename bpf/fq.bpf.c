// SPDX-License-Identifier: GPL-2.0
/*
 * fq: sch_fq's fair queueing as a BPF qdisc.
 *
 * Per-flow queues served by deficit round robin (new flows first, then old
 * ones, each refilled by `quantum`), a strict-priority flow for
 * TC_PRIO_CONTROL packets, earliest-departure-time scheduling with a
 * horizon, per-flow pacing at min(maxrate, the socket's pacing rate) and
 * throttled flows woken by the qdisc watchdog.
 *
 * Unlike the kernel selftest's bpf_fq, flows never share a queue: a flow is
 * found by comparing its full key along its bucket's chain, so two flows
 * whose hashes collide get their own queues. Idle flows are collected
 * continuously, oldest first, and reclaimed early when the table is full.
 *
 * Layout (see fq.h): every structure is an ARRAY addressed by index, so
 * nothing is allocated while packets flow and every lookup is inlined.
 */
#include "common.h"
#include "fq.h"
#include "flowhash.h"

_Static_assert(sizeof(((struct fq_inst *)0)->hash_key) == (FH_WORDS + 1) * sizeof(u64),
	       "fq_inst.hash_key holds flow_hash's key");

char _license[] SEC("license") = "GPL";

#define NSEC_PER_SEC	1000000000ULL
#define FQ_GC_AGE	(3 * NSEC_PER_SEC) /* sch_fq: 3 * HZ */
#define FQ_GC_MAX	8		   /* flows collected on one chain walk */
#define FQ_HEAP_DEPTH	13		   /* > log2(FQ_FLOWS) */
#define FQ_DEQ_ROUNDS	256		   /* list steps one dequeue may take */
#define TC_PRIO_CONTROL 7
#define TC_PRIO_MAX	15

struct fq_pkt {
	struct sk_buff __kptr *skb;
	__u64 time_to_send;
	__u32 next;
	__u32 len;
};

struct fq_heap_ent {
	__u64 time;
	__u32 flow;
	__u32 pad;
};

struct fq_idle_ent {
	__u64 age;
	__u32 flow;
	__u32 pad;
};

QD_INSTANCE_MAPS(struct fq_inst, struct fq_cfg);

/* As compiled; qdiscctl sizes them for qd_cap_instances (kinds/fq.c). */
#define FQ_ALL_FLOWS   (QD_DEFAULT_INSTANCES * FQ_FLOWS)
#define FQ_ALL_PKTS    (QD_DEFAULT_INSTANCES * FQ_PKTS)
#define FQ_ALL_BUCKETS (QD_DEFAULT_INSTANCES * FQ_MAX_BUCKETS)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_ALL_FLOWS);
	__type(key, u32);
	__type(value, struct fq_flow);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_ALL_PKTS);
	__type(key, u32);
	__type(value, struct fq_pkt);
} pkts SEC(".maps");

/* Bucket heads: the first flow of each hash chain. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_ALL_BUCKETS);
	__type(key, u32);
	__type(value, u32);
} buckets SEC(".maps");

/* Throttled flows, a binary min-heap on the time their next packet is due. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_ALL_FLOWS);
	__type(key, u32);
	__type(value, struct fq_heap_ent);
} heap SEC(".maps");

/* Flows in the order they went idle, for collection oldest first. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FQ_ALL_FLOWS);
	__type(key, u32);
	__type(value, struct fq_idle_ent);
} idle SEC(".maps");

/*
 * The fast slot: one packet that found the qdisc empty and owes nothing to
 * pacing, kept outside the flow table (sch_fq's fast path, its "internal"
 * flow). Dequeue serves it first: it is the oldest packet there is.
 */
struct fq_fast {
	struct sk_buff __kptr *skb;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_DEFAULT_INSTANCES);
	__type(key, u32);
	__type(value, struct fq_fast);
} fast SEC(".maps");

/* Everything an op needs about its instance. */
struct fq_ctx {
	u32 id;
	struct fq_inst *in;
	struct fq_cfg *cfg;
};

static __always_inline struct fq_flow *flow_at(const struct fq_ctx *c, u32 idx)
{
	u32 key = c->id * FQ_FLOWS + (idx & (FQ_FLOWS - 1));

	return bpf_map_lookup_elem(&flows, &key);
}

static __always_inline struct fq_pkt *pkt_at(const struct fq_ctx *c, u32 idx)
{
	u32 key = c->id * FQ_PKTS + (idx & (FQ_PKTS - 1));

	return bpf_map_lookup_elem(&pkts, &key);
}

static __always_inline u32 *bucket_at(const struct fq_ctx *c, u32 b)
{
	u32 key = c->id * FQ_MAX_BUCKETS + (b & (FQ_MAX_BUCKETS - 1));

	return bpf_map_lookup_elem(&buckets, &key);
}

static __always_inline struct fq_heap_ent *heap_at(const struct fq_ctx *c, u32 i)
{
	u32 key = c->id * FQ_FLOWS + (i & (FQ_FLOWS - 1));

	return bpf_map_lookup_elem(&heap, &key);
}

static __always_inline struct fq_idle_ent *idle_at(const struct fq_ctx *c, u32 i)
{
	u32 key = c->id * FQ_FLOWS + (i & (FQ_FLOWS - 1));

	return bpf_map_lookup_elem(&idle, &key);
}

static __always_inline bool fq_get(struct Qdisc *sch, struct fq_ctx *c)
{
	c->id = qd_slot(sch);
	c->in = bpf_map_lookup_elem(&insts, &c->id);
	c->cfg = bpf_map_lookup_elem(&cfgs, &c->id);
	return c->in && c->cfg;
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

static __always_inline u32 fq_quantum(const struct fq_ctx *c)
{
	return c->cfg->quantum ?: 2 * c->in->psched_mtu;
}

static __always_inline u32 fq_initial_quantum(const struct fq_ctx *c)
{
	return c->cfg->initial_quantum ?: 10 * c->in->psched_mtu;
}

static __always_inline u32 fq_nbuckets(const struct fq_cfg *cfg)
{
	u32 n = cfg->buckets;

	/* qdiscctl only writes powers of two; anything else gets the most. */
	if (!n || n > FQ_MAX_BUCKETS || (n & (n - 1)))
		return FQ_MAX_BUCKETS;
	return n;
}

static __always_inline u32 fq_bucket_of(u64 key, u32 nbuckets)
{
	return (u32)((key * 0x61C8864680B583EBULL) >> 32) & (nbuckets - 1);
}

/* The new and old lists: singly linked through lnext, with head and tail. */
static __always_inline void list_add_tail(const struct fq_ctx *c, u32 *head, u32 *tail, u32 idx,
					  struct fq_flow *f)
{
	struct fq_flow *t;

	f->lnext = 0;
	if (*tail && (t = flow_at(c, *tail)))
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

static __always_inline void set_idle(const struct fq_ctx *c, u32 idx, struct fq_flow *f, u64 now)
{
	struct fq_inst *in = c->in;
	struct fq_idle_ent *e;

	f->state = FQ_IDLE;
	f->age = now;
	in->stats.inactive_flows++;
	if (idx < FQ_FLOW_FIRST)
		return;
	/* A full ring forgets its oldest entry; chain walks still collect it. */
	if (in->idle_tail - in->idle_head >= FQ_FLOWS)
		in->idle_head++;
	e = idle_at(c, in->idle_tail);
	if (!e)
		return;
	e->age = now;
	e->flow = idx;
	in->idle_tail++;
}

static __always_inline void heap_push(const struct fq_ctx *c, u64 time, u32 flow)
{
	struct fq_inst *in = c->in;
	struct fq_heap_ent *e, *p;
	u32 i = in->heap_len, parent;
	int step;

	if (i >= FQ_FLOWS)
		return;
	in->heap_len++;
	bpf_for(step, 0, FQ_HEAP_DEPTH) {
		if (!i)
			break;
		parent = (i - 1) / 2;
		p = heap_at(c, parent);
		e = heap_at(c, i);
		if (!p || !e || p->time <= time)
			break;
		*e = *p;
		i = parent;
	}
	e = heap_at(c, i);
	if (e) {
		e->time = time;
		e->flow = flow;
	}
}

static __always_inline void heap_pop(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	struct fq_heap_ent last, *e, *l, *r, *m;
	u32 i = 0, len;
	int step;

	if (!in->heap_len)
		return;
	len = --in->heap_len;
	e = heap_at(c, len);
	if (!e || !len)
		return;
	last = *e;
	bpf_for(step, 0, FQ_HEAP_DEPTH) {
		u32 child = 2 * i + 1;

		if (child >= len)
			break;
		l = heap_at(c, child);
		r = heap_at(c, child + 1);
		if (!l || !r)
			break;
		m = l;
		if (child + 1 < len && r->time < l->time) {
			m = r;
			child++;
		}
		if (m->time >= last.time)
			break;
		e = heap_at(c, i);
		if (!e)
			break;
		*e = *m;
		i = child;
	}
	e = heap_at(c, i);
	if (e)
		*e = last;
}

/* Move flows whose time has come from the heap to the old list. */
static __always_inline void fq_check_throttled(const struct fq_ctx *c, u64 now)
{
	struct fq_inst *in = c->in;
	struct fq_heap_ent *top;
	struct fq_flow *f;
	int i;

	if (!in->heap_len || in->time_next_delayed_flow > now)
		return;
	/* sch_fq's EWMA of how late the watchdog woke us. */
	if (in->time_next_delayed_flow) {
		u64 sample = now - in->time_next_delayed_flow;

		in->stats.unthrottle_latency_ns -= in->stats.unthrottle_latency_ns >> 3;
		in->stats.unthrottle_latency_ns += sample >> 3;
	}
	in->time_next_delayed_flow = 0;
	bpf_for(i, 0, FQ_FLOWS) {
		u32 idx;

		if (!in->heap_len)
			break;
		top = heap_at(c, 0);
		if (!top)
			break;
		if (top->time > now) {
			in->time_next_delayed_flow = top->time;
			break;
		}
		idx = top->flow;
		heap_pop(c);
		f = flow_at(c, idx);
		if (!f || f->state != FQ_THROTTLED)
			continue;
		f->state = FQ_OLD;
		in->stats.throttled_flows--;
		list_add_tail(c, &in->old_head, &in->old_tail, idx, f);
	}
}

static __always_inline void flow_free(const struct fq_ctx *c, u32 idx, struct fq_flow *f)
{
	struct fq_inst *in = c->in;

	if (f->state == FQ_IDLE)
		in->stats.inactive_flows--;
	f->state = FQ_FREE;
	f->key = 0;
	f->hnext = in->free_flow;
	in->free_flow = idx;
	in->stats.flows--;
}

/* Take idle flow idx out of its bucket's chain and free it. */
static __always_inline bool flow_reclaim(const struct fq_ctx *c, u32 idx)
{
	struct fq_flow *f = flow_at(c, idx), *p;
	u32 *head, cur, prev = 0;
	int i;

	if (!f || f->state != FQ_IDLE || f->qlen || idx < FQ_FLOW_FIRST)
		return false;
	head = bucket_at(c, f->bucket);
	if (!head)
		return false;
	cur = *head;
	bpf_for(i, 0, FQ_FLOWS) {
		if (!cur)
			break;
		if (cur == idx) {
			if (!prev) {
				*head = f->hnext;
			} else {
				p = flow_at(c, prev);
				if (!p)
					return false;
				p->hnext = f->hnext;
			}
			flow_free(c, idx, f);
			return true;
		}
		p = flow_at(c, cur);
		if (!p)
			break;
		prev = cur;
		cur = p->hnext;
	}
	return false;
}

/*
 * Collect from the idle ring: flows idle for FQ_GC_AGE, or with force the
 * oldest idle flow whatever its age (the table is full). Entries of flows
 * that became active again, or idle again later, are stale and skipped.
 */
static __always_inline u32 fq_gc_ring(const struct fq_ctx *c, u64 now, bool force, int budget)
{
	struct fq_inst *in = c->in;
	u32 freed = 0;
	int i;

	/* Most packets find nothing to collect: spare them the loop's setup. */
	if (in->idle_head == in->idle_tail)
		return 0;
	bpf_for(i, 0, budget) {
		struct fq_idle_ent *e;
		struct fq_flow *f;
		u32 idx;

		if (in->idle_head == in->idle_tail)
			break;
		e = idle_at(c, in->idle_head);
		if (!e)
			break;
		if (!force && now - e->age < FQ_GC_AGE)
			break;
		idx = e->flow;
		in->idle_head++;
		f = flow_at(c, idx);
		if (!f || f->state != FQ_IDLE || f->age != e->age)
			continue;
		if (flow_reclaim(c, idx)) {
			freed = idx;
			in->stats.gc_flows++;
			break;
		}
	}
	return freed;
}

/* Free some idle flow of the table, searching on from the last search. */
static __always_inline bool fq_reclaim_scan(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	int i;

	bpf_for(i, 0, 512) {
		u32 idx = FQ_FLOW_FIRST + in->reclaim_pos++ % (FQ_FLOWS - FQ_FLOW_FIRST);
		struct fq_flow *f = flow_at(c, idx);

		if (f && f->state == FQ_IDLE && !f->qlen && flow_reclaim(c, idx)) {
			in->stats.gc_flows++;
			return true;
		}
	}
	return false;
}

static __always_inline u32 flow_alloc(const struct fq_ctx *c, u64 now)
{
	struct fq_inst *in = c->in;
	struct fq_flow *f;
	u32 idx;

	if (in->free_flow) {
		idx = in->free_flow;
		f = flow_at(c, idx);
		if (!f)
			return 0;
		in->free_flow = f->hnext;
		return idx;
	}
	if (in->next_flow < FQ_FLOWS)
		return in->next_flow++;
	/*
	 * Full: the flow idle the longest gives its slot up early. The ring
	 * may have forgotten it (flows that go idle again and again push
	 * entries out), so else the table itself is searched for an idle flow.
	 */
	if (!fq_gc_ring(c, now, true, 64) && !fq_reclaim_scan(c))
		return 0;
	idx = in->free_flow;
	f = flow_at(c, idx);
	if (!f)
		return 0;
	in->free_flow = f->hnext;
	return idx;
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
	f->pkts = 0;
	f->bytes = 0;
	f->drops = 0;
	f->state = FQ_FREE;
	f->age = now;
}

/*
 * The flow of skb: the socket for local traffic, the masked packet hash for
 * packets without one, listeners and time-wait sockets, and unconnected
 * UDP sockets (sch_fq's rules). Returns the flow's index, 0 when the table
 * has no room; *fp is the flow when this found or made it, else NULL.
 */
static __always_inline u32 fq_classify(const struct fq_ctx *c, struct Qdisc *sch,
				       struct sk_buff *skb, u64 now, struct fq_flow **fp)
{
	struct fq_inst *in = c->in;
	struct sock *sk = skb->sk;
	u32 socket_hash = 0, nb, b, cur, idx = 0, prev = 0, gc = 0;
	struct fq_flow *f, *p, *found = NULL;
	bool crowded = false;
	u64 key;
	u32 *head;
	int i;

	*fp = NULL;
	if ((skb->priority & TC_PRIO_MAX) == TC_PRIO_CONTROL) {
		in->stats.highprio_packets++;
		return FQ_FLOW_PRIO;
	}
	if (sk && !fq_sk_flow(sk))
		sk = NULL;
	if (sk) {
		/*
		 * sch_fq keys by the socket's address. The verifier keeps a
		 * pointer a pointer through any cast, but the difference of two
		 * is a number (for a program with CAP_PERFMON): the socket's
		 * distance from sch plus sch's address, read once in .init.
		 */
		key = (u64)sk - (u64)sch + in->sch_addr;
		socket_hash = sk->__sk_common.skc_hash;
	} else {
		key = ((u64)(flow_hash(skb, c->in->hash_key) & c->cfg->orphan_mask) << 1) | 1;
	}

	nb = fq_nbuckets(c->cfg);
	b = fq_bucket_of(key, nb);
	head = bucket_at(c, b);
	if (!head)
		return 0;
	cur = *head;
	bpf_for(i, 0, FQ_FLOWS) {
		u32 next;

		if (!cur)
			break;
		f = flow_at(c, cur);
		if (!f)
			break;
		next = f->hnext;
		if (f->key == key) {
			found = f;
			idx = cur;
			break;
		}
		/* Collect what this walk passes, as sch_fq does. */
		if (f->state == FQ_IDLE && !f->qlen && now - f->age > FQ_GC_AGE && gc < FQ_GC_MAX) {
			if (!prev) {
				*head = next;
			} else {
				p = flow_at(c, prev);
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
		/* The socket was freed and its memory reused by another one. */
		if (sk && found->socket_hash != socket_hash) {
			found->socket_hash = socket_hash;
			found->credit = fq_initial_quantum(c);
			found->time_next_packet = 0;
		}
		*fp = found;
		return idx;
	}

	idx = flow_alloc(c, now);
	f = idx ? flow_at(c, idx) : NULL;
	if (!f) {
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
	f->bucket = b;
	f->hnext = *head;
	*head = idx;
	in->stats.flows++;
	/* Idle until the caller queues to it; no ring entry, it is not old. */
	f->state = FQ_IDLE;
	in->stats.inactive_flows++;
	*fp = f;
	return idx;
}

/* Re-chain every flow after `buckets` changed. */
static __always_inline void fq_rehash(const struct fq_ctx *c)
{
	u32 nb = fq_nbuckets(c->cfg);
	int i;

	bpf_for(i, 0, FQ_MAX_BUCKETS) {
		u32 *h = bucket_at(c, i);

		if (h)
			*h = 0;
	}
	bpf_for(i, FQ_FLOW_FIRST, FQ_FLOWS) {
		struct fq_flow *f;
		u32 *h;

		if ((u32)i >= c->in->next_flow)
			break;
		f = flow_at(c, i);
		if (!f || f->state == FQ_FREE)
			continue;
		f->bucket = fq_bucket_of(f->key, nb);
		h = bucket_at(c, f->bucket);
		if (!h)
			continue;
		f->hnext = *h;
		*h = i;
	}
	c->in->buckets = nb;
}

/*
 * Whether skb, which found the qdisc empty, may take the fast slot (sch_fq's
 * fq_fastpath_check for an empty qdisc): it is not a TC_PRIO_CONTROL
 * packet, it is due, and no rate applies to its flow (pacing delays a flow
 * only at a finite maxrate or socket pacing rate), so that its flow's queue,
 * credit and pacing state could not have held it back.
 */
static __always_inline bool fq_fast_ok(const struct fq_ctx *c, struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	u64 now;

	if ((skb->priority & TC_PRIO_MAX) == TC_PRIO_CONTROL || c->cfg->maxrate != ~0ULL)
		return false;
	if (c->cfg->pacing && sk && fq_sk_flow(sk) && sk->sk_pacing_rate != ~0UL)
		return false;
	if (!skb->tstamp)
		return true;
	now = bpf_ktime_get_ns();
	return qd_time_to_send(skb, now) <= now;
}

SEC("struct_ops/fq_enqueue")
int BPF_PROG(fq_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	u32 len = qdisc_pkt_len(skb), idx, p;
	struct fq_ctx c;
	struct fq_flow *f;
	struct fq_pkt *slot, *tp;
	u64 now, tts;

	if (!fq_get(sch, &c) || sch->q.qlen >= c.cfg->limit)
		goto drop;
	if (!sch->q.qlen && fq_fast_ok(&c, skb)) {
		struct fq_fast *fs = bpf_map_lookup_elem(&fast, &c.id);

		if (!fs)
			goto drop;
		skb = bpf_kptr_xchg(&fs->skb, skb);
		if (skb)
			/* Cannot happen: the qdisc was empty. */
			bpf_qdisc_skb_drop(skb, to_free);
		c.in->fast = 1;
		sch->q.qlen++;
		sch->qstats.backlog += len;
		return NET_XMIT_SUCCESS;
	}
	now = bpf_ktime_get_ns();
	if (c.in->buckets != fq_nbuckets(c.cfg))
		fq_rehash(&c);
	fq_gc_ring(&c, now, false, 2);

	tts = qd_time_to_send(skb, now);
	if (tts > now + c.cfg->horizon) {
		if (c.cfg->horizon_drop) {
			c.in->stats.horizon_drops++;
			goto drop;
		}
		tts = now + c.cfg->horizon;
		c.in->stats.horizon_caps++;
	}

	idx = fq_classify(&c, sch, skb, now, &f) ?: FQ_FLOW_OVERFLOW;
	if (!f)
		f = flow_at(&c, idx);
	if (!f)
		goto drop;
	if (idx != FQ_FLOW_PRIO && f->qlen >= c.cfg->flow_limit) {
		c.in->stats.flows_plimit++;
		f->drops++;
		goto drop;
	}

	if (c.in->free_pkt) {
		p = c.in->free_pkt;
		slot = pkt_at(&c, p);
		if (!slot)
			goto drop;
		c.in->free_pkt = slot->next;
	} else if (c.in->next_pkt <= FQ_PKTS) {
		p = c.in->next_pkt++;
		slot = pkt_at(&c, p);
		if (!slot)
			goto drop;
	} else {
		c.in->stats.allocation_errors++;
		goto drop;
	}
	slot->time_to_send = tts;
	slot->len = len;
	slot->next = 0;
	skb = bpf_kptr_xchg(&slot->skb, skb);
	if (skb) {
		/* Cannot happen: the slot was free. Never leak what was there. */
		bpf_qdisc_skb_drop(skb, to_free);
	}
	if (f->tail && (tp = pkt_at(&c, f->tail)))
		tp->next = p;
	else
		f->head = p;
	f->tail = p;
	f->qlen++;
	f->backlog += len;
	sch->q.qlen++;
	sch->qstats.backlog += len;

	if (f->state == FQ_IDLE && idx != FQ_FLOW_PRIO) {
		c.in->stats.inactive_flows--;
		f->state = FQ_NEW;
		list_add_tail(&c, &c.in->new_head, &c.in->new_tail, idx, f);
		if (now - f->age > c.cfg->refill_delay && f->credit < (s32)fq_quantum(&c))
			f->credit = fq_quantum(&c);
	}
	return NET_XMIT_SUCCESS;

drop:
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* Take the head packet of flow f from its slot. */
static __always_inline struct sk_buff *flow_dequeue(const struct fq_ctx *c, struct fq_flow *f,
						    struct fq_pkt *slot)
{
	struct sk_buff *skb;
	u32 p = f->head;

	skb = bpf_kptr_xchg(&slot->skb, NULL);
	f->head = slot->next;
	if (!f->head)
		f->tail = 0;
	slot->next = c->in->free_pkt;
	c->in->free_pkt = p;
	f->qlen--;
	f->backlog -= slot->len;
	return skb;
}

/* sch_fq's pacing, with the socket's rate applied whatever the skb's EDT:
 * TCP only paces itself for sch_fq, which a BPF qdisc cannot tell it is.
 */
static __always_inline void fq_pace(const struct fq_ctx *c, struct fq_flow *f, struct sk_buff *skb,
				    u32 plen, u64 now)
{
	u64 rate = c->cfg->maxrate, len;
	struct sock *sk = skb->sk;

	if (!c->cfg->pacing)
		return;
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
			return;
	}
	if (rate == ~0ULL)
		return;
	len = (u64)plen * NSEC_PER_SEC;
	len = rate ? len / rate : NSEC_PER_SEC;
	if (len > NSEC_PER_SEC) {
		len = NSEC_PER_SEC;
		c->in->stats.pkts_too_long++;
	}
	/* Make up for the watchdog's slack, as sch_fq does. */
	if (f->time_next_packet && now > f->time_next_packet) {
		u64 late = now - f->time_next_packet;

		len -= late < len / 2 ? late : len / 2;
	}
	f->time_next_packet = now + len;
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

SEC("struct_ops/fq_dequeue")
struct sk_buff *BPF_PROG(fq_dequeue, struct Qdisc *sch)
{
	struct sk_buff *skb = NULL;
	struct fq_ctx c;
	struct fq_flow *f;
	struct fq_pkt *slot;
	u64 now, due;
	int i;

	if (!sch->q.qlen)
		return NULL;
	c.id = qd_slot(sch);
	c.in = bpf_map_lookup_elem(&insts, &c.id);
	if (!c.in)
		return NULL;
	if (c.in->fast) {
		struct fq_fast *fs = bpf_map_lookup_elem(&fast, &c.id);

		c.in->fast = 0;
		skb = fs ? bpf_kptr_xchg(&fs->skb, NULL) : NULL;
		if (skb) {
			sch->q.qlen--;
			sch->qstats.backlog -= qdisc_pkt_len(skb);
			bpf_qdisc_bstats_update(sch, skb);
			return skb;
		}
	}
	c.cfg = bpf_map_lookup_elem(&cfgs, &c.id);
	if (!c.cfg)
		return NULL;
	now = bpf_ktime_get_ns();

	f = flow_at(&c, FQ_FLOW_PRIO);
	if (f && f->qlen && (slot = pkt_at(&c, f->head))) {
		skb = flow_dequeue(&c, f, slot);
		if (skb)
			return fq_done(sch, &c, f, skb);
	}

	fq_check_throttled(&c, now);
	bpf_for(i, 0, FQ_DEQ_ROUNDS) {
		bool from_new = c.in->new_head;
		u32 *head = from_new ? &c.in->new_head : &c.in->old_head;
		u32 *tail = from_new ? &c.in->new_tail : &c.in->old_tail;
		u32 idx = *head;

		if (!idx)
			break;
		f = flow_at(&c, idx);
		if (!f)
			break;
		if (f->credit <= 0) {
			f->credit += fq_quantum(&c);
			list_pop_head(head, tail, f);
			f->state = FQ_OLD;
			list_add_tail(&c, &c.in->old_head, &c.in->old_tail, idx, f);
			continue;
		}
		if (!f->qlen) {
			list_pop_head(head, tail, f);
			/* Force a pass through old flows so they do not starve. */
			if (from_new && c.in->old_head) {
				f->state = FQ_OLD;
				list_add_tail(&c, &c.in->old_head, &c.in->old_tail, idx, f);
			} else {
				set_idle(&c, idx, f, now);
			}
			continue;
		}
		slot = pkt_at(&c, f->head);
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
			heap_push(&c, due, idx);
			if (!c.in->time_next_delayed_flow || due < c.in->time_next_delayed_flow)
				c.in->time_next_delayed_flow = due;
			continue;
		}
		skb = flow_dequeue(&c, f, slot);
		if (!skb)
			continue;
		f->credit -= qdisc_pkt_len(skb);
		fq_pace(&c, f, skb, qdisc_pkt_len(skb), now);
		return fq_done(sch, &c, f, skb);
	}

	if (c.in->new_head || c.in->old_head)
		/* Out of rounds with work left: come back at once. */
		bpf_qdisc_watchdog_schedule(sch, now, 0);
	else if (c.in->heap_len)
		bpf_qdisc_watchdog_schedule(sch, c.in->time_next_delayed_flow, c.cfg->timer_slack);
	return NULL;
}

/* Free every queued packet and forget every flow. */
static __always_inline void fq_purge(const struct fq_ctx *c)
{
	struct fq_inst *in = c->in;
	struct fq_fast *fs;
	struct sk_buff *skb;
	int i;

	fs = bpf_map_lookup_elem(&fast, &c->id);
	skb = fs ? bpf_kptr_xchg(&fs->skb, NULL) : NULL;
	if (skb)
		bpf_kfree_skb(skb);
	in->fast = 0;
	bpf_for(i, 1, FQ_PKTS + 1) {
		struct fq_pkt *slot;

		if ((u32)i >= in->next_pkt)
			break;
		slot = pkt_at(c, i);
		if (!slot)
			continue;
		skb = bpf_kptr_xchg(&slot->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
	}
	bpf_for(i, 0, FQ_MAX_BUCKETS) {
		u32 *h = bucket_at(c, i);

		if (h)
			*h = 0;
	}
	in->new_head = in->new_tail = 0;
	in->old_head = in->old_tail = 0;
	in->free_flow = 0;
	in->next_flow = FQ_FLOW_FIRST;
	in->free_pkt = 0;
	in->next_pkt = 1;
	in->heap_len = 0;
	in->idle_head = in->idle_tail = 0;
	in->time_next_delayed_flow = 0;
	in->stats.flows = 0;
	in->stats.inactive_flows = 0;
	in->stats.throttled_flows = 0;
	bpf_for(i, 1, FQ_FLOW_FIRST) {
		struct fq_flow *f = flow_at(c, i);

		if (f) {
			flow_init(f, 0, 0, 0, 0);
			f->state = FQ_IDLE;
		}
	}
}

SEC("struct_ops/fq_init")
int BPF_PROG(fq_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	const struct net_device *dev = sch->dev_queue->dev;
	struct fq_ctx c;
	u64 sch_addr;
	s64 slot;
	int i;

	/* sch's address as a number: its gso_skb list is empty, so points at itself. */
	if (bpf_probe_read_kernel(&sch_addr, sizeof(sch_addr), &sch->gso_skb.next))
		return -EINVAL;
	slot = qd_init_instance(sch, &insts, &cfgs, &pending, sizeof(struct fq_cfg));
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
	fq_purge(&c);
	c.in->buckets = fq_nbuckets(c.cfg);
	sch->limit = c.id + 1;
	return 0;
}

SEC("struct_ops/fq_reset")
void BPF_PROG(fq_reset, struct Qdisc *sch)
{
	struct fq_ctx c;

	if (!fq_get(sch, &c))
		return;
	fq_purge(&c);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

SEC("struct_ops/fq_destroy")
void BPF_PROG(fq_destroy, struct Qdisc *sch)
{
	struct fq_ctx c;

	if (!fq_get(sch, &c))
		return;
	fq_purge(&c);
	qd_release(&c.in->hdr);
}

/* The kind's id is set by qdiscctl from its descriptor. */
SEC(".struct_ops.link")
struct Qdisc_ops fq = {
	.enqueue = (void *)fq_enqueue,
	.dequeue = (void *)fq_dequeue,
	.init = (void *)fq_init,
	.reset = (void *)fq_reset,
	.destroy = (void *)fq_destroy,
};
