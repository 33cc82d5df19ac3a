/* SPDX-License-Identifier: GPL-2.0 */
/* What every qdiscctl BPF qdisc needs: kfuncs, constants, instance slots. */
#ifndef QDISCCTL_BPF_COMMON_H
#define QDISCCTL_BPF_COMMON_H

/*
 * vmlinux.h carries the prototypes of the kernel it was dumped from, some
 * of which (the non-_impl graph kfuncs) exist only on recent kernels. We
 * declare what we call ourselves so the programs load on every kernel
 * since 6.16.
 */
#define BPF_NO_KFUNC_PROTOTYPES
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"

#define NET_XMIT_SUCCESS 0x00
#define NET_XMIT_DROP	 0x01
#define NET_XMIT_CN	 0x02

#define EINVAL 22
#define ENOSPC 28

extern void bpf_qdisc_skb_drop(struct sk_buff *skb, struct bpf_sk_buff_ptr *to_free_list) __ksym;
extern void bpf_qdisc_bstats_update(struct Qdisc *sch, const struct sk_buff *skb) __ksym;
extern void bpf_qdisc_watchdog_schedule(struct Qdisc *sch, u64 expire, u64 delta_ns) __ksym;
extern void bpf_kfree_skb(struct sk_buff *skb) __ksym;
extern u32 bpf_skb_get_hash(struct sk_buff *skb) __ksym;

/*
 * pkt_len is the first field of struct qdisc_skb_cb, which fills the start
 * of skb->cb. Read as cb's first word, one relocation (cb's offset) sits
 * on the load itself; through the struct, cb's address took three more
 * instructions.
 */
static __always_inline u32 qdisc_pkt_len(const struct sk_buff *skb)
{
	return *(const u32 *)skb->cb;
}

/*
 * A capacity of the registration (kinds/kind.h, struct qd_cap): qdiscctl
 * writes it into the object's read-only data before loading, and sizes
 * the maps to match (the descriptor's map_entries), so no size is fixed at
 * build time. def is what an object loaded by anything else gets. The
 * verifier sees the loaded value as a constant.
 */
#define QD_CAP(name, def) const volatile __u32 qd_cap_##name = (def)

/* Instance slots: the entries of insts and cfgs. Every kind has it. */
QD_CAP(instances, QD_DEFAULT_INSTANCES);

/*
 * The maps every kind has: "slots" (who holds each slot: struct
 * qd_inst_hdr), "insts" (a slot's state), "cfgs" (a slot's options, apart
 * from the hot state so that qdiscctl can rewrite them whole) and
 * "pending" (options qdiscctl leaves for an instance about to be made,
 * keyed by its place, plus the kind's defaults). qdiscctl opens and pins
 * them by these names and sizes them for qd_cap_instances (pending: one
 * more, for the defaults). The holders are a map of their own, which
 * qdiscctl maps into its memory: finding an instance among thousands of
 * slots then costs no system call per slot.
 */
#define QD_INSTANCE_MAPS(inst_type, cfg_type)                    \
	struct {                                                 \
		__uint(type, BPF_MAP_TYPE_ARRAY);                \
		__uint(max_entries, QD_DEFAULT_INSTANCES);       \
		__uint(map_flags, BPF_F_MMAPABLE);               \
		__type(key, u32);                                \
		__type(value, struct qd_inst_hdr);               \
	} slots SEC(".maps");                                    \
	struct {                                                 \
		__uint(type, BPF_MAP_TYPE_ARRAY);                \
		__uint(max_entries, QD_DEFAULT_INSTANCES);       \
		__type(key, u32);                                \
		__type(value, inst_type);                        \
	} insts SEC(".maps");                                    \
	struct {                                                 \
		__uint(type, BPF_MAP_TYPE_ARRAY);                \
		__uint(max_entries, QD_DEFAULT_INSTANCES);       \
		__type(key, u32);                                \
		__type(value, cfg_type);                         \
	} cfgs SEC(".maps");                                     \
	struct {                                                 \
		__uint(type, BPF_MAP_TYPE_HASH);                 \
		__uint(max_entries, QD_DEFAULT_INSTANCES + 1);   \
		__type(key, struct qd_place);                    \
		__type(value, cfg_type);                         \
	} pending SEC(".maps")

