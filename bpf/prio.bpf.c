// SPDX-License-Identifier: GPL-2.0
/*
 * prio: pfifo_fast's behaviour as a BPF qdisc, with sch_prio's bands and
 * priomap. A packet goes to band priomap[skb->priority & TC_PRIO_MAX];
 * dequeue always serves the lowest-numbered band that holds packets.
 *
 * Each band of each instance owns PRIO_RING consecutive slots of one ARRAY
 * of skb kptrs and free-running head/tail counters, as fifo's ring does,
 * and a bit in the instance's active mask while its ring holds packets.
 * Dequeue finds the band to serve in that mask, so a band a `change`
 * removed still drains (after the remaining bands) and loses nothing.
 *
 * As in fifo, a packet that finds the whole qdisc empty waits in the
 * instance's fast slot instead of a ring, and the final empty dequeue reads
 * only sch->q.qlen. Such a packet is counted when it arrives, under its
 * priority rather than its band, so that its enqueue reads no options and
 * its dequeue is fifo's: userspace adds each priority's counts to the band
 * the current priomap gives it (after a `change` of the priomap, past fast
 * packets follow the new map; the qdisc's totals are exact either way).
 * Its priority and length are kept next to it for userspace, which shows
 * it queued rather than sent. The slot takes only a packet that is one
 * segment (a GSO packet goes to its band's ring, whose dequeue counts its
 * segments), so the fast path never reads the skb's shared info. The rings' paths
 * are functions of their own: the fast path's then uses, and saves, fewer
 * registers. No lock (the root lock serialises an instance), no
 * allocation per packet.
 */
#include "common.h"
#include "prio.h"

char _license[] SEC("license") = "GPL";

struct prio_slot {
	struct sk_buff __kptr *skb;
};

QD_INSTANCE_MAPS(struct prio_inst, struct prio_cfg);

/* Ring slots of each band of each instance, a power of two: the largest limit. */
QD_CAP(band_packets, PRIO_RING);

/* Every band of every instance: qd_cap_instances * PRIO_BANDS_MAX * qd_cap_band_packets. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, QD_DEFAULT_INSTANCES * PRIO_BANDS_MAX * PRIO_RING);
	__type(key, u32);
	__type(value, struct prio_slot);
} ring SEC(".maps");

static __always_inline struct prio_slot *prio_slot(u32 id, u32 band, u32 pos)
{
	u32 key = (id * PRIO_BANDS_MAX + band) * qd_cap_band_packets +
		  (pos & (qd_cap_band_packets - 1));

	return bpf_map_lookup_elem(&ring, &key);
}

/* The lowest set bit's number; mask is not 0. BPF has no ctz instruction. */
static __always_inline u32 lowest_band(u32 mask)
{
	u32 b = 0;

	mask &= -mask;
	if (mask & 0xffff0000)
		b += 16;
	if (mask & 0xff00ff00)
		b += 8;
	if (mask & 0xf0f0f0f0)
		b += 4;
	if (mask & 0xcccccccc)
		b += 2;
	if (mask & 0xaaaaaaaa)
		b += 1;
	return b;
}

/*
 * GSO segments of skb, as bpf_qdisc_bstats_update counts packets, so that
 * the bands' counters add up to the qdisc's. Only a GSO packet's length
 * differs from its qdisc length (or one a size table changed), so the
 * shared info is read only then.
 */
static __always_inline u32 prio_segs(struct sk_buff *skb, u32 len)
{
	struct skb_shared_info *shinfo;

	if (len == skb->len)
		return 1;
	shinfo = bpf_core_cast(skb->head + skb->end, struct skb_shared_info);
	return shinfo->gso_size ? shinfo->gso_segs : 1;
}

