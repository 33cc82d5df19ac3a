// SPDX-License-Identifier: GPL-2.0
/*
 * edt: an aggregate rate limiter by earliest departure time, in the lineage
 * of the kernel's HBM sample.
 *
 * The link has a virtual clock that advances by len/rate as packets leave
 * (allowed to lag `burst` behind now after idle time): dequeue sends only
 * when it is due, and the watchdog wakes the queue for the next packet.
 *
 * Packets of local sockets in a cgroup given its own rate (the socket's
 * cgroup or its nearest ancestor with an entry) form a class with a clock
 * of that rate, kept the same way: a class packet may leave when both its
 * class and the link allow. A class with a ceil above its rate has a
 * second clock at the ceil: when its rate's clock holds its head but the
 * ceil's does not, the packet may borrow the link's spare time, which
 * goes to the lowest prio among such classes, and within a prio to the
 * one with the least borrowed bytes / weight since it last had to wait
 * (start-time fair queueing, the way htb's DRR lends by quantum). Every
 * clock runs at dequeue, so a rate or ceil changed live applies to the
 * packets already queued. Any packet waits for its sender's EDT stamp
 * (TCP's pacing, SO_TXTIME), if it has one.
 * Each class is a FIFO in time order: a list of slots of the packet pool
 * every instance of the registration shares (pool.h), so an instance
 * holds slots only for the packets it queues, plus at most two batches of
 * free ones; a packet that finds the qdisc empty and due takes a fast
 * slot of its instance instead (edt_fast_ok). Dequeue sends a cgroup
 * packet its rate lets go first, else a default one its default_rate
 * (unlimited unless set) lets go, else a borrowing one: a cgroup gets its
 * rate while the link has room for the sum of them, and the rest goes to
 * the default class, or is lent. The link clock counts a packet when it
 * leaves, never while its class holds it, so a slow class neither wastes
 * nor borrows the link's time.
 *
 * At enqueue the delay a packet will see is estimated from the link clock
 * and what is queued ahead of it (for a cgroup's class, only what its rate
 * lets out in that time).
 *
 * Instead of a queue limit the delay decides: a packet scheduled more than
 * `horizon` ahead is dropped, unless its TCP flow has fewer than
 * `min_inflight` packets in flight (so no flow starves) or, with
 * `backpressure`, it belongs to a local socket: such a socket is charged for
 * its queued packets and blocks on its send buffer, which is the
 * backpressure a drop would throw away. Beyond `ce_threshold` a TCP sender
 * gets NET_XMIT_CN, which makes it cut its window, instead of a drop.
 *
 * A BPF qdisc cannot write packet data, so ECN-capable packets get their CE
 * mark from edt_ce_mark, a tcx egress program qdiscctl attaches to the
 * device with the qdisc: it runs just before the qdisc, reads the
 * instance's clock and marks packets the qdisc will schedule past
 * ce_threshold. Those are not told twice: CE-marked packets get no CN.
 */
#include "common.h"
#include <bpf/bpf_endian.h>
#include "ecn.h"
#include "edt.h"
#include "pool.h"

char _license[] SEC("license") = "GPL";

#define NSEC_PER_SEC   1000000000ULL
#define RATE_WINDOW_NS (100 * 1000 * 1000ULL)
#define IPPROTO_TCP    6
#define SOCK_STREAM    1

#define TC_H_ROOT 0xFFFFFFFFU

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;

/* The registration's capacities besides instances (kinds/edt.c). */
QD_CAP(packets, EDT_DEF_PACKETS);
QD_CAP(cgroups, EDT_DEF_CGROUPS);

/* A packet slot of the pool: 24 bytes. */
struct edt_slot {
	struct sk_buff __kptr *skb;
	__u64 time_to_send;
	__u32 next; /* the next packet of its class, or of a free chain */
	__u32 len;  /* free: the length of the chain it heads */
};

QD_INSTANCE_MAPS(struct edt_inst, struct edt_cfg);

/*
 * Packet slots 1 .. packets, shared by every instance; 0 means "none". As
 * compiled, for the default capacity; qdiscctl sizes both maps from it
 * (kinds/edt.c, edt_map_entries).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 + EDT_DEF_PACKETS);
	__type(key, u32);
	__type(value, struct edt_slot);
} pkts SEC(".maps");

/*
 * Each instance's fast slot (edt_fast_ok), a map of its own: global
 * functions take edt_inst, and the verifier lets no kptr reach one.
 */
struct edt_fast {
	struct sk_buff __kptr *skb;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_DEFAULT_INSTANCES);
	__type(key, u32);
	__type(value, struct edt_fast);
} fast SEC(".maps");

/* Heads of chains of free packet slots, given back by instances. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, EDT_DEF_PACKETS);
	__type(value, u32);
} pkt_pool SEC(".maps");

/* Packet slots never handed out yet start here; instances take them by atomic adds. */
__u64 edt_fresh_pkts;

/*
 * Cgroup entries of every instance: (the options' cgset, cgroup id) to
 * the entry's options, written by qdiscctl before the options that name
 * the set, and deleted once no options do. Not preallocated: an element
 * deleted stays readable until the programs that looked it up are done.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EDT_DEF_CGROUPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct qd_entry_key);
	__type(value, struct edt_cgroup);
} cgroups SEC(".maps");

/* The same entries by their place in the set, which qdiscctl lists them by. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EDT_DEF_CGROUPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct qd_entry_pos);
	__type(value, struct edt_cgroup);
} cgroup_list SEC(".maps");

/*
 * Classes of cgroup entries, 1 .. cgroups, shared by every instance (0
 * means none): one for each (instance, cgroup) that has sent, taken at its
 * first packet and given back when its instance goes, or when its entry is
 * gone and it holds no packet.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 + EDT_DEF_CGROUPS);
	__type(key, u32);
	__type(value, struct edt_class);
} cls SEC(".maps");

/* (instance slot, cgroup id) to its class. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EDT_DEF_CGROUPS);
	__type(key, struct qd_entry_key);
	__type(value, u32);
} class_of SEC(".maps");

/*
 * The registration's cache of sockets' cgroups (edt.h): one bucket a
 * class of the capacity "cgroups", which qdiscctl sizes it for.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EDT_DEF_CGROUPS);
	__type(key, u32);
	__type(value, struct edt_cgc_bucket);
} cgc SEC(".maps");

/* Classes given back. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, EDT_DEF_CGROUPS);
	__type(value, u32);
} cls_pool SEC(".maps");

/* Classes never handed out yet start here. */
__u64 edt_fresh_cls;

static __always_inline struct edt_class *cls_at(u32 idx)
{
	return bpf_map_lookup_elem(&cls, &idx);
}

static __always_inline struct edt_slot *pkt_at(u32 idx)
{
	return bpf_map_lookup_elem(&pkts, &idx);
}

QD_POOL(pkt, struct edt_slot, pkt_at, pkt_pool, &edt_fresh_pkts, qd_cap_packets, 1, EDT_PKT_BATCH,
	next, len)

/* The socket of a local flow, or NULL; *tcp when it is a TCP one. */
static __always_inline const struct sock *local_sock(const struct sk_buff *skb, bool *tcp)
{
	const struct sock *sk = skb->sk;
	u8 state;

	*tcp = false;
	if (!sk)
		return NULL;
	state = sk->__sk_common.skc_state;
	if (state == TCP_LISTEN || state == TCP_NEW_SYN_RECV || state == TCP_TIME_WAIT)
		return NULL;
	*tcp = sk->sk_protocol == IPPROTO_TCP && sk->sk_type == SOCK_STREAM;
	return sk;
}

/*
 * The entry of a local socket's packet: the one of the nearest cgroup,
 * the socket's own or an ancestor, that has one; else NULL. One lookup a
 * level, whatever the number of entries.
 */
static __always_inline const struct edt_cgroup *edt_entry_of(const struct sock *sk,
							     const struct edt_cfg *cfg)
{
	struct qd_entry_key key = {};
	const struct edt_cgroup *e;
	const struct cgroup *cg;
	int d;

	if (!sk)
		return NULL;
	key.set = cfg->cgset;
	if (!key.set)
		return NULL;
	cg = sk->sk_cgrp_data.cgroup;
	/* An open-coded iterator, not a bounded loop: the verifier sees the body once. */
	bpf_for(d, 0, EDT_CGROUP_DEPTH) {
		if (!cg)
			break;
		key.id = cg->kn->id;
		e = bpf_map_lookup_elem(&cgroups, &key);
		if (e)
			return e;
		/* A cgroup's css is its first member, so the parent css is the parent. */
		cg = bpf_rdonly_cast(cg->self.parent, bpf_core_type_id_kernel(struct cgroup));
	}
	return NULL;
}

