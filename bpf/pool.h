/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool of slots shared by every instance of a registration (packets,
 * flows), for a kind that would otherwise preallocate its worst case per
 * instance.
 *
 * The slots are entries of an ARRAY map numbered base .. base + cap - 1;
 * index 0 is never handed out, so it ends every chain. Free slots are linked
 * into chains through a field of the slot. Instances run at the same time
 * on different CPUs (mq children each have their own root lock), so what
 * they share must be safe without a lock of ours:
 *
 * - a STACK map holds the heads of chains given back; push and pop take
 *   the map's own lock, and a chain popped belongs to the popper alone;
 * - slots never handed out are taken a batch at a time by an atomic add
 *   on a counter, so a fresh pool needs no filling at registration.
 *
 * An instance takes slots from a chain of its own (struct qd_pool_cache,
 * cur) and puts freed ones on it. When cur is empty it takes its spare
 * chain, else a chain from the stack, else a batch of never-used slots.
 * A slot freed onto a full cur (a batch) starts a new one, the full one
 * becoming the spare and the old spare going to the stack. So an instance
 * holds at most two batches of free slots, and it touches what is shared
 * at most once every batch of packets; a queue that stays short never
 * does. Reset and destroy give everything back (name_return).
 *
 * The including program supplies the maps and the accessor:
 *
 *	QD_POOL(name, type, at, stack, fresh, cap, base, batch, next, len)
 *
 *	type	the slot's struct
 *	at	at(u32 idx) returns a type * (the ARRAY lookup) or NULL
 *	stack	a BPF_MAP_TYPE_STACK of __u32 with room for cap entries
 *		(every chain holds a slot, so it is never full)
 *	fresh	a __u64 * (or NULL: none to be had) to the count of
 *		never-used slots handed out, 0 at load: a global, or a
 *		field of a map value the program looks up
 *	cap	the count at which never-used slots run out (a qd_cap_NAME)
 *	base	the index a count of 0 stands for: slot base + count is
 *		handed out, which must never be 0 (base 1; or base 0 with
 *		the count started above 0, as fq's flows start at their
 *		first index after the reserved ones)
 *	batch	slots a chain holds at most
 *	next	a __u32 field of type: the next slot of a chain
 *	len	a __u32 field of type: a chain's length, kept in its head
 *		while the chain is in the stack
 *
 * and gets
 *
 *	u32 name_alloc(struct qd_pool_cache *c, type **slot)
 *		a free slot's index (and *slot), or 0 when the pool has none
 *	void name_free(struct qd_pool_cache *c, u32 idx, type *slot)
 *		slot idx is free again; the caller has emptied it (kptrs)
 *	void name_return(struct qd_pool_cache *c)
 *		everything c holds goes back to the pool
 *
 * next may be the field the caller links its own lists through: a slot is
 * on a chain only while it is free. c must be zeroed before first use.
 */
#ifndef QDISCCTL_BPF_POOL_H
#define QDISCCTL_BPF_POOL_H

#define QD_POOL(name, type, at, stack, fresh, cap, base, batch, next, len)                 \
	/* Refill an empty cur: from the spare, the stack or never-used slots. */          \
	static __noinline bool name##_refill(struct qd_pool_cache *c)                      \
	{                                                                                  \
		const u32 nb = (batch);                                                    \
		__u64 *fr;                                                                 \
		type *s;                                                                   \
		u64 first;                                                                 \
		u32 head;                                                                  \
		int i;                                                                     \
                                                                                           \
		if (c->spare.head) {                                                       \
			c->cur = c->spare;                                                 \
			c->spare.head = 0;                                                 \
			c->spare.n = 0;                                                    \
			return true;                                                       \
		}                                                                          \
		if (!bpf_map_pop_elem(&stack, &head) && (s = at(head))) {                  \
			c->cur.head = head;                                                \
			c->cur.n = s->len;                                                 \
			return true;                                                       \
		}                                                                          \
		fr = (fresh);                                                              \
		if (!fr)                                                                   \
			return false;                                                      \
		first = __sync_fetch_and_add(fr, nb);                                      \
		if (first >= (cap))                                                        \
			return false;                                                      \
		/* Chain them in index order: the last one ends the chain. */              \
		head = 0;                                                                  \
		c->cur.n = 0;                                                              \
		bpf_for(i, 0, nb) {                                                        \
			u64 n = first + nb - 1 - i;                                        \
                                                                                           \
			if (n >= (cap) || !(s = at((base) + (u32)n)))                      \
				continue;                                                  \
			s->next = head;                                                    \
			head = (base) + (u32)n;                                            \
			c->cur.n++;                                                        \
		}                                                                          \
		c->cur.head = head;                                                        \
		return head != 0;                                                          \
	}                                                                                  \
                                                                                           \
	static __always_inline u32 name##_alloc(struct qd_pool_cache *c, type **slot)      \
	{                                                                                  \
		type *s;                                                                   \
		u32 idx;                                                                   \
                                                                                           \
		if (!c->cur.head && !name##_refill(c))                                     \
			return 0;                                                          \
		idx = c->cur.head;                                                         \
		s = at(idx);                                                               \
		if (!s)                                                                    \
			return 0;                                                          \
		c->cur.head = s->next;                                                     \
		c->cur.n--;                                                                \
		*slot = s;                                                                 \
		return idx;                                                                \
	}                                                                                  \
                                                                                           \
	/* Give the spare chain to the stack. */                                           \
	static __noinline void name##_spill(struct qd_pool_cache *c)                       \
	{                                                                                  \
		u32 head = c->spare.head;                                                  \
		type *s = at(head);                                                        \
                                                                                           \
		if (s) {                                                                   \
			s->len = c->spare.n;                                               \
			bpf_map_push_elem(&stack, &head, 0);                               \
		}                                                                          \
		c->spare.head = 0;                                                         \
		c->spare.n = 0;                                                            \
	}                                                                                  \
                                                                                           \
	/*                                                                                 \
	 * A full cur moves to the spare before the slot goes on, not after: a             \
	 * queue of one packet then takes and frees within cur, where moving               \
	 * it at batch would swap cur and spare on every packet.                           \
	 */                                                                                \
	static __always_inline void name##_free(struct qd_pool_cache *c, u32 idx, type *s) \
	{                                                                                  \
		if (c->cur.n >= (batch)) {                                                 \
			if (c->spare.head)                                                 \
				name##_spill(c);                                           \
			c->spare = c->cur;                                                 \
			c->cur.head = 0;                                                   \
			c->cur.n = 0;                                                      \
		}                                                                          \
		s->next = c->cur.head;                                                     \
		c->cur.head = idx;                                                         \
		c->cur.n++;                                                                \
	}                                                                                  \
                                                                                           \
	static __always_inline void name##_return(struct qd_pool_cache *c)                 \
	{                                                                                  \
		if (c->spare.head)                                                         \
			name##_spill(c);                                                   \
		c->spare = c->cur;                                                         \
		c->cur.head = 0;                                                           \
		c->cur.n = 0;                                                              \
		if (c->spare.head)                                                         \
			name##_spill(c);                                                   \
	}

#endif
