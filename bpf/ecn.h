/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the tcx egress programs that CE-mark for a qdisc (a BPF qdisc cannot
 * write packet data): which packets may be marked. Include after common.h.
 */
#ifndef QDISCCTL_BPF_ECN_H
#define QDISCCTL_BPF_ECN_H

#include <bpf/bpf_endian.h>

#define TC_ACT_OK   0
#define ETH_HLEN    14
#define ETH_P_IP    0x0800
#define ETH_P_IPV6  0x86DD
#define INET_ECN_CE 3

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/*
 * Whether the packet may be ECN-capable and not yet marked (ECT(0) or
 * ECT(1)); read directly behind an Ethernet header, else assumed.
 */
static __always_inline bool qd_maybe_ect(struct __sk_buff *ctx, const struct sk_buff *skb)
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

#endif