/* The class of cgroup id in instance slot, or 0 when it has none yet. */
static __always_inline u32 class_find(u32 slot, u64 id)
{
	struct qd_entry_key key = { .set = slot, .id = id };
	u32 *c = bpf_map_lookup_elem(&class_of, &key);

	return c ? *c : 0;
}

/*
 * A new class for cgroup id in instance slot, on the instance's list of
 * classes: its index, or 0 when the pool has none. A global function, as
 * the other walks of classes: called from enqueue, it keeps its own
 * registers.
 */
__noinline u32 class_new(struct edt_inst *in, u32 slot, u64 id, u64 now)
{
	struct qd_entry_key key = { .set = slot, .id = id };
	struct edt_class *q, *h;
	u64 n;
	u32 c;

	if (!in)
		return 0;
	if (bpf_map_pop_elem(&cls_pool, &c)) {
		n = __sync_fetch_and_add(&edt_fresh_cls, 1);
		if (n >= qd_cap_cgroups)
			return 0;
		c = 1 + n;
	}
	q = cls_at(c);
	if (!q)
		return 0;
	__builtin_memset(q, 0, sizeof(*q));
	q->id = id;
	q->win_start = now;
	if (bpf_map_update_elem(&class_of, &key, &c, BPF_NOEXIST)) {
		bpf_map_push_elem(&cls_pool, &c, 0);
		return 0;
	}
	q->owner = slot + 1;
	q->next = in->cls_head;
	h = cls_at(in->cls_head);
	if (h && in->cls_head)
		h->prev = c;
	in->cls_head = c;
	return c;
}

/* Give class c, q, of instance slot back to the pool; it holds no packet. */
static __always_inline void class_free(struct edt_inst *in, u32 slot, u32 c, struct edt_class *q)
{
	struct qd_entry_key key = { .set = slot, .id = q->id };
	struct edt_class *o;

	if ((o = cls_at(q->prev)) && q->prev)
		o->next = q->next;
	else
		in->cls_head = q->next;
	if ((o = cls_at(q->next)) && q->next)
		o->prev = q->prev;
	q->owner = 0;
	bpf_map_delete_elem(&class_of, &key);
	bpf_map_push_elem(&cls_pool, &c, 0);
}

/*
 * cfgs may hold any value (any program with the pinned map can write
 * one): what edt reads from it is clamped to its option's range where
 * used, and no arithmetic on it can overflow.
 */
static __always_inline u64 cfg_rate(u64 rate)
{
	/* Instances tc made without qdiscctl have no rate: they only keep EDT. */
	return rate ?: ~0ULL;
}

static __always_inline u64 cfg_min(u64 v, u64 max)
{
	return v < max ? v : max;
}

/* A class's options, clamped. */
struct edt_par {
	u64 rate, ceil, burst;
	u32 prio, weight;
};

/*
 * The options of a cgroup's class from its entry e; of the default class
 * when e is NULL. A class whose entry is gone (all zero) drains unlimited.
 */
static __always_inline void class_par(const struct edt_cfg *cfg, const struct edt_cgroup *e,
				      struct edt_par *p)
{
	u64 rate = cfg->default_rate, ceil = cfg->default_ceil, burst = 0;
	u32 prio = cfg->default_prio, weight = cfg->default_weight;

	if (e) {
		rate = e->rate;
		ceil = e->ceil;
		burst = e->burst;
		prio = e->prio;
		weight = e->weight;
	}
	p->rate = cfg_rate(rate);
	p->ceil = ceil > p->rate ? ceil : p->rate;
	p->burst = cfg_min(burst ?: cfg->burst, EDT_MAX_BURST);
	p->prio = prio < EDT_PRIOS ? prio : EDT_PRIOS - 1;
	p->weight = weight ? cfg_min(weight, EDT_MAX_WEIGHT) : 1;
}

/* The longest time xmit_ns answers: centuries, yet sums of a few never wrap. */
#define EDT_MAX_NS (~0ULL >> 2)

/*
 * ns that bytes take at rate (bytes/s, not 0), without overflow. A global
 * function: the verifier checks it once, not its branches at every use
 * (inlined, they took edt_enqueue past the verifier's jump history).
 */
__noinline u64 xmit_ns(u64 bytes, u64 rate)
{
	u64 s;

	if (bytes <= ~0ULL / NSEC_PER_SEC)
		return bytes * NSEC_PER_SEC / rate;
	s = bytes / rate;
	if (s >= EDT_MAX_NS / NSEC_PER_SEC)
		return EDT_MAX_NS;
	bytes -= s * rate; /* < rate, which is above 2^34 only for 137 Gbit/s and more */
	return s * NSEC_PER_SEC + (rate <= ~0ULL / NSEC_PER_SEC ? bytes * NSEC_PER_SEC / rate
								: bytes / (rate / NSEC_PER_SEC));
}

/* xmit_ns, with the call saved for an unlimited rate (cfg_rate's ~0), which takes no time. */
static __always_inline u64 xmit(u64 bytes, u64 rate)
{
	return rate == ~0ULL ? 0 : xmit_ns(bytes, rate);
}

/*
 * xmit for the link's rate, the one every packet advances: by a 32.32
 * fixed-point multiplier kept with the rate it is for instead of a
 * division. It differs from xmit_ns by at most 1 ns (both round down).
 * Only from 31.25 Mbit/s (2^40 ns << 32 / NSEC_PER_SEC bytes/s) and for less
 * than 16 MB, so that the product stays within 64 bits. Dequeue keeps the
 * multiplier (link_inv); enqueue and edt_ce_mark, which runs outside the
 * qdisc's lock, only read it.
 */
#define EDT_INV_MIN_RATE  (NSEC_PER_SEC >> 8)
#define EDT_INV_MAX_BYTES (1ULL << 24)

static __always_inline u64 link_xmit(const struct edt_inst *in, u64 bytes, u64 rate)
{
	u64 inv = in->inv;

	if (in->inv_rate == rate && inv && inv < (1ULL << 40) && bytes < EDT_INV_MAX_BYTES)
		return (bytes * inv) >> 32;
	return xmit(bytes, rate);
}

static __always_inline void link_inv(struct edt_inst *in, u64 rate)
{
	if (in->inv_rate == rate)
		return;
	/*
	 * inv first: a reader that sees the new rate sees its multiplier
	 * (0 for cfg_rate's unlimited ~0, which takes no time).
	 */
	in->inv = rate > EDT_INV_MIN_RATE ? (NSEC_PER_SEC << 32) / rate : 0;
	barrier();
	in->inv_rate = rate;
}

/*
 * A clock of rate bytes/s is never further ahead of now than its last
 * packet takes at that rate: dequeue advances it by one packet only when
 * it is due. So once a rate is changed (or cfgs rewritten) a clock a slow
 * rate left far ahead is pulled back at the next packet, instead of
 * holding the queue for what the old rate charged.
 */
static __always_inline u64 clock_bound(u64 *clock, u64 now, u32 last_len, u64 rate)
{
	u64 most;

	/* Mostly a clock is not ahead at all: no division then. */
	if (*clock <= now)
		return *clock;
	most = now + xmit(last_len, rate);
	if (*clock > most)
		*clock = most;
	return *clock;
}

static __always_inline u32 tcp_in_flight(const struct sock *sk)
{
	const struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));

	return tp->packets_out;
}

/* The ECN field of skb's IP header (read-only to a qdisc), or 0. */
static __always_inline u8 ip_ecn(struct sk_buff *skb)
{
	/* __dev_queue_xmit() set the mac header where skb->data starts. */
	u32 nh = skb->network_header - skb->mac_header;
	struct bpf_dynptr ptr;
	u8 hdr[2];

	if (bpf_dynptr_from_skb((struct __sk_buff *)skb, 0, &ptr) ||
	    bpf_dynptr_read(hdr, sizeof(hdr), &ptr, nh, 0))
		return 0;
	if (skb->protocol == bpf_htons(ETH_P_IP))
		return hdr[1] & 3;
	if (skb->protocol == bpf_htons(ETH_P_IPV6))
		return (hdr[1] >> 4) & 3;
	return 0;
}

/*
 * The rate a class is expected to send at: what it sent in its last
 * window, within its rate and ceil (its rate until it has sent).
 */
static __always_inline u64 class_pace(const struct edt_class *q, const struct edt_par *p)
{
	u64 r = q->rate_est;

	return r < p->rate ? p->rate : r > p->ceil ? p->ceil : r;
}

