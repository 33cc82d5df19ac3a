// SPDX-License-Identifier: GPL-2.0
/*
 * edt: an aggregate rate limiter by earliest departure time, in the lineage
 * of the kernel's HBM sample.
 *
 * Each packet is given the time the link is free for it (a virtual clock
 * that advances by len/rate, allowed to lag `burst` behind now after idle
 * time); packets leave in that order and the watchdog wakes the queue for
 * the next one. Since one clock serves every packet, departure times never
 * decrease and one FIFO ring per instance keeps them in order.
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

char _license[] SEC("license") = "GPL";

#define NSEC_PER_SEC	1000000000ULL
#define RATE_WINDOW_NS	(100 * 1000 * 1000ULL)
#define IPPROTO_TCP	6
#define SOCK_STREAM	1

#define TC_ACT_OK	0
#define TC_H_ROOT	0xFFFFFFFFU
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define INET_ECN_CE	3

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

struct edt_slot {
	struct sk_buff __kptr *skb;
	__u64 time_to_send;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EDT_MAX_INSTANCES);
	__type(key, u32);
	__type(value, struct edt_inst);
} insts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EDT_MAX_INSTANCES);
	__type(key, u32);
	__type(value, struct edt_cfg);
} cfgs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EDT_MAX_INSTANCES + 1);
	__type(key, struct qd_place);
	__type(value, struct edt_cfg);
} pending SEC(".maps");

#define EDT_SLOTS (EDT_MAX_INSTANCES * EDT_RING)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EDT_SLOTS);
	__type(key, u32);
	__type(value, struct edt_slot);
} ring SEC(".maps");

static __always_inline struct edt_slot *edt_slot(u32 id, u32 pos)
{
	u32 key = id * EDT_RING + (pos & (EDT_RING - 1));

	return bpf_map_lookup_elem(&ring, &key);
}

/* The socket of a local TCP flow, or NULL. */
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

