// SPDX-License-Identifier: GPL-2.0
/*
 * An empty fentry program on bfifo's enqueue: bench.sh measures what one
 * BPF trampoline round trip adds to a packet (bfifo with it minus bfifo),
 * and, with bpf_stats on, what bpf_stats' window reads for a program that
 * does nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

SEC("fentry/bfifo_enqueue")
int BPF_PROG(bench_empty)
{
	return 0;
}