/* When a cgroup's class, at its pace, can send its last queued byte. */
static __always_inline u64 class_done(const struct edt_class *q, const struct edt_par *p, u64 now)
{
	u64 t = q->t_next, pace = class_pace(q, p);

	/* Borrowing, it may go before its rate's clock. */
	if (pace > p->rate && q->t_ceil < t)
		t = q->t_ceil;
	return (t > now ? t : now) + xmit(q->backlog, pace);
}

/*
 * What a cgroup class whose entry is gone has: all zero, so it drains
 * unlimited. In read-only data, not on the stack: dequeue's plain path
 * would pay for zeroing it.
 */
static const struct edt_cgroup edt_gone;

/* The entry of cgroup class q under cfg, or &edt_gone. */
static __always_inline const struct edt_cgroup *class_entry(const struct edt_cfg *cfg,
							    const struct edt_class *q)
{
	struct qd_entry_key key = { .set = cfg->cgset, .id = q->id };
	const struct edt_cgroup *e = key.set ? bpf_map_lookup_elem(&cgroups, &key) : NULL;

	return e ?: &edt_gone;
}

/* Entry e of class q, kept for the cfg's set unless it is gone. */
static __always_inline void class_ent_keep(const struct edt_cfg *cfg, struct edt_class *q,
					   const struct edt_cgroup *e)
{
	if (e == &edt_gone)
		return;
	q->ent = *e;
	q->ent_set = cfg->cgset;
}

/* The entry of cgroup class q under cfg: as kept while the set is the same. */
static __always_inline const struct edt_cgroup *class_ent(const struct edt_cfg *cfg,
							  struct edt_class *q)
{
	const struct edt_cgroup *e;

	if (cfg->cgset && q->ent_set == cfg->cgset)
		return &q->ent;
	e = class_entry(cfg, q);
	class_ent_keep(cfg, q, e);
	return e;
}

/* a is before b, for virtual times that may wrap, and for clocks, which do not. */
static __always_inline bool vt_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/* A class's virtual time as it borrows: never behind its prio's, so idle time earns nothing. */
static __always_inline u64 class_vt(const struct edt_inst *in, const struct edt_class *q, u32 prio)
{
	u64 v = in->vtime[prio & (EDT_PRIOS - 1)];

	return vt_before(q->vt, v) ? v : q->vt;
}

/*
 * The heaps of cgroup classes with packets (edt.h, EDT_HEAP_*), which
 * dequeue picks from and enqueue estimates by without walking them: each
 * a complete binary tree of its members' nodes (node 0 in EDT_HEAP_RATE,
 * node 1 in the others), least key on top. A heap holds at most
 * EDT_MAX_CGROUPS classes: its positions have at most this many bits, and
 * a sift at most this many steps.
 */
#define EDT_HEAP_BITS 21

/* edt_heaps finds the lowest lending prio among 8 bits of hmask. */
_Static_assert(EDT_PRIOS <= 8, "edt_heaps reads 8 prios");

/*
 * Heap h's index into the instance's arrays, masked where the verifier
 * sees it: the compiler would drop a mask after the callers' h < EDT_HEAPS.
 */
static __always_inline u32 heap_idx(u32 h)
{
	barrier_var(h);
	return h & (EDT_HEAP_ROOM - 1);
}

/* Node n of cgroup class c, or NULL. */
static __always_inline struct edt_hnode *hnode(u32 c, u32 n)
{
	struct edt_class *q = cls_at(c);

	return q && c ? &q->hn[n & 1] : NULL;
}

/* Set child side (0 or 1) of t: by a branch, which the verifier bounds, not an index. */
static __always_inline void kid_set(struct edt_hnode *t, u32 side, u32 x)
{
	if (side)
		t->kid[1] = x;
	else
		t->kid[0] = x;
}

/* Place p (a node of kind n) now holds class c's key. */
static __always_inline void heap_hold(struct edt_hnode *t, u32 p, u32 n, u64 key, u32 c)
{
	struct edt_hnode *o = hnode(c, n);

	t->key = key;
	t->c = c;
	if (o)
		o->at = p;
}

/*
 * Class c's key into place p of heap h, then to where it goes: the keys
 * it passes move a place each, as in an array heap. One global function
 * for the whole sift, since a step costs a few lookups and no relinking;
 * its loops are plain bounded loops, not bpf_for, whose every step is a
 * kfunc call, as dear as a step of the sift.
 */
__noinline int heap_sift(struct edt_inst *in, u32 h, u32 p, u64 key, u32 c)
{
	u32 n = h ? 1 : 0, m;
	struct edt_hnode *t = hnode(p, n), *u, *r;
	bool up = false;
	int i;

	if (!in || !t)
		return 0;
#pragma clang loop unroll(disable)
	for (i = 0; i < EDT_HEAP_BITS; i++) {
		m = t->up;
		u = hnode(m, n);
		if (!u || !vt_before(key, u->key))
			break;
		heap_hold(t, p, n, u->key, u->c);
		p = m;
		t = u;
		up = true;
	}
	if (!up) {
#pragma clang loop unroll(disable)
		for (i = 0; i < EDT_HEAP_BITS; i++) {
			m = t->kid[0];
			u = hnode(m, n);
			if (!u)
				break;
			r = hnode(t->kid[1], n);
			if (r && vt_before(r->key, u->key)) {
				m = t->kid[1];
				u = r;
			}
			if (!vt_before(u->key, key))
				break;
			heap_hold(t, p, n, u->key, u->c);
			p = m;
			t = u;
		}
	}
	heap_hold(t, p, n, key, c);
	return 0;
}

/* The class at position pos (1: the top) of heap h, or 0: the path to it is pos's bits. */
__noinline u32 heap_at(struct edt_inst *in, u32 h, u32 pos)
{
	u32 n = h ? 1 : 0, c, d = 0, p = pos;
	struct edt_hnode *t;
	int i;

	if (!in || h >= EDT_HEAPS)
		return 0;
	c = in->hroot[heap_idx(h)];
	if (p >> 16) {
		d += 16;
		p >>= 16;
	}
	if (p >> 8) {
		d += 8;
		p >>= 8;
	}
	if (p >> 4) {
		d += 4;
		p >>= 4;
	}
	if (p >> 2) {
		d += 2;
		p >>= 2;
	}
	if (p >> 1)
		d += 1;
	bpf_for(i, 0, EDT_HEAP_BITS) {
		if (i >= d)
			break;
		t = hnode(c, n);
		if (!t)
			return 0;
		c = (pos >> (d - 1 - i)) & 1 ? t->kid[1] : t->kid[0];
	}
	return c;
}

/* Class x, in no heap of its node, into heap h with key: its node the last place. */
__noinline int heap_add(struct edt_inst *in, u32 h, u32 x, u64 key)
{
	u32 n = h ? 1 : 0, size, p;
	struct edt_hnode *nx = hnode(x, n), *np;

	if (!in || h >= EDT_HEAPS || !nx)
		return 0;
	nx->up = 0;
	nx->kid[0] = 0;
	nx->kid[1] = 0;
	size = in->hsize[heap_idx(h)] + 1;
	if (size == 1) {
		in->hsize[heap_idx(h)] = 1;
		in->hroot[heap_idx(h)] = x;
		in->hmask |= 1U << h;
		heap_hold(nx, x, n, key, x);
		return 0;
	}
	p = heap_at(in, h, size >> 1);
	np = hnode(p, n);
	if (!np)
		return 0;
	in->hsize[heap_idx(h)] = size;
	kid_set(np, size & 1, x);
	nx->up = p;
	heap_sift(in, h, x, key, x);
	return 0;
}

/*
 * Class x out of heap h. The last place leaves the tree, its key taking
 * the place of x's; then, x's own node being free to go, the last place's
 * node takes its links.
 */
__noinline int heap_del(struct edt_inst *in, u32 h, u32 x)
{
	u32 n = h ? 1 : 0, size, last, p, mc = 0;
	struct edt_hnode *nx = hnode(x, n), *nl, *np, *t;
	u64 mkey = 0;

	if (!in || h >= EDT_HEAPS || !nx)
		return 0;
	p = nx->at;
	np = hnode(p, n);
	size = in->hsize[heap_idx(h)];
	last = heap_at(in, h, size);
	nl = hnode(last, n);
	if (!size || !nl || !np)
		return 0;
	in->hsize[heap_idx(h)] = size - 1;
	if (size == 1)
		in->hmask &= ~(1U << h);
	if ((t = hnode(nl->up, n)))
		kid_set(t, size & 1, 0);
	else
		in->hroot[heap_idx(h)] = 0;
	if (p != last) {
		mkey = nl->key;
		mc = nl->c;
	}
	if (x != last) {
		nl->up = nx->up;
		nl->kid[0] = nx->kid[0];
		nl->kid[1] = nx->kid[1];
		if ((t = hnode(nl->up, n)))
			kid_set(t, t->kid[1] == x, last);
		else
			in->hroot[heap_idx(h)] = last;
		if ((t = hnode(nl->kid[0], n)))
			t->up = last;
		if ((t = hnode(nl->kid[1], n)))
			t->up = last;
		heap_hold(nl, last, n, nx->key, nx->c);
		if (p == x)
			p = last;
	}
	if (mc)
		heap_sift(in, h, p, mkey, mc);
	nx->up = 0;
	nx->kid[0] = 0;
	nx->kid[1] = 0;
	nx->at = 0;
	return 0;
}

