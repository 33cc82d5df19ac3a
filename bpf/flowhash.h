/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flow hash for packets without a socket of their own, at a fraction of
 * skb_get_hash()'s cost: the kernel's flow dissector runs about 670
 * instructions per packet (measured under icount), mostly for encapsulations
 * and keys a plain TCP or UDP packet does not have.
 *
 * IPv4 and IPv6 packets of TCP, UDP, UDP-Lite, SCTP and DCCP hash their
 * addresses, protocol and ports; ICMP and IPv4 fragments hash addresses and
 * protocol (the flow dissector leaves ports out of fragments too, so that a
 * datagram's fragments stay together). The hardware VLAN tag is mixed in.
 * Everything else (tunnels, IPv6 extension headers, other protocols) gets
 * skb_get_hash(). Which way a packet goes depends only on headers every
 * packet of a flow shares, so a flow never hashes two ways.
 *
 * Keyed with random words, as skb_get_hash() is: senders cannot pick ports
 * that land in another flow's queue once orphan_mask folds the hash.
 */
#ifndef QDISCCTL_BPF_FLOWHASH_H
#define QDISCCTL_BPF_FLOWHASH_H

#include <bpf/bpf_endian.h>

#define FH_ETH_P_IP   0x0800
#define FH_ETH_P_IPV6 0x86DD
#define FH_IP_MF      0x2000
#define FH_IP_OFFSET  0x1fff
#define FH_ICMPV6     58

extern int bpf_dynptr_from_skb(struct __sk_buff *s, u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, u64 offset, void *buffer__opt,
			      u64 buffer__szk) __ksym;

/* The most 32-bit words a flow key has (IPv6: addresses, ports, protocol and VLAN). */
#define FH_WORDS 11

/*
 * Multilinear hashing (Lemire and Kaser, "Strongly universal string hashing
 * is fast"): the top half of k[0] + sum of k[i + 1] * x[i] over 64 bits. Two
 * different keys collide with probability about 2^-32 over the random k,
 * whatever the sender picks, for a few multiplications per packet.
 */
static __always_inline u32 fh_hash(const u32 *x, int n, const u64 *k)
{
	u64 h = k[0];
	int i;

#pragma unroll
	for (i = 0; i < n; i++)
		h += k[i + 1] * x[i];
	return h >> 32;
}

/* 1: the protocol has 16-bit source and destination ports first, 0: it is
 * hashed without ports, -1: left to the flow dissector.
 */
static __always_inline int fh_l4(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return 1;
	case IPPROTO_ICMP:
	case FH_ICMPV6:
		return 0;
	}
	return -1;
}

/* The ports at offset off of skb, in *ports; false if they are not there. */
static __always_inline bool fh_ports(const struct bpf_dynptr *d, u32 off, u32 *ports)
{
	u32 buf, *p = bpf_dynptr_slice(d, off, &buf, sizeof(buf));

	if (!p)
		return false;
	*ports = *p;
	return true;
}

/* The flow hash of skb under key k (FH_WORDS + 1 random words). */
static __always_inline u32 flow_hash(struct sk_buff *skb, const u64 *k)
{
	/* __dev_queue_xmit() set the mac header where skb->data starts. */
	u32 nh = (u16)(skb->network_header - skb->mac_header), ports = 0;
	struct bpf_dynptr d;
	u32 x[FH_WORDS];
	int l4;

	if (bpf_dynptr_from_skb((struct __sk_buff *)skb, 0, &d))
		return bpf_skb_get_hash(skb);
	if (skb->protocol == bpf_htons(FH_ETH_P_IP)) {
		/* One slice for the header and the ports right after it. */
		struct fh_ip4 {
			struct iphdr ip;
			u32 ports;
		} buf, *p = bpf_dynptr_slice(&d, nh, &buf, sizeof(buf));
		struct iphdr ibuf, *ip = p ? &p->ip : bpf_dynptr_slice(&d, nh, &ibuf, sizeof(ibuf));

		if (!ip || ip->version != 4 || ip->ihl < 5 || (l4 = fh_l4(ip->protocol)) < 0)
			return bpf_skb_get_hash(skb);
		if (ip->frag_off & bpf_htons(FH_IP_MF | FH_IP_OFFSET))
			l4 = 0;
		x[0] = ip->saddr;
		x[1] = ip->daddr;
		x[2] = ip->protocol;
		x[3] = skb->vlan_all;
		if (l4 && p && ip->ihl == 5)
			ports = p->ports;
		else if (l4 && !fh_ports(&d, nh + ip->ihl * 4, &ports))
			return bpf_skb_get_hash(skb);
		x[4] = ports;
		return fh_hash(x, 5, k);
	}
	if (skb->protocol == bpf_htons(FH_ETH_P_IPV6)) {
		struct fh_ip6 {
			struct ipv6hdr ip6;
			u32 ports;
		} buf, *p = bpf_dynptr_slice(&d, nh, &buf, sizeof(buf));
		struct ipv6hdr ibuf,
			*ip6 = p ? &p->ip6 : bpf_dynptr_slice(&d, nh, &ibuf, sizeof(ibuf));

		if (!ip6 || ip6->version != 6 || (l4 = fh_l4(ip6->nexthdr)) < 0)
			return bpf_skb_get_hash(skb);
		/* Cut off before its ports: malformed, the flow dissector's. */
		if (l4 && !p)
			return bpf_skb_get_hash(skb);
		__builtin_memcpy(x, &ip6->saddr, 32);
		x[8] = ip6->nexthdr;
		x[9] = skb->vlan_all;
		x[10] = l4 ? p->ports : 0;
		return fh_hash(x, 11, k);
	}
	return bpf_skb_get_hash(skb);
}

#endif