SEC("struct_ops/edt_enqueue")
int BPF_PROG(edt_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	u32 len = qdisc_pkt_len(skb), id = qd_slot(sch);
	struct edt_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct edt_cfg *cfg = bpf_map_lookup_elem(&cfgs, &id);
	u64 now, start, tts, delay, lag, rate;
	const struct sock *sk;
	struct edt_slot *s;
	int ret = NET_XMIT_SUCCESS;
	bool tcp;

	if (!in || !cfg)
		goto drop;
	if (sch->q.qlen >= cfg->limit) {
		in->stats.cap_drops++;
		goto drop;
	}
	now = bpf_ktime_get_ns();
	/* Instances tc made without qdiscctl have no rate: they only keep EDT. */
	rate = cfg->rate ?: ~0ULL;
	/* After idle time the clock may lag by `burst`: that much leaves at once. */
	lag = cfg->burst * NSEC_PER_SEC / rate;
	if (lag > now)
		lag = now;
	start = in->t_next;
	if (start + lag < now)
		start = now - lag;
	tts = start > now ? start : now;
	/* A sender's own departure time (TCP's EDT, SO_TXTIME) is kept. */
	start = qd_time_to_send(skb, now);
	if (start > tts)
		tts = start;
	delay = tts - now;

	sk = local_sock(skb, &tcp);
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

	s = edt_slot(id, in->tail);
	if (!s)
		goto drop;
	s->time_to_send = tts;
	skb = bpf_kptr_xchg(&s->skb, skb);
	in->tail++;
	in->t_next = tts + len * NSEC_PER_SEC / rate;
	sch->q.qlen++;
	sch->qstats.backlog += len;
	if (!skb)
		return ret;
	/* Cannot happen (limit <= EDT_RING); never leak what was there. */
	sch->q.qlen--;
	sch->qstats.backlog -= qdisc_pkt_len(skb);
drop:
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

SEC("struct_ops/edt_dequeue")
struct sk_buff *BPF_PROG(edt_dequeue, struct Qdisc *sch)
{
	struct edt_inst *in;
	struct edt_cfg *cfg;
	struct edt_slot *s;
	struct sk_buff *skb;
	u32 id, len;
	u64 now;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!in || !cfg || in->head == in->tail)
		return NULL;
	s = edt_slot(id, in->head);
	if (!s)
		return NULL;
	now = bpf_ktime_get_ns();
	if (s->time_to_send > now) {
		bpf_qdisc_watchdog_schedule(sch, s->time_to_send, cfg->timer_slack);
		return NULL;
	}
	skb = bpf_kptr_xchg(&s->skb, NULL);
	in->head++;
	if (!skb)
		return NULL;
	len = qdisc_pkt_len(skb);
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	in->win_bytes += len;
	if (now - in->win_start >= RATE_WINDOW_NS) {
		in->stats.rate_est = in->win_bytes * NSEC_PER_SEC / (now - in->win_start);
		in->win_start = now;
		in->win_bytes = 0;
	}
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

static __always_inline void edt_drain(struct edt_inst *in, u32 id)
{
	int i;

	bpf_for(i, 0, EDT_RING) {
		struct edt_slot *s;
		struct sk_buff *skb;

		if (in->head == in->tail)
			break;
		s = edt_slot(id, in->head++);
		if (!s)
			continue;
		skb = bpf_kptr_xchg(&s->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
	}
}

SEC("struct_ops/edt_init")
int BPF_PROG(edt_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct edt_inst *in;
	s64 slot;
	u32 id;

	slot = qd_init_instance(sch, &insts, &cfgs, &pending, EDT_MAX_INSTANCES,
				sizeof(struct edt_cfg));
	if (slot < 0)
		return slot;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return -ENOSPC;
	__builtin_memset(&in->stats, 0, sizeof(in->stats));
	in->head = in->tail = 0;
	in->t_next = 0;
	in->win_start = bpf_ktime_get_ns();
	in->win_bytes = 0;
	sch->limit = id + 1;
	return 0;
}

SEC("struct_ops/edt_reset")
void BPF_PROG(edt_reset, struct Qdisc *sch)
{
	u32 id = qd_slot(sch);
	struct edt_inst *in = bpf_map_lookup_elem(&insts, &id);

	if (!in)
		return;
	edt_drain(in, id);
	in->t_next = 0;
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

SEC("struct_ops/edt_destroy")
void BPF_PROG(edt_destroy, struct Qdisc *sch)
{
	u32 id = qd_slot(sch);
	struct edt_inst *in = bpf_map_lookup_elem(&insts, &id);

	if (!in)
		return;
	edt_drain(in, id);
	qd_release(&in->hdr);
}

/*
 * Before the qdisc, on the same device: CE-mark ECN-capable packets that the
 * root edt instance will schedule past ce_threshold. The instance is the one
 * whose slot the root qdisc's limit names, if it sits there.
 */
SEC("tc")
int edt_ce_mark(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	const struct net_device *dev = skb->dev;
	const struct Qdisc *q = dev->qdisc;
	struct edt_inst *in;
	struct edt_cfg *cfg;
	u64 now;
	u32 id;

	if (!q)
		return TC_ACT_OK;
	id = q->limit - 1;
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!in || !cfg || !in->hdr.in_use || in->hdr.handle != q->handle ||
	    in->hdr.place.parent != TC_H_ROOT || in->hdr.place.ifindex != dev->ifindex ||
	    in->hdr.place.netns != dev->nd_net.net->net_cookie)
		return TC_ACT_OK;
	now = bpf_ktime_get_ns();
	if (in->t_next > now + cfg->ce_threshold && bpf_skb_ecn_set_ce(ctx))
		__sync_fetch_and_add(&in->stats.ce_marks, 1);
	return TC_ACT_OK;
}

/* The kind's id is set by qdiscctl from its descriptor. */
SEC(".struct_ops.link")
struct Qdisc_ops edt = {
	.enqueue = (void *)edt_enqueue,
	.dequeue = (void *)edt_dequeue,
	.init = (void *)edt_init,
	.reset = (void *)edt_reset,
	.destroy = (void *)edt_destroy,
};