/*
 * Class c, q, into heap h with key, or its key there changed. A class
 * alone in its heap (a lone cgroup sending re-keys its class after every
 * packet) takes the new key without a call.
 */
static __always_inline void heap_set(struct edt_inst *in, u32 h, u32 c, struct edt_class *q,
				     u64 key)
{
	u32 n = h ? 1 : 0;
	struct edt_hnode *nc = &q->hn[n];

	if (!nc->at)
		heap_add(in, h, c, key);
	else if (nc->at == c && in->hsize[heap_idx(h)] == 1)
		nc->key = key;
	else
		heap_sift(in, h, nc->at, key, c);
}

/* The top of heap h: the place holding the least key, or NULL. */
static __always_inline struct edt_hnode *heap_top(struct edt_inst *in, u32 h)
{
	return hnode(in->hroot[heap_idx(h)], h ? 1 : 0);
}

/* Class c, q, in heap h (of node 1) with key, out of the one it was in. */
static __always_inline void class_heap(struct edt_inst *in, u32 c, struct edt_class *q, u32 h,
				       u64 key)
{
	if (q->eh == h + 1) {
		heap_set(in, h, c, q, key);
		return;
	}
	if (q->eh)
		heap_del(in, q->eh - 1, c);
	q->eh = h + 1;
	heap_add(in, h, c, key);
}

/*
 * Paces above this count as unlimited, so that the sum of a million
 * stays within 64 bits.
 */
#define EDT_PACE_INF (1ULL << 40)

/* Class q's pace in the instance's sum (0: out of it). */
static __always_inline void class_pace_set(struct edt_inst *in, struct edt_class *q, u64 pace)
{
	if (pace > EDT_PACE_INF)
		pace = EDT_PACE_INF;
	if (q->pace == EDT_PACE_INF)
		in->pace_inf--;
	else
		in->pace_sum -= q->pace;
	if (pace == EDT_PACE_INF)
		in->pace_inf++;
	else
		in->pace_sum += pace;
	q->pace = pace;
}

/*
 * Cgroup class c, with packets, where its head and clocks put it (par:
 * its options): after its first packet, after each one it sends, and
 * after its options changed; no other time changes its keys. In
 * EDT_HEAP_RATE by when its rate lets its head go; with a ceil above the
 * rate also in EDT_HEAP_CEIL by when its ceil does, or once that is past
 * in its prio's lending heap by virtual time (edt_heaps moves it there).
 */
__noinline int class_place(struct edt_inst *in, u32 c, u64 now, const struct edt_par *par)
{
	struct edt_class *q = cls_at(c);
	struct edt_slot *s;
	u64 head, t;

	if (!in || !par || !q || !c || !(s = pkt_at(q->head)))
		return 0;
	head = s->time_to_send;
	t = clock_bound(&q->t_next, now, q->last_len, par->rate);
	heap_set(in, EDT_HEAP_RATE, c, q, t > head ? t : head);
	in->busy |= 2;
	in->due = 0;
	class_pace_set(in, q, class_pace(q, par));
	q->prio = par->prio;
	if (par->ceil <= par->rate) {
		if (q->eh)
			heap_del(in, q->eh - 1, c);
		q->eh = 0;
		return 0;
	}
	t = clock_bound(&q->t_ceil, now, q->last_len, par->ceil);
	if (t < head)
		t = head;
	if (t <= now)
		class_heap(in, c, q, EDT_HEAP_LEND + par->prio, q->vt);
	else
		class_heap(in, c, q, EDT_HEAP_CEIL, t);
	return 0;
}

/* Cgroup class c sent its last packet: out of its heaps. */
__noinline int class_idle(struct edt_inst *in, u32 c)
{
	struct edt_class *q = cls_at(c);

	if (!in || !q || !c)
		return 0;
	heap_del(in, EDT_HEAP_RATE, c);
	if (q->eh)
		heap_del(in, q->eh - 1, c);
	q->eh = 0;
	class_pace_set(in, q, 0);
	if (!in->hsize[EDT_HEAP_RATE])
		in->busy &= ~2U;
	return 0;
}

/*
 * Class c of instance slot, seen after its options changed: placed anew
 * for its new options when it holds packets, given back when its entry
 * is gone and it holds none. Returns the next class of the instance's
 * list. A global function: the walk carries only the index.
 */
__noinline u32 class_check(struct edt_inst *in, const struct edt_cfg *cfg, u32 slot, u32 c, u64 now)
{
	struct qd_entry_key key = {};
	struct edt_class *q = cls_at(c);
	const struct edt_cgroup *e;
	struct edt_par par;
	u32 next;

	if (!in || !cfg || !q || !c)
		return 0;
	next = q->next;
	if (q->qlen) {
		e = class_entry(cfg, q);
		class_ent_keep(cfg, q, e);
		class_par(cfg, e, &par);
		class_place(in, c, now, &par);
		return next;
	}
	key.set = cfg->cgset;
	key.id = q->id;
	if (!key.set || !bpf_map_lookup_elem(&cgroups, &key))
		class_free(in, slot, c, q);
	return next;
}

/*
 * Once after each change of the options: classes with packets are placed
 * for their new options, and those whose entry went and that hold no
 * packet go back to the pool. Not per packet: it walks the instance's
 * classes.
 */
static __always_inline void classes_check(struct edt_inst *in, const struct edt_cfg *cfg, u32 slot,
					  u64 now)
{
	u32 c = in->cls_head;
	int i;

	if (in->cgset == cfg->cgset)
		return;
	in->cgset = cfg->cgset;
	bpf_for(i, 0, qd_cap_cgroups) {
		if (!c)
			break;
		c = class_check(in, cfg, slot, c, now);
	}
}

/*
 * When a packet that its class lets go at `ready` will leave: after the
 * link is free and has sent what is queued ahead of it. Cgroups' packets
 * go first, but each class only as fast as its pace, so of their backlog
 * only what the sum of their paces lets out by then counts. Counting each
 * class's share up to its own backlog would take a walk of the classes;
 * the sum counts a class with little queued and a fast pace for its pace,
 * so the estimate errs long, never short.
 */
static __always_inline u64 edt_estimate(const struct edt_inst *in, u64 now, u64 ready, u64 rate)
{
	u64 t = in->t_next > now ? in->t_next : now, more, d, r;

	if (in->classes[0].backlog)
		t += link_xmit(in, in->classes[0].backlog, rate);
	if (in->busy & 2) {
		more = in->cg_backlog;
		r = in->pace_sum;
		d = (t - now) / 1000; /* us */
		if (!in->pace_inf && r && d < ~0ULL / r) {
			r = d * r / 1000000;
			if (r < more)
				more = r;
		}
		t += link_xmit(in, more, rate);
	}
	return t > ready ? t : ready;
}

/*
 * Whether a packet of the default class can be queued without reading the
 * clock, about a tenth of what its programs do per packet: when it carries no
 * departure time of its own, no cgroup has packets queued, and the delay it
 * would see, counted from the clock as last read (seen <= now), is within
 * the horizon and, for TCP, ce_threshold. Measured from now it could only be
 * shorter (now - seen less), so what the full path would decide is the
 * same: no drop, no CN, and a link clock that is not ahead of now needs no
 * bound.
 */
static __always_inline bool enqueue_unclocked(const struct sk_buff *skb, const struct edt_inst *in,
					      const struct edt_cfg *cfg, u32 c, bool tcp, u64 rate)
{
	u64 seen = in->seen, most, delay;
	const struct edt_class *q = &in->classes[0];

	if (c || skb->tstamp || (in->busy & ~1U) || in->t_next > seen)
		return false;
	most = cfg_min(cfg->horizon, EDT_MAX_HORIZON);
	if (tcp)
		most = cfg_min(cfg->ce_threshold, most);
	delay = q->t_last > seen ? q->t_last - seen : 0;
	if (q->backlog) {
		u64 b = link_xmit(in, q->backlog, rate);

		if (b > delay)
			delay = b;
	}
	return delay <= most;
}