static __always_inline void prio_drain(struct prio_inst *in, u32 id)
{
	struct sk_buff *skb;
	int i, j;

	skb = bpf_kptr_xchg(&in->fast, NULL);
	if (skb) {
		/* Counted when it arrived, but never sent. */
		struct prio_count *p = &in->prio[in->fast_prio & (PRIO_PRIOS - 1)];

		p->bytes -= in->fast_len;
		p->packets--;
		bpf_kfree_skb(skb);
	}
	in->fast_len = 0;
	bpf_for(i, 0, PRIO_BANDS_MAX) {
		struct prio_band *b = &in->band[i & (PRIO_BANDS_MAX - 1)];

		bpf_for(j, 0, qd_cap_band_packets) {
			struct prio_slot *s;

			if (b->head == b->tail)
				break;
			s = prio_slot(id, i & (PRIO_BANDS_MAX - 1), b->head++);
			if (!s)
				continue;
			skb = bpf_kptr_xchg(&s->skb, NULL);
			if (skb)
				bpf_kfree_skb(skb);
		}
		b->head = b->tail;
		b->backlog = 0;
	}
	in->active = 0;
}

/*
 * enqueue for a qdisc that holds packets (or for a GSO packet): skb joins
 * its band's ring, or is dropped at the band's limit. Not inlined, so that
 * the registers it needs are not pushed and popped on the fast slot's
 * path; the options are read only here, which the fast slot has no need of.
 */
static __noinline int prio_enqueue_ring(unsigned long long *ctx, struct prio_inst *in, u32 len)
{
	struct sk_buff *skb = ENQ_SKB(ctx);
	struct prio_band *b;
	struct prio_cfg *cfg;
	struct Qdisc *sch;
	struct prio_slot *s;
	u32 band, limit, n;
	bool fast;

	/* Keyed by in->id, which needs no copy of the slot's number on the stack. */
	cfg = bpf_map_lookup_elem(&cfgs, &in->id);
	if (!cfg)
		goto drop;
	band = cfg->priomap[skb->priority & (PRIO_PRIOS - 1)] & (PRIO_BANDS_MAX - 1);
	b = &in->band[band];
	limit = cfg->limit;
	/* pfifo_fast's bound: the device's txqueuelen, a band. */
	if (!limit)
		limit = ENQ_SCH(ctx)->dev_queue->dev->tx_queue_len;
	/* At most the ring, whatever cfgs holds. */
	if (limit > qd_cap_band_packets)
		limit = qd_cap_band_packets;
	/* The fast packet is in the band the current priomap gives its priority. */
	fast = in->fast_len && cfg->priomap[in->fast_prio & (PRIO_PRIOS - 1)] == band;
	n = b->tail - b->head + fast;
	if (n >= limit)
		goto drop_band;
	s = prio_slot(qd_slot(ENQ_SCH(ctx)), band, b->tail);
	if (!s)
		goto drop_band;
	b->tail++;
	b->backlog += len;
	in->active |= 1U << band;
	sch = ENQ_SCH(ctx);
	sch->q.qlen++;
	sch->qstats.backlog += len;
	/* limit <= the ring keeps the slot free. */
	skb = bpf_kptr_xchg(&s->skb, skb);
	return qd_enq_stored(ctx, skb);
drop_band:
	b->drops++;
drop:
	sch = ENQ_SCH(ctx);
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(skb, ENQ_TO_FREE(ctx));
	return NET_XMIT_DROP;
}

SEC("struct_ops/prio_enqueue")
int prio_enqueue(unsigned long long *ctx)
{
	u32 id = qd_slot(ENQ_SCH(ctx));
	struct prio_inst *in = bpf_map_lookup_elem(&insts, &id);
	struct prio_count *p;
	struct sk_buff *skb;
	struct Qdisc *sch;
	u32 prio, len;

	if (!in)
		goto drop;
	skb = ENQ_SKB(ctx);
	sch = ENQ_SCH(ctx);
	len = qdisc_pkt_len(skb);
	/*
	 * Only a packet that finds the qdisc empty takes the fast slot, and
	 * only one whose qdisc length is its length, so one segment: a GSO
	 * packet (or one a size table changed) goes to the ring, whose
	 * dequeue reads the segments from its shared info.
	 */
	if (sch->q.qlen || len != skb->len)
		return prio_enqueue_ring(ctx, in, len);
	/*
	 * Empty, so below any limit (>= 1) and the fast slot is free. Counted
	 * under its priority, which needs no options: userspace finds the band.
	 */
	sch->q.qlen = 1;
	sch->qstats.backlog += len;
	prio = skb->priority & (PRIO_PRIOS - 1);
	in->fast_prio = prio;
	in->fast_len = len;
	p = &in->prio[prio];
	p->bytes += len;
	p->packets++;
	skb = bpf_kptr_xchg(&in->fast, skb);
	return qd_enq_stored(ctx, skb);
drop:
	ENQ_SCH(ctx)->qstats.drops++;
	bpf_qdisc_skb_drop(ENQ_SKB(ctx), ENQ_TO_FREE(ctx));
	return NET_XMIT_DROP;
}