/* Where sch sits. Never read .init's opt: it is NULL for default qdiscs and
 * the verifier does not guard the load (the kernel oopses).
 */
static __always_inline void qd_place_of(const struct Qdisc *sch, struct qd_place *p)
{
	const struct net_device *dev = sch->dev_queue->dev;

	p->netns = dev->nd_net.net->net_cookie;
	p->ifindex = dev->ifindex;
	p->parent = sch->parent;
}

/* The slot number sch claimed in .init, or -1 when it owns none. */
static __always_inline s64 qd_slot(const struct Qdisc *sch)
{
	return (s64)sch->limit - 1;
}

/*
 * Claim a free entry of the "slots" array. Instances are created under
 * RTNL, but mq children of different devices can be torn down
 * concurrently, hence the cmpxchg.
 */
static __always_inline s64 qd_claim(void *slots)
{
	int i;

	bpf_for(i, 0, qd_cap_instances) {
		u32 key = i;
		struct qd_inst_hdr *h = bpf_map_lookup_elem(slots, &key);

		if (!h)
			break;
		if (!h->in_use && __sync_val_compare_and_swap(&h->in_use, 0, 1) == 0)
			return i;
	}
	return -1;
}

/* Give slot id of slots back (.destroy). */
static __always_inline void qd_release(void *slots, u32 id)
{
	struct qd_inst_hdr *h = bpf_map_lookup_elem(slots, &id);

	if (!h)
		return;
	h->handle = 0;
	h->place.netns = 0;
	h->place.ifindex = 0;
	h->place.parent = 0;
	__sync_lock_test_and_set(&h->in_use, 0);
}

/*
 * A kind's options for the instance being created: what qdiscctl left
 * under its place, else the kind's defaults (written at registration).
 */
static __always_inline void *qd_pending_cfg(void *pending, const struct qd_place *place)
{
	struct qd_place defaults = {};
	void *cfg = bpf_map_lookup_elem(pending, place);

	return cfg ? cfg : bpf_map_lookup_elem(pending, &defaults);
}

/*
 * What every kind's .init does first: claim an entry of slots and keep it
 * in sch->limit (so that .destroy gives it back even when the rest of
 * .init fails),
 * copy the options qdiscctl left for this place (or the kind's defaults)
 * into the slot's cfgs entry of cfg_size bytes, and record where the
 * instance sits. Returns the slot or -errno; the kind then sets up its own
 * state.
 */
static __always_inline s64 qd_init_instance(struct Qdisc *sch, void *slots, void *cfgs,
					    void *pending, u32 cfg_size)
{
	struct qd_place place = {};
	struct qd_inst_hdr *h;
	void *src, *cfg;
	s64 slot;
	u32 id;

	qd_place_of(sch, &place);
	src = qd_pending_cfg(pending, &place);
	if (!src)
		return -EINVAL;
	slot = qd_claim(slots);
	if (slot < 0)
		return -ENOSPC;
	id = slot;
	h = bpf_map_lookup_elem(slots, &id);
	cfg = bpf_map_lookup_elem(cfgs, &id);
	if (!h || !cfg)
		return -ENOSPC;
	sch->limit = id + 1;
	/*
	 * As u64s: map values are 8-byte aligned and every cfg a multiple of
	 * 8 bytes; through void pointers clang copies byte by byte (7 KB of
	 * edt_init).
	 */
	__builtin_memcpy((u64 *)cfg, (const u64 *)src, cfg_size);
	h->handle = sch->handle;
	h->place = place;
	bpf_map_delete_elem(pending, &place);
	return slot;
}

/*
 * enqueue's arguments, read from ctx where they are needed instead of
 * through BPF_PROG: every helper call (lookups and kptr_xchg, though the
 * verifier inlines them) clobbers r1-r5, so arguments loaded at entry
 * would each hold a callee-saved register, which the JIT pushes and pops
 * on every call.
 */