/* Drop skb, counted for the qdisc and, when there is one, its class. */
static __always_inline int edt_drop(struct sk_buff *skb, struct Qdisc *sch,
				    struct bpf_sk_buff_ptr *to_free, struct edt_class *q)
{
	if (q)
		q->drops++;
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/*
 * The end of an enqueue that counted its packet in q and the qdisc and put
 * it with bpf_kptr_xchg into a slot it knew free: old is what the slot
 * held. It cannot be a packet; should it be one, that packet is uncounted
 * and dropped rather than leaked. ret is what the sender is told.
 */
static __always_inline int edt_stored(struct sk_buff *old, struct Qdisc *sch,
				      struct bpf_sk_buff_ptr *to_free, struct edt_class *q, int ret)
{
	u32 len;

	if (!old)
		return ret;
	len = qdisc_pkt_len(old);
	q->backlog -= len;
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	return edt_drop(old, sch, to_free, q);
}

/*
 * Put skb, of class c (with options par, at now), stamped, at its class's
 * tail; ret is what the sender is told. Inlined twice: the path that read
 * no clock keeps its registers to itself.
 */
static __always_inline int edt_queue(struct sk_buff *skb, struct Qdisc *sch,
				     struct bpf_sk_buff_ptr *to_free, struct edt_inst *in,
				     struct edt_class *q, u32 c, const struct edt_par *par, u64 now,
				     u64 stamp, u32 len, int ret)
{
	struct edt_slot *s, *t;
	u32 p;

	p = pkt_alloc(&in->pkt_cache, &s);
	if (!p) {
		in->stats.alloc_drops++;
		return edt_drop(skb, sch, to_free, q);
	}
	s->time_to_send = stamp;
	skb = bpf_kptr_xchg(&s->skb, skb);
	/* A class is its qlen slots from head: the tail's next is never read. */
	if (q->qlen && (t = pkt_at(q->tail)))
		t->next = p;
	else
		q->head = p;
	q->tail = p;
	q->qlen++;
	q->backlog += len;
	if (c) {
		/* Its first packet: its head and clocks are its heaps' keys. */
		if (q->qlen == 1)
			class_place(in, c, now, par);
		in->cg_backlog += len;
		if (skb)
			in->cg_backlog -= qdisc_pkt_len(skb);
	} else {
		q->t_last = stamp;
		in->busy |= 1;
		in->due = 0;
	}
	sch->q.qlen++;
	sch->qstats.backlog += len;
	return edt_stored(skb, sch, to_free, q, ret);
}

/*
 * The fast slot: a packet that finds the qdisc empty, of the default class
 * and without a departure time of its own, while the link's clock and the
 * class's last stamp are not ahead of the clock as last read (seen <=
 * now), leaves at once whatever is decided: its delay is 0, within any
 * horizon and ce_threshold. Without a default_rate the default class has no
 * clock of its own. So it is kept outside the class's FIFO, and dequeue,
 * which serves it first (nothing queued is older), takes no slot of the
 * pool for it (sch_fq's fast path, as fq's).
 */
static __always_inline bool edt_fast_ok(const struct sk_buff *skb, const struct edt_inst *in,
					const struct edt_cfg *cfg)
{
	u64 seen = in->seen;

	return !skb->tstamp && !cfg->default_rate && in->t_next <= seen &&
	       in->classes[0].t_last <= seen;
}

/* The id of a local socket's cgroup, or 0. */
static __always_inline u64 sock_cgroup_id(const struct sock *sk)
{
	const struct cgroup *cg;

	if (!sk)
		return 0;
	cg = sk->sk_cgrp_data.cgroup;
	return cg ? cg->kn->id : 0;
}

/*
 * The bucket of cgroup cg for instance slot under entry set set: the high
 * half of a Fibonacci hash spreads both the consecutive ids kernfs gives
 * cgroups made in turn and ids a stride apart, and its product with the
 * bucket count is below that count, which need be no power of two. The
 * slot is in the hash: mq's children may share a set, and a cgroup
 * sending through many of them would otherwise take turns in two ways.
 * A capacity beyond the map's finds no bucket, and so no cache.
 */
static __always_inline struct edt_cgc_bucket *cgc_at(u64 cg, u32 set, u32 slot)
{
	u64 h = ((cg ^ ((u64)set << 32) ^ ((u64)slot << 20)) * 0x9E3779B97F4A7C15ULL) >> 32;
	u32 b = (h * qd_cap_cgroups) >> 32;

	return bpf_map_lookup_elem(&cgc, &b);
}

/*
 * What a place of the cache holds besides its fields: a mix of them and
 * of the instance's slot, each field by its own odd multiplier, so that a
 * place one writer filled partly and another the rest, or that another
 * instance filled, does not pass for this instance's.
 */
static __always_inline u64 cgc_check(u64 cg, u64 eid, u32 set, u32 c, u32 slot)
{
	return cg * 0x9E3779B97F4A7C15ULL ^ eid * 0xC2B2AE3D27D4EB4FULL ^
	       (((u64)set << 32) | c) * 0x165667B19E3779F9ULL ^
	       ((u64)slot + 1) * 0xD6E8FEB86659FD93ULL;
}

/* No class known: cgc_find's answer when the cache has none for the cgroup. */
#define EDT_CGC_MISS (~0U)

/*
 * The class of instance slot a socket of cgroup cg sends to (0: the
 * default class), as place k caches it under the cfg's set, or
 * EDT_CGC_MISS. Each field is read once (another CPU may be writing it),
 * and the class is taken only while it is still the one of the entry: it
 * may have gone back to the pool and been taken again since.
 */
static __always_inline u32 cgc_way(const struct edt_cgc *k, u32 set, u32 slot, u64 cg)
{
	struct edt_class *q;
	u64 eid;
	u32 c;

	if (*(volatile const u64 *)&k->cg != cg || *(volatile const u32 *)&k->set != set)
		return EDT_CGC_MISS;
	eid = *(volatile const u64 *)&k->eid;
	c = *(volatile const u32 *)&k->c;
	if (*(volatile const u64 *)&k->check != cgc_check(cg, eid, set, c, slot))
		return EDT_CGC_MISS;
	if (!c)
		return 0;
	q = cls_at(c);
	if (!q || q->owner != slot + 1 || q->id != eid || q->ent_set != set)
		return EDT_CGC_MISS;
	return c;
}

static __always_inline u32 cgc_find(const struct edt_cgc_bucket *b, u32 set, u32 slot, u64 cg)
{
	u32 c = cgc_way(&b->way[0], set, slot, cg);

	return c != EDT_CGC_MISS ? c : cgc_way(&b->way[1], set, slot, cg);
}

/*
 * Cache class c of cgroup cg, entry eid, in bucket b, first: what was
 * first moves second, unless it was this cgroup's (then stale).
 */
static __always_inline void cgc_put(struct edt_cgc_bucket *b, u32 set, u32 slot, u64 cg, u64 eid,
				    u32 c)
{
	struct edt_cgc *k = &b->way[0];

	if (k->cg != cg || k->set != set)
		b->way[1] = *k;
	k->cg = cg;
	k->eid = eid;
	k->set = set;
	k->c = c;
	k->check = cgc_check(cg, eid, set, c, slot);
}

SEC("struct_ops/edt_enqueue")
int BPF_PROG(edt_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	u32 len = qdisc_pkt_len(skb), id = qd_slot(sch), c = 0;
	struct edt_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct edt_cfg *cfg = bpf_map_lookup_elem(&cfgs, &id);
	u64 now, ready, stamp, snd, delay, lag, rate, cg;
	const struct edt_cgroup *e;
	struct edt_class *q = NULL;
	struct edt_cgc_bucket *b = NULL;
	struct edt_fast *f;
	struct edt_par par;
	const struct sock *sk;
	int ret = NET_XMIT_SUCCESS;
	bool tcp;

	if (!in || !cfg)
		goto drop;
	sk = local_sock(skb, &tcp);
	/* Without entries (cgset 0) every packet is the default class's. */
	cg = cfg->cgset ? sock_cgroup_id(sk) : 0;
	if (cg) {
		b = cgc_at(cg, cfg->cgset, id);
		c = b ? cgc_find(b, cfg->cgset, id, cg) : EDT_CGC_MISS;
	}
	if (c == EDT_CGC_MISS) {
		c = 0;
		e = edt_entry_of(sk, cfg);
		if (e) {
			c = class_find(id, e->id) ?: class_new(in, id, e->id, bpf_ktime_get_ns());
			if (!c) {
				/*
				 * Every class of the registration is
				 * taken: the capacity "cgroups".
				 */
				in->stats.alloc_drops++;
				goto drop;
			}
			q = cls_at(c);
			if (!q)
				goto drop;
			class_ent_keep(cfg, q, e);
		}
		if (b)
			cgc_put(b, cfg->cgset, id, cg, e ? e->id : 0, c);
	}
	q = c ? cls_at(c) : &in->classes[0];
	if (!q)
		goto drop;
	if (sch->q.qlen >= cfg_min(cfg->limit, EDT_MAX_PACKETS) ||
	    (c && q->qlen >= EDT_CGROUP_LIMIT)) {
		in->stats.cap_drops++;
		goto drop;
	}
	if (!c && !sch->q.qlen && edt_fast_ok(skb, in, cfg) &&
	    (f = bpf_map_lookup_elem(&fast, &id))) {
		/* Counted in the default class's backlog, which the estimates read. */
		q->backlog += len;
		sch->q.qlen = 1;
		sch->qstats.backlog += len;
		/* The qdisc was empty: the fast slot is free. */
		skb = bpf_kptr_xchg(&f->skb, skb);
		return edt_stored(skb, sch, to_free, q, NET_XMIT_SUCCESS);
	}
	rate = cfg_rate(cfg->rate);
	if (enqueue_unclocked(skb, in, cfg, c, tcp, rate)) {
		/*
		 * A stamp of the class's last packet instead of now: both are
		 * due by the time dequeue reaches this one, unless the last
		 * one is ahead, and then it is the stamp (FIFO order).
		 */
		return edt_queue(skb, sch, to_free, in, q, 0, NULL, 0, q->t_last, len,
				 NET_XMIT_SUCCESS);
	}
	now = bpf_ktime_get_ns();
	in->seen = now;
	clock_bound(&in->t_next, now, in->last_len, rate);
	/* A sender's own departure time (TCP's EDT, SO_TXTIME) is kept. */
	snd = qd_time_to_send(skb, now);
	stamp = snd > now ? snd : now;
	/* FIFO order: never before the default class's previous packet. */
	if (!c && stamp < q->t_last)
		stamp = q->t_last;
	ready = stamp;
	if (c) {
		/* Kept for the cfg's set: found or looked up above. */
		class_par(cfg, &q->ent, &par);
		clock_bound(&q->t_next, now, q->last_len, par.rate);
		lag = class_done(q, &par, now);
		if (lag > ready)
			ready = lag;
	}
	delay = edt_estimate(in, now, ready, rate) - now;

	if (delay > cfg_min(cfg->horizon, EDT_MAX_HORIZON)) {
		if ((sk && cfg->backpressure) ||
		    (tcp && tcp_in_flight(sk) < cfg_min(cfg->min_inflight, EDT_MAX_MIN_INFLIGHT))) {
			in->stats.held_back++;
		} else {
			in->stats.horizon_drops++;
			goto drop;
		}
	}
	if (tcp && delay > cfg_min(cfg->ce_threshold, EDT_MAX_HORIZON) &&
	    ip_ecn(skb) != INET_ECN_CE) {
		in->stats.cn_signals++;
		ret = NET_XMIT_CN;
	}

	return edt_queue(skb, sch, to_free, in, q, c, &par, now, stamp, len, ret);
drop:
	return edt_drop(skb, sch, to_free, q);
}

/* No class: edt_pick's answer when none may send. */
#define EDT_NONE (~0U)

/* What edt_pick has found so far, on dequeue's stack. */
struct edt_pick {
	u64 when;    /* the earliest time a head that is not due now will be */
	u64 lend_vt; /* of lend */
	u32 best;    /* a cgroup's class its rate lets go, or EDT_NONE */
	u32 lend;    /* the class to lend to (0: the default class), or EDT_NONE */
	u32 lend_prio;
	u32 def; /* the default class's head may go */
};

/*
 * Weigh the default class for edt_pick. A global function: the verifier
 * checks it once, and dequeue's plain path keeps its registers.
 */
__noinline int edt_eval(struct edt_inst *in, const struct edt_cfg *cfg, u64 now,
			struct edt_pick *pk)
{
	struct edt_class *q;
	struct edt_slot *s;
	struct edt_par par;
	u64 t, tc, head;

