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
 * class and the link allow. Since both clocks run at dequeue, a rate
 * changed live applies to the packets already queued. Any packet waits
 * for its sender's EDT stamp (TCP's pacing, SO_TXTIME), if it has one.
 * Each class is a FIFO in time order: a list of slots of the packet pool
 * every instance of the registration shares (pool.h), so an instance
 * holds slots only for the packets it queues, plus at most two batches of
 * free ones. Dequeue sends a due cgroup packet first, else a due default
 * one: a cgroup gets its rate while the link has room for the sum of
 * them, and the rest of the link goes to the default class. The link
 * clock counts a packet when it leaves, never while its class holds it, so
 * a slow class neither wastes nor borrows the link's time.
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
#include "edt.h"
#include "pool.h"

char _license[] SEC("license") = "GPL";

#define NSEC_PER_SEC   1000000000ULL
#define RATE_WINDOW_NS (100 * 1000 * 1000ULL)
#define IPPROTO_TCP    6
#define SOCK_STREAM    1

#define TC_ACT_OK   0
#define TC_H_ROOT   0xFFFFFFFFU
#define ETH_P_IP    0x0800
#define ETH_P_IPV6  0x86DD
#define INET_ECN_CE 3

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;

/* The registration's capacity besides instances (kinds/edt.c). */
QD_CAP(packets, EDT_DEF_PACKETS);

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

/* Heads of chains of free packet slots, given back by instances. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, EDT_DEF_PACKETS);
	__type(value, u32);
} pkt_pool SEC(".maps");

/* Packet slots never handed out yet start here; instances take them by atomic adds. */
__u64 edt_fresh_pkts;

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
 * The class of a local socket's packet: 1 + the entry of the nearest
 * cgroup, the socket's own or an ancestor, that has one; else 0.
 */