/*
 * The packet at the head of the lowest-numbered band holding packets, out
 * of its ring and counted in its band and the qdisc's totals. Not inlined,
 * so that the registers it needs are not pushed and popped on the fast
 * slot's path, nor on the final empty dequeue's.
 */
static __noinline struct sk_buff *prio_dequeue_ring(struct Qdisc *sch, struct prio_inst *in, u32 id)
{
	struct prio_band *b;
	struct prio_slot *s;
	struct sk_buff *skb;
	u32 band, len;

	if (!in->active)
		return NULL;
	band = lowest_band(in->active);
	b = &in->band[band & (PRIO_BANDS_MAX - 1)];
	s = prio_slot(id, band, b->head++);
	if (b->head == b->tail)
		in->active &= ~(1U << band);
	if (!s)
		return NULL;
	skb = bpf_kptr_xchg(&s->skb, NULL);
	if (!skb)
		return NULL;
	len = qdisc_pkt_len(skb);
	b->backlog -= len;
	b->bytes += len;
	b->packets += prio_segs(skb, len);
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

SEC("struct_ops/prio_dequeue")
struct sk_buff *BPF_PROG(prio_dequeue, struct Qdisc *sch)
{
	struct prio_inst *in;
	struct sk_buff *skb;
	u32 id, len;

	if (!sch->q.qlen)
		return NULL;
	id = qd_slot(sch);
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return NULL;
	if (in->fast) {
		/*
		 * It arrived at an empty qdisc: nothing queued is older. Its
		 * length is taken from fast_len, and the queue's length and
		 * backlog are settled before the exchange, so that neither
		 * reads the skb (a pointer kptr_xchg returns costs a checked
		 * load) and only sch and skb outlive the exchange.
		 */
		len = in->fast_len;
		in->fast_len = 0;
		sch->q.qlen--;
		sch->qstats.backlog -= len;
		skb = bpf_kptr_xchg(&in->fast, NULL);
		/* Cannot happen: the root lock keeps the slot as tested. */
		if (!skb)
			return NULL;
		bpf_qdisc_bstats_update(sch, skb);
		return skb;
	}
	return prio_dequeue_ring(sch, in, id);
}

SEC("struct_ops/prio_init")
int BPF_PROG(prio_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	s64 slot = qd_init_instance(sch, &slots, &cfgs, &pending, sizeof(struct prio_cfg));
	struct prio_inst *in;
	int i;
	u32 id;

	if (slot < 0)
		return slot;
	id = slot;
	in = bpf_map_lookup_elem(&insts, &id);
	if (!in)
		return -ENOSPC;
	/* .destroy left the fast slot and the rings empty; the counters start anew. */
	in->id = id;
	in->fast_len = 0;
	in->active = 0;
	bpf_for(i, 0, PRIO_BANDS_MAX) {
		struct prio_band *b = &in->band[i & (PRIO_BANDS_MAX - 1)];

		b->head = 0;
		b->tail = 0;
		b->backlog = 0;
		b->bytes = 0;
		b->packets = 0;
		b->drops = 0;
	}
	bpf_for(i, 0, PRIO_PRIOS) {
		struct prio_count *p = &in->prio[i & (PRIO_PRIOS - 1)];

		p->bytes = 0;
		p->packets = 0;
	}
	return 0;
}

QD_QDISC_OPS(prio, struct prio_inst);