	if (!in || !cfg || !pk)
		return 0;
	q = &in->classes[0];
	class_par(cfg, NULL, &par);
	s = pkt_at(q->head);
	if (!s)
		return 0;
	head = s->time_to_send;
	t = clock_bound(&q->t_next, now, q->last_len, par.rate);
	if (t < head)
		t = head;
	if (t <= now) {
		pk->def = 1;
		return 0;
	}
	if (par.ceil > par.rate) {
		tc = clock_bound(&q->t_ceil, now, q->last_len, par.ceil);
		if (tc < head)
			tc = head;
		if (tc < t)
			t = tc;
		if (tc <= now) {
			pk->lend = 0;
			pk->lend_prio = par.prio;
			pk->lend_vt = class_vt(in, q, par.prio);
		}
	}
	if (t < pk->when)
		pk->when = t;
	return 0;
}

/*
 * The cgroup class at the top of EDT_HEAP_CEIL to its prio's lending
 * heap, if its ceil lets its head go now: whether one moved.
 */
__noinline int class_lendable(struct edt_inst *in, u64 now)
{
	struct edt_hnode *t = in ? heap_top(in, EDT_HEAP_CEIL) : NULL;
	struct edt_class *q;
	u32 c;

	if (!t || t->key > now)
		return 0;
	c = t->c;
	q = cls_at(c);
	if (!q || !c)
		return 0;
	class_heap(in, c, q, EDT_HEAP_LEND + (q->prio < EDT_PRIOS ? q->prio : EDT_PRIOS - 1),
		   q->vt);
	return 1;
}

/*
 * Weigh the cgroup classes for edt_pick, after the default class: the
 * tops of their heaps. Each class moves to a lending heap at most once
 * after each time it is placed (class_place), so the moves take a bounded
 * number of heap steps per packet sent, amortized.
 */
__noinline int edt_heaps(struct edt_inst *in, u64 now, struct edt_pick *pk)
{
	struct edt_class *q;
	struct edt_hnode *t;
	u32 c, m;
	u64 v;
	int i;

	if (!in || !pk)
		return 0;
	/* The walk's iterator only when there is a class to move. */
	t = heap_top(in, EDT_HEAP_CEIL);
	if (t && t->key <= now) {
		bpf_for(i, 0, qd_cap_cgroups) {
			if (!class_lendable(in, now))
				break;
		}
	}
	t = heap_top(in, EDT_HEAP_RATE);
	if (t && t->c) {
		if (t->key <= now) {
			pk->best = t->c;
			return 0;
		}
		if (t->key < pk->when)
			pk->when = t->key;
	}
	t = heap_top(in, EDT_HEAP_CEIL);
	if (t && t->key < pk->when)
		pk->when = t->key;
	/*
	 * The lowest prio with a class to lend to, the lowest bit of the
	 * lending heaps' mask; the default class wins ties.
	 */
	m = (in->hmask >> EDT_HEAP_LEND) & ((1U << EDT_PRIOS) - 1);
	if (!m)
		return 0;
	i = 0;
	if (!(m & 0xf)) {
		i += 4;
		m >>= 4;
	}
	if (!(m & 3)) {
		i += 2;
		m >>= 2;
	}
	if (!(m & 1))
		i += 1;
	t = heap_top(in, EDT_HEAP_LEND + i);
	if (!t)
		return 0;
	c = t->c;
	q = cls_at(c);
	if (!q || !c)
		return 0;
	v = class_vt(in, q, i);
	if (i < pk->lend_prio || (i == pk->lend_prio && vt_before(v, pk->lend_vt))) {
		pk->lend = c;
		pk->lend_prio = i;
		pk->lend_vt = v;
	}
	return 0;
}

/*
 * The class to send from now: a cgroup's class whose head its rate lets
 * go (the earliest such), else the default class if its default_rate
 * does, since a cgroup gets its rate while the link has room for the sum
 * of them; else, with *borrow set, the class whose ceil lets its head go
 * at the lowest prio, and of those the one with the least virtual time.
 * EDT_NONE, with *when the earliest time a head is due, when none is.
 * The default class is weighed by itself, the cgroups' classes by the
 * tops of their heaps: no walk, whatever the number with packets.
 */
static __always_inline u32 edt_pick(struct edt_inst *in, const struct edt_cfg *cfg, u64 now,
				    u64 *when, bool *borrow)
{
	struct edt_pick pk;

	/*
	 * Field by field: clang makes a 32-byte initializer a copy of a
	 * constant in .rodata.cst32, a map whose name bpffs cannot pin.
	 */
	pk.when = ~0ULL;
	pk.lend_vt = 0;
	pk.best = EDT_NONE;
	pk.lend = EDT_NONE;
	pk.lend_prio = EDT_PRIOS;
	pk.def = 0;

	if (in->busy & 1)
		edt_eval(in, cfg, now, &pk);
	if (in->busy & 2)
		edt_heaps(in, now, &pk);
	*when = pk.when;
	*borrow = false;
	if (pk.best != EDT_NONE)
		return pk.best;
	if (pk.def)
		return 0;
	if (pk.lend != EDT_NONE)
		*borrow = true;
	return pk.lend;
}

/*
 * What dequeue asks of edt_choose and class_sent, and they answer, on
 * dequeue's stack: global functions take five arguments at most.
 */
struct edt_choice {
	u64 now;
	u64 when; /* with c EDT_NONE: when a head is due next, or ~0 */
	u32 slot; /* the instance's */
	u32 c;	  /* the class to send from (0: the default class), or EDT_NONE */
	u32 borrow;
	u32 len; /* of the packet it sent */
};

/*
 * The class dequeue sends from (edt_pick), once classes a change left
 * without entry are given back. A global function, as class_sent: the
 * weighing keeps its registers to itself, so that dequeue's plain path,
 * which calls neither, keeps the registers it had before classes.
 */
__noinline int edt_choose(struct edt_inst *in, const struct edt_cfg *cfg, struct edt_choice *ch)
{
	bool borrow;

	if (!in || !cfg || !ch)
		return 0;
	classes_check(in, cfg, ch->slot, ch->now);
	ch->c = edt_pick(in, cfg, ch->now, &ch->when, &borrow);
	ch->borrow = borrow;
	return 0;
}

/*
 * Advance a clock of rate bytes/s by ns (a packet's time at that rate),
 * from no earlier than `burst` ago.
 * burst 0 (auto): 1 ms at the rate, at least EDT_AUTO_BURST bytes; at high
 * rates a few packets' worth would be less than the gaps a single TCP
 * flow leaves between its GSO packets, and that time would be lost.
 */
static __always_inline u64 clock_after(u64 clock, u64 now, u64 ns, u64 rate, u64 burst)
{
	u64 lag;

	/* auto at more than EDT_AUTO_BURST bytes per ms is the 1 ms: no division then. */
	if (!burst && rate >= EDT_AUTO_BURST * 1000)
		lag = NSEC_PER_SEC / 1000;
	else
		lag = xmit(burst ?: EDT_AUTO_BURST, rate);
	if (!burst && lag < NSEC_PER_SEC / 1000)
		lag = NSEC_PER_SEC / 1000;

	if (lag > now)
		lag = now;
	if (clock + lag < now)
		clock = now - lag;
	return clock + ns;
}

/*
 * Take class c's head, s, off its FIFO and out of the qdisc's counts;
 * *len is its length.
 */
static __always_inline struct sk_buff *class_pop(struct Qdisc *sch, struct edt_inst *in,
						 struct edt_class *q, struct edt_slot *s, u32 c,
						 u32 *len)
{
	struct sk_buff *skb = bpf_kptr_xchg(&s->skb, NULL);
	u32 p = q->head;

	/* Its class's head and clocks, and the link's, move; it may empty. */
	in->due = 0;
	q->head = s->next;
	pkt_free(&in->pkt_cache, p, s);
	if (!--q->qlen) {
		if (c)
			class_idle(in, c);
		else
			in->busy &= ~1U;
	}
	if (!skb)
		return NULL;
	*len = qdisc_pkt_len(skb);
	sch->q.qlen--;
	sch->qstats.backlog -= *len;
	q->backlog -= *len;
	if (c)
		in->cg_backlog -= *len;
	return skb;
}

/*
 * The link's clock after a packet of len: after idle time it may lag by
 * `burst`, and that much leaves at once.
 */
static __always_inline void link_sent(struct edt_inst *in, const struct edt_cfg *cfg, u64 now,
				      u32 len, u64 rate)
{
	link_inv(in, rate);
	in->t_next = clock_after(in->t_next, now, link_xmit(in, len, rate), rate,
				 cfg_min(cfg->burst, EDT_MAX_BURST));
	in->last_len = len;
}

/* What every packet that leaves is counted in. */
static __always_inline struct sk_buff *edt_sent(struct Qdisc *sch, struct edt_inst *in, u64 now,
						struct sk_buff *skb, u32 len)
{
	in->win_bytes += len;
	if (now - in->win_start >= RATE_WINDOW_NS) {
		in->stats.rate_est = in->win_bytes * NSEC_PER_SEC / (now - in->win_start);
		in->win_start = now;
		in->win_bytes = 0;
	}
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * Class ch->c's clocks and counters after its packet of ch->len bytes
 * left, on its guarantee or borrowed. A borrowed packet is the link's, not
 * its class's rate's: the rate's clock keeps the class's guarantee for the
 * next one.
 */
__noinline int class_sent(struct edt_inst *in, const struct edt_cfg *cfg,
			  const struct edt_choice *ch)
{
	const struct edt_cgroup *e = NULL;
	struct edt_class *q;
	struct edt_par par;
	u64 now, v;
	u32 len, c;

	if (!in || !cfg || !ch)
		return 0;
	c = ch->c;
	now = ch->now;
	len = ch->len;
	if (c) {
		q = cls_at(c);
		if (!q)
			return 0;
		e = class_ent(cfg, q);
	} else {
		q = &in->classes[0];
	}
	class_par(cfg, e, &par);
	/* An unlimited class's clocks hold nothing back: they are not kept. */
	if (!ch->borrow && par.rate != ~0ULL)
		q->t_next = clock_after(q->t_next, now, xmit(len, par.rate), par.rate, par.burst);
	if (par.ceil > par.rate)
		q->t_ceil = clock_after(q->t_ceil, now, xmit(len, par.ceil), par.ceil, par.burst);
	q->last_len = len;
	if (ch->borrow) {
		q->borrowed += len;
		v = class_vt(in, q, par.prio);
		in->vtime[par.prio & (EDT_PRIOS - 1)] = v;
		q->vt = v + (u64)len * EDT_WEIGHT_SCALE / par.weight;
	}
	/* Only the cgroups' counters and rates are shown, and paced by (class_pace). */
	if (c) {
		q->bytes += len;
		q->packets++;
		q->win_bytes += len;
		if (now - q->win_start >= RATE_WINDOW_NS) {
			q->rate_est = q->win_bytes * NSEC_PER_SEC / (now - q->win_start);
			q->win_start = now;
			q->win_bytes = 0;
		}
		/* Its entry went while it had packets: with the last one, the class goes too. */
		if (e == &edt_gone && !q->qlen)
			class_free(in, ch->slot, c, q);
		/* Its clocks and head changed: so did its keys. */
		if (q->qlen)
			class_place(in, c, now, &par);
	}
	return 0;
}

/*
 * Come back at t, with the slack the options allow. A timer set for t
 * that has not fired (now < t) is set already: the kernel cancels it only
 * in a reset, which forgets wd_at.
 */
static __always_inline void edt_watchdog(struct Qdisc *sch, const struct edt_cfg *cfg,
					 struct edt_inst *in, u64 now, u64 t)
{
	if (t == in->wd_at && now < t)
		return;
	in->wd_at = t;
	bpf_qdisc_watchdog_schedule(sch, t, cfg_min(cfg->timer_slack, EDT_MAX_TIMER_SLACK));
}

SEC("struct_ops/edt_dequeue")
struct sk_buff *BPF_PROG(edt_dequeue, struct Qdisc *sch)
{
	struct edt_choice ch;
	struct edt_inst *in;
	struct edt_cfg *cfg;
	struct edt_class *q;
	struct edt_fast *f;
	struct edt_slot *s;
	struct sk_buff *skb;
	u32 id, len = 0, c;
	u64 now, rate;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!in || !cfg)
		return NULL;
	now = bpf_ktime_get_ns();
	in->seen = now;
	rate = cfg_rate(cfg->rate);
	/* It arrived at an empty qdisc, due: nothing queued is older. */
	f = bpf_map_lookup_elem(&fast, &id);
	if (f && f->skb) {
		skb = bpf_kptr_xchg(&f->skb, NULL);
		/* Never NULL: the root lock keeps the slot as tested. */
		if (!skb)
			return NULL;
		len = qdisc_pkt_len(skb);
		sch->q.qlen--;
		sch->qstats.backlog -= len;
		in->classes[0].backlog -= len;
		link_sent(in, cfg, now, len, rate);
		return edt_sent(sch, in, now, skb, len);
	}
	if (clock_bound(&in->t_next, now, in->last_len, rate) > now) {
		edt_watchdog(sch, cfg, in, now, in->t_next);
		return NULL;
	}
	/*
	 * Only packets of no cgroup entry, and no default_rate: the link's
	 * clock and the head's stamp alone decide (what edt_pick would,
	 * without weighing the classes), and only the link's clock moves.
	 */
	if (in->busy == 1 && !cfg->default_rate) {
		q = &in->classes[0];
		s = pkt_at(q->head);
		if (!s)
			return NULL;
		if (s->time_to_send > now) {
			edt_watchdog(sch, cfg, in, now, s->time_to_send);
			return NULL;
		}
		skb = class_pop(sch, in, q, s, 0, &len);
		if (!skb)
			return NULL;
		link_sent(in, cfg, now, len, rate);
		return edt_sent(sch, in, now, skb, len);
	}