static __always_inline u32 edt_class_of(const struct sock *sk, const struct edt_cfg *cfg)
{
	const struct cgroup *cg;
	u64 any = 0, id;
	int d, i;

	if (!sk)
		return 0;
	for (i = 0; i < EDT_CGROUPS; i++)
		any |= cfg->cgroups[i].id;
	if (!any)
		return 0;
	cg = sk->sk_cgrp_data.cgroup;
	/* Open-coded iterators, not bounded loops: the verifier sees each body once. */
	bpf_for(d, 0, EDT_CGROUP_DEPTH) {
		if (!cg)
			break;
		id = cg->kn->id;
		for (i = 0; i < EDT_CGROUPS; i++)
			if (cfg->cgroups[i].id == id)
				return i + 1;
		/* A cgroup's css is its first member, so the parent css is the parent. */
		cg = bpf_rdonly_cast(cg->self.parent, bpf_core_type_id_kernel(struct cgroup));
	}
	return 0;
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

/* When a cgroup's class, by its own rate, can send its last queued byte. */
static __always_inline u64 class_done(const struct edt_class *q, u64 crate, u64 now)
{
	return (q->t_next > now ? q->t_next : now) + q->backlog * NSEC_PER_SEC / crate;
}

/*
 * When a packet that its class lets go at `ready` will leave: after the
 * link is free and has sent what is queued ahead of it. Cgroups' packets
 * go first, but each class only as fast as its rate, so of a cgroup's
 * backlog only what its rate lets out by then counts.
 */
static __always_inline u64 edt_estimate(const struct edt_inst *in, const struct edt_cfg *cfg,
					u64 now, u64 ready, u64 rate)
{
	u64 t = in->t_next > now ? in->t_next : now, more = 0, r, n, d, from;
	int c;

	if (in->classes[0].backlog)
		t += in->classes[0].backlog * NSEC_PER_SEC / rate;
	if (in->busy & ~1U) {
		bpf_for(c, 1, EDT_CLASSES) {
			const struct edt_class *q = &in->classes[c];

			if (!q->backlog)
				continue;
			r = cfg->cgroups[c - 1].rate;
			from = q->t_next > now ? q->t_next : now;
			d = t > from ? (t - from) / 1000 : 0; /* us */
			n = r && d < ~0ULL / r ? d * r / 1000000 : q->backlog;
			more += n < q->backlog ? n : q->backlog;
		}
		t += more * NSEC_PER_SEC / rate;
	}
	return t > ready ? t : ready;
}

SEC("struct_ops/edt_enqueue")
int BPF_PROG(edt_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	u32 len = qdisc_pkt_len(skb), id = qd_slot(sch), c, p;
	struct edt_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct edt_cfg *cfg = bpf_map_lookup_elem(&cfgs, &id);
	u64 now, ready, stamp, snd, delay, lag, rate, crate;
	struct edt_class *q = NULL;
	const struct sock *sk;
	struct edt_slot *s, *t;
	int ret = NET_XMIT_SUCCESS;
	bool tcp;

	if (!in || !cfg)
		goto drop;
	sk = local_sock(skb, &tcp);
	c = edt_class_of(sk, cfg);
	if (c >= EDT_CLASSES)
		goto drop;
	q = &in->classes[c];
	if (c && q->id != cfg->cgroups[c - 1].id) {
		/* The entry went to another cgroup since: its counters start again. */
		q->id = cfg->cgroups[c - 1].id;
		q->bytes = q->packets = q->drops = 0;
	}
	if (sch->q.qlen >= cfg->limit || (c && q->qlen >= EDT_CGROUP_LIMIT)) {
		in->stats.cap_drops++;
		goto drop;
	}
	now = bpf_ktime_get_ns();
	/* Instances tc made without qdiscctl have no rate: they only keep EDT. */
	rate = cfg->rate ?: ~0ULL;
	/* A sender's own departure time (TCP's EDT, SO_TXTIME) is kept. */
	snd = qd_time_to_send(skb, now);
	stamp = snd > now ? snd : now;
	/* FIFO order: never before the default class's previous packet. */
	if (!c && stamp < q->t_next)
		stamp = q->t_next;
	ready = stamp;
	if (c) {
		crate = cfg->cgroups[c - 1].rate ?: ~0ULL;
		lag = class_done(q, crate, now);
		if (lag > ready)
			ready = lag;
	}
	delay = edt_estimate(in, cfg, now, ready, rate) - now;

	if (delay > cfg->horizon) {
		if ((sk && cfg->backpressure) || (tcp && tcp_in_flight(sk) < cfg->min_inflight)) {
			in->stats.held_back++;
		} else {
			in->stats.horizon_drops++;
			goto drop;
		}
	}
	if (tcp && delay > cfg->ce_threshold && ip_ecn(skb) != INET_ECN_CE) {
		in->stats.cn_signals++;
		ret = NET_XMIT_CN;
	}

	p = pkt_alloc(&in->pkt_cache, &s);
	if (!p) {
		in->stats.alloc_drops++;
		goto drop;
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
	if (!c)
		q->t_next = stamp;
	in->busy |= 1U << c;
	sch->q.qlen++;
	sch->qstats.backlog += len;
	if (!skb)
		return ret;
	/* Cannot happen (a free slot is empty); never leak what was there. */
	len = qdisc_pkt_len(skb);
	q->backlog -= len;
	sch->q.qlen--;
	sch->qstats.backlog -= len;
drop:
	if (q)
		q->drops++;
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/*
 * The class to send from now: a cgroup's class whose head is due, by its
 * stamp and its class's clock (the earliest such), else the default class
 * if its head is due, since a cgroup gets its rate while the link has room
 * for the sum of them, and its head's slot in *head. EDT_CLASSES, with
 * *when the earliest time a head is due, when none is.
 */
static __always_inline u32 edt_pick(struct edt_inst *in, u64 now, u64 *when, struct edt_slot **head)
{
	u32 busy = in->busy, best = EDT_CLASSES;
	u64 due = ~0ULL, t;
	int c;
	struct edt_slot *s;

	*when = ~0ULL;
	*head = NULL;
	if (busy & ~1U) {
		bpf_for(c, 1, EDT_CLASSES) {
			if (!(busy & (1U << c)))
				continue;
			s = pkt_at(in->classes[c].head);
			if (!s)
				continue;
			t = s->time_to_send;
			if (t < in->classes[c].t_next)
				t = in->classes[c].t_next;
			if (t < *when)
				*when = t;
			if (t <= now && t < due) {
				due = t;
				best = c;
				*head = s;
			}
		}
		if (best < EDT_CLASSES)
			return best;
	}
	if (busy & 1) {
		s = pkt_at(in->classes[0].head);
		if (s) {
			t = s->time_to_send;
			if (t <= now) {
				*head = s;
				return 0;
			}
			if (t < *when)
				*when = t;
		}
	}
	return EDT_CLASSES;
}

/*
 * Advance a clock of rate bytes/s by len, from no earlier than `burst` ago.
 * burst 0 (auto): 1 ms at the rate, at least EDT_AUTO_BURST bytes; at high
 * rates a few packets' worth would be less than the gaps a single TCP
 * flow leaves between its GSO packets, and that time would be lost.
 */
static __always_inline u64 clock_after(u64 clock, u64 now, u32 len, u64 rate, u64 burst)
{
	u64 lag = (burst ?: EDT_AUTO_BURST) * NSEC_PER_SEC / rate;

	if (!burst && lag < NSEC_PER_SEC / 1000)
		lag = NSEC_PER_SEC / 1000;

	if (lag > now)
		lag = now;
	if (clock + lag < now)
		clock = now - lag;
	return clock + len * NSEC_PER_SEC / rate;
}

SEC("struct_ops/edt_dequeue")
struct sk_buff *BPF_PROG(edt_dequeue, struct Qdisc *sch)
{
	struct edt_inst *in;
	struct edt_cfg *cfg;
	struct edt_class *q;
	struct edt_slot *s;
	struct sk_buff *skb;
	u64 now, when;
	u32 id, len, c, p;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!in || !cfg)
		return NULL;
	now = bpf_ktime_get_ns();
	if (in->t_next > now) {
		bpf_qdisc_watchdog_schedule(sch, in->t_next, cfg->timer_slack);
		return NULL;
	}
	c = edt_pick(in, now, &when, &s);
	if (c >= EDT_CLASSES || !s) {
		if (when != ~0ULL)
			bpf_qdisc_watchdog_schedule(sch, when, cfg->timer_slack);
		return NULL;
	}
	q = &in->classes[c];
	skb = bpf_kptr_xchg(&s->skb, NULL);
	p = q->head;
	q->head = s->next;
	if (!--q->qlen)
		in->busy &= ~(1U << c);
	pkt_free(&in->pkt_cache, p, s);
	if (!skb)
		return NULL;
	len = qdisc_pkt_len(skb);
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	q->backlog -= len;
	/* Only the cgroups' counters are shown. */
	if (c) {
		q->bytes += len;
		q->packets++;
	}

	/* After idle time a clock may lag by `burst`: that much leaves at once. */
	in->t_next = clock_after(in->t_next, now, len, cfg->rate ?: ~0ULL, cfg->burst);
	if (c)
		q->t_next = clock_after(q->t_next, now, len, cfg->cgroups[c - 1].rate ?: ~0ULL,
					cfg->burst);

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
 * Free every queued packet and give every slot back to the pool; with
 * nothing queued the clocks start anew.
 */
static __noinline void edt_drain(struct edt_inst *in, u32 id)
{
	int c, i;

	bpf_for(c, 0, EDT_CLASSES) {
		struct edt_class *q = &in->classes[c];

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
	}
	pkt_return(&in->pkt_cache);
	in->busy = 0;
	in->t_next = 0;
}

SEC("struct_ops/edt_init")
int BPF_PROG(edt_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct edt_inst *in;
	s64 slot;
	u32 id;

	slot = qd_init_instance(sch, &slots, &cfgs, &pending, sizeof(struct edt_cfg));
	if (slot < 0)
		return slot;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return -ENOSPC;
	__builtin_memset(&in->stats, 0, sizeof(in->stats));
	__builtin_memset(in->classes, 0, sizeof(in->classes));
	/* The slot's last owner gave everything back in its .destroy. */
	__builtin_memset(&in->pkt_cache, 0, sizeof(in->pkt_cache));
	in->busy = 0;
	in->t_next = 0;
	in->win_start = bpf_ktime_get_ns();
	in->win_bytes = 0;
	return 0;
}

/*
 * Before the qdisc, on the same device: CE-mark ECN-capable packets that the
 * root edt instance will send later than ce_threshold from now. The instance is the one whose slot
 * the root qdisc's limit names, if it sits there.
 */
/*
 * Whether the packet may be ECN-capable and not yet marked (ECT(0) or
 * ECT(1)); read directly behind an Ethernet header, else assumed.
 */
#define ETH_HLEN 14
static __always_inline bool maybe_ect(struct __sk_buff *ctx, const struct sk_buff *skb)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	u8 *ip = data + ETH_HLEN, ecn;

	if (skb->network_header - skb->mac_header != ETH_HLEN)
		return true;
	if ((void *)(ip + 2) > end)
		return false;
	if (ctx->protocol == bpf_htons(ETH_P_IP))
		ecn = ip[1] & 3;
	else if (ctx->protocol == bpf_htons(ETH_P_IPV6))
		ecn = (ip[1] >> 4) & 3;
	else
		return false;
	return ecn == 1 || ecn == 2;
}

SEC("tc")
int edt_ce_mark(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	const struct net_device *dev = skb->dev;
	const struct Qdisc *q = dev->qdisc;
	struct qd_inst_hdr *h;
	struct edt_inst *in;
	struct edt_cfg *cfg;
	u64 now, ready;
	bool tcp;
	u32 id, c;

	/* Most packets cannot be marked: they cost this test only. */
	if (!q || !maybe_ect(ctx, skb))
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
	c = edt_class_of(local_sock(skb, &tcp), cfg);
	if (c && c < EDT_CLASSES)
		ready = class_done(&in->classes[c], cfg->cgroups[c - 1].rate ?: ~0ULL, now);
	if (edt_estimate(in, cfg, now, ready, cfg->rate ?: ~0ULL) > now + cfg->ce_threshold &&
	    bpf_skb_ecn_set_ce(ctx))
		__sync_fetch_and_add(&in->stats.ce_marks, 1);
	return TC_ACT_OK;
}

QD_QDISC_OPS(edt, struct edt_inst);
