// SPDX-License-Identifier: GPL-2.0
/*
 * fifo: pfifo's behaviour (tail drop at `limit` packets) as a BPF qdisc.
 *
 * Each instance owns FIFO_RING consecutive slots of one ARRAY of skb
 * kptrs and free-running head/tail counters. No lock: the qdisc root lock
 * serialises one instance, and instances never share slots. Positions come
 * from our own counters, never from sch->q.qlen, which also counts a packet
 * the driver handed back (requeue) and would leave a hole in the ring.
 */
#include "common.h"
#include "fifo.h"

char _license[] SEC("license") = "GPL";

struct fifo_inst {
	struct qd_inst_hdr hdr;
	u32 head;
	u32 tail;
};

/* Every instance's ring, one after the other. */
#define FIFO_SLOTS (QD_MAX_INSTANCES * FIFO_RING)

struct fifo_slot {
	struct sk_buff __kptr *skb;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_MAX_INSTANCES);
	__type(key, u32);
	__type(value, struct fifo_inst);
} insts SEC(".maps");

/* Options live apart from the hot state so qdiscctl can rewrite them whole. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_MAX_INSTANCES);
	__type(key, u32);
	__type(value, struct fifo_cfg);
} cfgs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, QD_MAX_INSTANCES + 1);
	__type(key, struct qd_place);
	__type(value, struct fifo_cfg);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FIFO_SLOTS);
	__type(key, u32);
	__type(value, struct fifo_slot);
} ring SEC(".maps");

static __always_inline struct fifo_slot *fifo_slot(u32 id, u32 pos)
{
	u32 key = id * FIFO_RING + (pos & (FIFO_RING - 1));

	return bpf_map_lookup_elem(&ring, &key);
}

static __always_inline void fifo_drain(struct fifo_inst *in, u32 id)
{
	int i;

	bpf_for(i, 0, FIFO_RING) {
		struct fifo_slot *s;
		struct sk_buff *skb;

		if (in->head == in->tail)
			break;
		s = fifo_slot(id, in->head++);
		if (!s)
			continue;
		skb = bpf_kptr_xchg(&s->skb, NULL);
		if (skb)
			bpf_kfree_skb(skb);
	}
}

SEC("struct_ops/fifo_enqueue")
int BPF_PROG(fifo_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	u32 len = qdisc_pkt_len(skb);
	u32 id = qd_slot(sch);
	struct fifo_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct fifo_cfg *cfg = bpf_map_lookup_elem(&cfgs, &id);
	struct fifo_slot *s;

	if (!in || !cfg || sch->q.qlen >= cfg->limit)
		goto drop;
	s = fifo_slot(id, in->tail);
	if (!s)
		goto drop;
	/*
	 * The slot is free: limit <= FIFO_RING and qlen >= ring occupancy.
	 * Should that ever break, the packet that was there is dropped rather
	 * than leaked.
	 */
	skb = bpf_kptr_xchg(&s->skb, skb);
	in->tail++;
	sch->q.qlen++;
	sch->qstats.backlog += len;
	if (!skb)
		return NET_XMIT_SUCCESS;
	sch->q.qlen--;
	sch->qstats.backlog -= qdisc_pkt_len(skb);
drop:
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

SEC("struct_ops/fifo_dequeue")
struct sk_buff *BPF_PROG(fifo_dequeue, struct Qdisc *sch)
{
	struct fifo_inst *in;
	struct fifo_slot *s;
	struct sk_buff *skb;
	u32 id;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in || in->head == in->tail)
		return NULL;
	s = fifo_slot(id, in->head++);
	if (!s)
		return NULL;
	skb = bpf_kptr_xchg(&s->skb, NULL);
	if (!skb)
		return NULL;
	sch->q.qlen--;
	sch->qstats.backlog -= qdisc_pkt_len(skb);
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

SEC("struct_ops/fifo_init")
int BPF_PROG(fifo_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct qd_place place = {};
	struct fifo_cfg *src, *cfg;
	struct fifo_inst *in;
	u32 id;
	s64 slot;

	qd_place_of(sch, &place);
	src = qd_pending_cfg(&pending, &place);
	if (!src)
		return -EINVAL;
	slot = qd_claim(&insts, QD_MAX_INSTANCES);
	if (slot < 0)
		return -ENOSPC;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	cfg = bpf_map_lookup_elem(&cfgs, &id);
	if (!in || !cfg)
		return -ENOSPC;
	*cfg = *src;
	in->head = 0;
	in->tail = 0;
	in->hdr.handle = sch->handle;
	in->hdr.place = place;
	bpf_map_delete_elem(&pending, &place);
	sch->limit = id + 1;
	return 0;
}

SEC("struct_ops/fifo_reset")
void BPF_PROG(fifo_reset, struct Qdisc *sch)
{
	u32 id = qd_slot(sch);
	struct fifo_inst *in = bpf_map_lookup_elem(&insts, &id);

	if (!in)
		return;
	fifo_drain(in, id);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
}

SEC("struct_ops/fifo_destroy")
void BPF_PROG(fifo_destroy, struct Qdisc *sch)
{
	u32 id = qd_slot(sch);
	struct fifo_inst *in = bpf_map_lookup_elem(&insts, &id);

	if (!in)
		return;
	/* .reset ran first, except after a failed .init, which owns no slot. */
	fifo_drain(in, id);
	qd_release(&in->hdr);
}

/* The kind's id is set by qdiscctl from its descriptor. */
SEC(".struct_ops.link")
struct Qdisc_ops fifo = {
	.enqueue = (void *)fifo_enqueue,
	.dequeue = (void *)fifo_dequeue,
	.init = (void *)fifo_init,
	.reset = (void *)fifo_reset,
	.destroy = (void *)fifo_destroy,
};
