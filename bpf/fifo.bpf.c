// SPDX-License-Identifier: GPL-2.0
/*
 * fifo: pfifo's behaviour (tail drop at `limit` packets) as a BPF qdisc.
 *
 * Each instance owns qd_cap_packets consecutive slots of one ARRAY of skb
 * kptrs and free-running head/tail counters. No lock: the qdisc root lock
 * serialises one instance, and instances never share slots. Positions come
 * from our own counters, never from sch->q.qlen, which also counts a packet
 * the driver handed back (requeue) and would leave a hole in the ring.
 *
 * The common case, a packet arriving at an empty qdisc and leaving at once,
 * takes a shorter path: the packet waits in the instance's fast slot, a
 * kptr in its insts value, so neither side looks up a ring slot or the
 * options (any limit admits one packet), and the final empty dequeue reads
 * only sch->q.qlen. bench/README.md has the measured costs.
 */
#include "common.h"
#include "fifo.h"

char _license[] SEC("license") = "GPL";

struct fifo_inst {
	/*
	 * A packet that found the whole qdisc empty (sch->q.qlen == 0, so
	 * neither this slot nor the ring holds one) waits here, served
	 * before the ring. Packets arriving while it is full go to the ring,
	 * so the order stays first in, first out.
	 */
	struct sk_buff __kptr *fast;
	u32 head;
	u32 tail;
};

/*
 * Where an instance's free-running ring counters start: any value works.
 * `make alt` builds a qdiscctl that starts them elsewhere, a second program
 * body from one source, for the upgrade test (tests/vm/cases/19-upgrade.sh).
 */
#ifndef FIFO_FIRST_POS
#define FIFO_FIRST_POS 0
#endif

struct fifo_slot {
	struct sk_buff __kptr *skb;
};

QD_INSTANCE_MAPS(struct fifo_inst, struct fifo_cfg);

/* Ring slots of each instance, a power of two: the largest limit. */
QD_CAP(packets, FIFO_RING);

/* Every instance's ring, one after the other: qd_cap_instances * qd_cap_packets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_DEFAULT_INSTANCES * FIFO_RING);
	__type(key, u32);
	__type(value, struct fifo_slot);
} ring SEC(".maps");

static __always_inline struct fifo_slot *fifo_slot(u32 id, u32 pos)
{
	u32 key = id * qd_cap_packets + (pos & (qd_cap_packets - 1));

	return bpf_map_lookup_elem(&ring, &key);
}

static __always_inline void fifo_drain(struct fifo_inst *in, u32 id)
{
	struct sk_buff *skb;
	int i;

	skb = bpf_kptr_xchg(&in->fast, NULL);
	if (skb)
		bpf_kfree_skb(skb);
	bpf_for(i, 0, qd_cap_packets) {
		struct fifo_slot *s;

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
int fifo_enqueue(unsigned long long *ctx)
{
	u32 id = qd_slot(ENQ_SCH(ctx));
	struct fifo_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct sk_buff *skb = ENQ_SKB(ctx);
	struct Qdisc *sch = ENQ_SCH(ctx);
	struct fifo_cfg *cfg;
	struct fifo_slot *s;
	u32 len;

	if (!in)
		goto drop;
	len = qdisc_pkt_len(skb);
	if (!sch->q.qlen) {
		/* Empty, so below any limit (>= 1) and the fast slot is free. */
		sch->q.qlen = 1;
		sch->qstats.backlog += len;
		skb = bpf_kptr_xchg(&in->fast, skb);
	} else {
		cfg = bpf_map_lookup_elem(&cfgs, &id);
		/* A limit beyond the ring (cfgs may hold anything) is the ring. */
		if (!cfg || ENQ_SCH(ctx)->q.qlen >= cfg->limit ||
		    ENQ_SCH(ctx)->q.qlen >= qd_cap_packets)
			goto drop;
		s = fifo_slot(id, in->tail);
		if (!s)
			goto drop;
		in->tail++;
		sch = ENQ_SCH(ctx);
		sch->q.qlen++;
		sch->qstats.backlog += len;
		/* The slot is free: qlen >= ring occupancy, and qlen < the ring. */
		skb = bpf_kptr_xchg(&s->skb, skb);
	}
	return qd_enq_stored(ctx, skb);
drop:
	sch = ENQ_SCH(ctx);
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, ENQ_TO_FREE(ctx));
	return NET_XMIT_DROP;
}

SEC("struct_ops/fifo_dequeue")
struct sk_buff *BPF_PROG(fifo_dequeue, struct Qdisc *sch)
{
	struct fifo_inst *in;
	struct sk_buff *skb;
	u32 id;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return NULL;
	if (in->fast) {
		skb = bpf_kptr_xchg(&in->fast, NULL);
	} else {
		struct fifo_slot *s;

		if (in->head == in->tail)
			return NULL;
		s = fifo_slot(id, in->head++);
		if (!s)
			return NULL;
		skb = bpf_kptr_xchg(&s->skb, NULL);
	}
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
	s64 slot = qd_init_instance(sch, &slots, &cfgs, &pending, sizeof(struct fifo_cfg));
	struct fifo_inst *in;
	u32 id;

	if (slot < 0)
		return slot;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return -ENOSPC;
	/* .destroy left the fast slot and the ring empty. */
	in->head = FIFO_FIRST_POS;
	in->tail = FIFO_FIRST_POS;
	return 0;
}

QD_QDISC_OPS(fifo, struct fifo_inst);
