// SPDX-License-Identifier: GPL-2.0
/*
 * htb's classifier in the cgroups section: the class of a packet is the
 * one of its socket's cgroup, or of the nearest ancestor that has one,
 * from a hash map keyed by cgroup v2 id (bench.sh fills it), as edt finds
 * a packet's entry. A cls_bpf program without direct-action returns the
 * classid (0: none, htb's default class).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

/* As deep as edt looks (EDT_CGROUP_DEPTH). */
#define CGCLS_LEVELS 8

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} cgcls_map SEC(".maps");

SEC("tc")
int cgcls(struct __sk_buff *skb)
{
	__u64 id = bpf_skb_cgroup_id(skb);
	__u32 *classid;
	int level;

	if (!id)
		return 0;
	classid = bpf_map_lookup_elem(&cgcls_map, &id);
	if (classid)
		return *classid;
	for (level = CGCLS_LEVELS - 1; level > 0; level--) {
		id = bpf_skb_ancestor_cgroup_id(skb, level);
		if (!id)
			continue;
		classid = bpf_map_lookup_elem(&cgcls_map, &id);
		if (classid)
			return *classid;
	}
	return 0;
}
