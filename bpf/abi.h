/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What qdiscctl and its BPF qdiscs share: map layouts read or written from
 * both sides. Included by BPF programs (after vmlinux.h) and by userspace
 * (after <linux/types.h>), so only fixed-width __u types appear here.
 */
#ifndef QDISCCTL_BPF_ABI_H
#define QDISCCTL_BPF_ABI_H

/*
 * The kernel gives a BPF qdisc no private area: every instance of one
 * registration shares its maps. Each instance therefore claims a slot in
 * the registration's "slots" array in .init and keeps the slot number in
 * sch->limit, the one writable Qdisc field nothing else reads for a BPF
 * qdisc. An ARRAY lookup by that number is inlined by the verifier, so
 * per-instance state costs a few instructions per packet, not a hash lookup.
 */
/*
 * Instance slots of an object loaded as compiled. qdiscctl sizes each
 * registration for its host instead (qd_cap_instances).
 */
#define QD_DEFAULT_INSTANCES 64

/* Identifies where an instance sits: the key of the "pending" config map. */
struct qd_place {
	__u64 netns; /* network namespace cookie (SO_NETNS_COOKIE) */
	__u32 ifindex;
	__u32 parent; /* TC_H_ROOT or an mq class */
};

/*
 * sch->limit holds the slot number plus one, so that a Qdisc whose .init
 * failed before claiming a slot (limit still 0) owns nothing in .destroy.
 */
#define QD_NO_SLOT 0

/* A "slots" value: who holds the slot, whose state is the same key of "insts". */
struct qd_inst_hdr {
	__u32 in_use; /* claimed with cmpxchg in .init, cleared in .destroy */
	__u32 handle;
	struct qd_place place;
};

/*
 * Free slots of a registration-wide pool (bpf/pool.h) an instance keeps
 * for itself, in its "insts" value: chains linked through the slots, each
 * a head (0: empty) and a length.
 */
struct qd_pool_chain {
	__u32 head, n;
};

struct qd_pool_cache {
	struct qd_pool_chain cur, spare;
};

/*
 * Entries of an option (edt's cgroups) kept in maps of their own, apart
 * from the options (kinds/kind.h, struct qd_entries): a set of them is
 * written whole, and the options name it.
 */
struct qd_entry_key {
	__u32 set; /* the set's number (the kind's own maps: an instance slot) */
	__u32 pad;
	__u64 id; /* the entry's, e.g. a cgroup's id */
};

/* The entries of a set in their order: i < how many the options say. */
struct qd_entry_pos {
	__u32 set;
	__u32 i;
};

/* The "pending" key qdiscctl writes a kind's default options under. */
#define QD_DEFAULTS_IFINDEX 0

#endif