	/*
	 * Nothing sent, emptied or placed since the classes were last
	 * weighed and found nothing due before in->due, and the options are
	 * the ones they were checked for (every change names a new cgset):
	 * the weighing would find the same. Most dequeues that find nothing
	 * follow an enqueue to a class with packets, which changes no key.
	 */
	if (in->due > now && in->cgset && in->cgset == cfg->cgset) {
		edt_watchdog(sch, cfg, in, now, in->due);
		return NULL;
	}
	ch = (struct edt_choice){ .now = now, .slot = qd_slot(sch) };
	edt_choose(in, cfg, &ch);
	c = ch.c;
	if (c == EDT_NONE) {
		if (ch.when != ~0ULL) {
			in->due = ch.when;
			edt_watchdog(sch, cfg, in, now, ch.when);
		}
		return NULL;
	}
	q = c ? cls_at(c) : &in->classes[0];
	if (!q)
		return NULL;
	s = pkt_at(q->head);
	if (!s)
		return NULL;
	skb = class_pop(sch, in, q, s, c, &len);
	if (!skb)
		return NULL;
	link_sent(in, cfg, now, len, rate);
	ch.len = len;
	class_sent(in, cfg, &ch);
	return edt_sent(sch, in, now, skb, len);
}

/* No class in any heap of the instance. */
static __always_inline void edt_heaps_init(struct edt_inst *in)
{
	int i;

	/* An iterator: clang makes a loop of stores a memset, too long for BPF. */
	bpf_for(i, 0, EDT_HEAPS) {
		in->hroot[i & (EDT_HEAP_ROOM - 1)] = 0;
		in->hsize[i & (EDT_HEAP_ROOM - 1)] = 0;
	}
	in->hmask = 0;
	in->cg_backlog = 0;
	in->pace_sum = 0;
	in->pace_inf = 0;
}

/* Free class q's packets and start its clocks anew. */
static __always_inline void class_drain(struct edt_inst *in, struct edt_class *q)
{
	int i;

	/* A class holds at most limit packets, and limit at most this. */
	bpf_for(i, 0, EDT_MAX_PACKETS) {
		struct edt_slot *s;
		struct sk_buff *skb;
		u32 p = q->head;

		if (!q->qlen || !(s = pkt_at(p)))
			break;
		q->qlen--;
		q->head = s->next;
		skb = bpf_kptr_xchg(&s->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
		pkt_free(&in->pkt_cache, p, s);
	}
	q->head = 0;
	q->tail = 0;
	q->qlen = 0;
	q->backlog = 0;
	q->t_next = 0;
	q->t_ceil = 0;
	q->t_last = 0;
	q->vt = 0;
	q->last_len = 0;
	q->eh = 0;
	q->pace = 0;
	__builtin_memset(q->hn, 0, sizeof(q->hn));
}

/* Drain cgroup class c; returns the next of its instance's classes. A global function. */
__noinline u32 class_drain_one(struct edt_inst *in, u32 c)
{
	struct edt_class *q = cls_at(c);

	if (!in || !q || !c)
		return 0;
	class_drain(in, q);
	return q->next;
}

/*
 * Free every queued packet and give every slot back to the pool; with
 * nothing queued the clocks start anew.
 */
static __noinline void edt_drain(struct edt_inst *in, u32 id)
{
	struct edt_fast *f = bpf_map_lookup_elem(&fast, &id);
	struct sk_buff *skb;
	u32 cg = in->cls_head;
	int c;

	if (f) {
		skb = bpf_kptr_xchg(&f->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
	}
	class_drain(in, &in->classes[0]);
	bpf_for(c, 0, qd_cap_cgroups) {
		if (!cg)
			break;
		cg = class_drain_one(in, cg);
	}
	pkt_return(&in->pkt_cache);
	bpf_for(c, 0, EDT_PRIOS)
		in->vtime[c & (EDT_PRIOS - 1)] = 0;
	edt_heaps_init(in);
	in->busy = 0;
	in->t_next = 0;
	in->last_len = 0;
	in->due = 0;
	in->wd_at = 0;
}

/* Give cgroup class c of instance slot back; returns the next of the instance's. */
__noinline u32 class_release(struct edt_inst *in, u32 slot, u32 c)
{
	struct edt_class *q = cls_at(c);
	u32 next;

	if (!in || !q || !c)
		return 0;
	next = q->next;
	class_free(in, slot, c, q);
	return next;
}

/* .destroy, after the drain: every class of the instance goes back to the pool. */
static __noinline void edt_release(struct edt_inst *in, u32 id)
{
	u32 c = in->cls_head;
	int i;

	bpf_for(i, 0, qd_cap_cgroups) {
		if (!c)
			break;
		c = class_release(in, id, c);
	}
	in->cls_head = 0;
}

SEC("struct_ops/edt_init")
int BPF_PROG(edt_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct edt_inst *in;
	s64 slot;
	u32 id;
	int i;

	slot = qd_init_instance(sch, &slots, &cfgs, &pending, sizeof(struct edt_cfg));
	if (slot < 0)
		return slot;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return -ENOSPC;
	__builtin_memset(&in->stats, 0, sizeof(in->stats));
	__builtin_memset(&in->classes[0], 0, sizeof(in->classes[0]));
	/* An iterator: clang makes a loop of stores a memset, too long for BPF. */
	bpf_for(i, 0, EDT_PRIOS)
		in->vtime[i & (EDT_PRIOS - 1)] = 0;
	/* The slot's last owner gave everything back in its .destroy. */
	__builtin_memset(&in->pkt_cache, 0, sizeof(in->pkt_cache));
	in->busy = 0;
	/* The slot's last owner gave its classes back in its .destroy. */
	in->cls_head = 0;
	edt_heaps_init(in);
	in->cgset = 0;
	in->due = 0;
	in->wd_at = 0;
	in->t_next = 0;
	in->last_len = 0;
	in->inv_rate = 0;
	in->inv = 0;
	in->win_start = bpf_ktime_get_ns();
	in->seen = in->win_start;
	in->win_bytes = 0;
	return 0;
}

/*
 * Before the qdisc, on the same device: CE-mark ECN-capable packets that the
 * root edt instance will send later than ce_threshold from now. The instance is the one whose slot
 * the root qdisc's limit names, if it sits there.
 */
SEC("tc")
int edt_ce_mark(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	const struct net_device *dev = skb->dev;
	const struct Qdisc *q = dev->qdisc;
	struct qd_inst_hdr *h;
	struct edt_inst *in;
	const struct edt_cgroup *e;
	struct edt_class *cq;
	struct edt_cfg *cfg;
	u64 now, ready;
	bool tcp;
	u32 id;

	/* Most packets cannot be marked: they cost this test only. */
	if (!q || !qd_maybe_ect(ctx, skb))
		return TC_ACT_OK;
	id = q->limit - 1;
	h = bpf_map_lookup_elem(&slots, &id);
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!h || !in || !cfg || !h->in_use || h->handle != q->handle ||
	    h->place.parent != TC_H_ROOT || h->place.ifindex != dev->ifindex ||
	    h->place.netns != dev->nd_net.net->net_cookie)
		return TC_ACT_OK;
	now = bpf_ktime_get_ns();
	ready = now;
	e = edt_entry_of(local_sock(skb, &tcp), cfg);
	/* A cgroup's first packet finds no class yet: nothing of it is queued. */
	if (e && (cq = cls_at(class_find(id, e->id))) && cq->owner == id + 1) {
		struct edt_par par;

		class_par(cfg, e, &par);
		ready = class_done(cq, &par, now);
	}
	if (edt_estimate(in, now, ready, cfg_rate(cfg->rate)) >
		    now + cfg_min(cfg->ce_threshold, EDT_MAX_HORIZON) &&
	    bpf_skb_ecn_set_ce(ctx))
		__sync_fetch_and_add(&in->stats.ce_marks, 1);
	return TC_ACT_OK;
}

QD_QDISC_OPS_RELEASE(edt, struct edt_inst);