#define ENQ_SKB(ctx)	 ((struct sk_buff *)(ctx)[0])
#define ENQ_SCH(ctx)	 ((struct Qdisc *)(ctx)[1])
#define ENQ_TO_FREE(ctx) ((struct bpf_sk_buff_ptr *)(ctx)[2])

/*
 * The end of an enqueue that counted its packet in qlen and backlog and
 * put it with bpf_kptr_xchg into a slot it knew free: old is what the
 * slot held. It cannot be a packet; should it be one, that packet is
 * dropped (and uncounted) rather than leaked.
 */
static __always_inline int qd_enq_stored(unsigned long long *ctx, struct sk_buff *old)
{
	struct Qdisc *sch;

	if (!old)
		return NET_XMIT_SUCCESS;
	sch = ENQ_SCH(ctx);
	sch->q.qlen--;
	sch->qstats.backlog -= qdisc_pkt_len(old);
	sch->qstats.drops++;
	bpf_qdisc_skb_drop(old, ENQ_TO_FREE(ctx));
	return NET_XMIT_DROP;
}

/*
 * A kind's .reset and .destroy, and its Qdisc_ops: both free what the
 * instance holds with name##_drain(in, id), which the kind defines; reset
 * then zeroes the queue's length and backlog, destroy gives the slot back.
 * An instance whose .init failed before it claimed a slot has none, and
 * neither finds anything to do. The ops' id is set by qdiscctl from the
 * kind's descriptor. QD_QDISC_OPS_RELEASE is the same for a kind that holds
 * more than its queue until .destroy (fq: bucket blocks of a shared pool):
 * destroy calls name##_release(in, id) after the drain.
 */
#define QD_QDISC_OPS(name, inst_type) QD_QDISC_OPS_(name, inst_type, )
#define QD_QDISC_OPS_RELEASE(name, inst_type) \
	QD_QDISC_OPS_(name, inst_type, name##_release(in, id);)
#define QD_QDISC_OPS_(name, inst_type, release)                               \
	SEC("struct_ops/" #name "_reset")                                     \
	void BPF_PROG(name##_reset, struct Qdisc *sch)                        \
	{                                                                     \
		u32 id = qd_slot(sch);                                        \
		inst_type *in = bpf_map_lookup_elem(&insts, &id);             \
                                                                              \
		if (!in)                                                      \
			return;                                               \
		name##_drain(in, id);                                         \
		sch->q.qlen = 0;                                              \
		sch->qstats.backlog = 0;                                      \
	}                                                                     \
                                                                              \
	SEC("struct_ops/" #name "_destroy")                                   \
	void BPF_PROG(name##_destroy, struct Qdisc *sch)                      \
	{                                                                     \
		u32 id = qd_slot(sch);                                        \
		inst_type *in = bpf_map_lookup_elem(&insts, &id);             \
                                                                              \
		if (!in)                                                      \
			return;                                               \
		/* .reset ran first, except after a failed .init. */          \
		name##_drain(in, id);                                         \
		release                                                       \
		qd_release(&slots, id);                                       \
	}                                                                     \
                                                                              \
	SEC(".struct_ops.link")                                               \
	struct Qdisc_ops name = {                                             \
		.enqueue = (void *)name##_enqueue,                            \
		.dequeue = (void *)name##_dequeue,                            \
		.init = (void *)name##_init,                                  \
		.reset = (void *)name##_reset,                                \
		.destroy = (void *)name##_destroy,                            \
	}

/*
 * When skb may leave, on CLOCK_MONOTONIC: its EDT stamp, or now. Kept by
 * the qdisc, not written back: tstamp_type is read-only to BPF, and a
 * monotonic time in a realtime-typed stamp confuses receivers.
 */
static __always_inline u64 qd_time_to_send(struct sk_buff *skb, u64 now)
{
	u64 ts = skb->tstamp;
	u8 type;

	if (!ts)
		return now;
	type = BPF_CORE_READ_BITFIELD(skb, tstamp_type);
	if (type == SKB_CLOCK_MONOTONIC)
		return ts;
	if (type == SKB_CLOCK_TAI)
		return ts - (bpf_ktime_get_tai_ns() - now);
	/* A realtime stamp on egress is a receive time, not a departure time. */
	return now;
}

#endif
