#!/bin/sh
# Smoke test: the VM provides what every other case relies on: bpffs, vmlinux
# BTF, a kernel with BPF qdiscs, the modules, the real tools, and a working
# veth pair between two namespaces.
# vmtest-timeout: 60
. /tests/lib.sh

grep -q '^bpf /sys/fs/bpf bpf ' /proc/mounts || fail "bpffs is not mounted on /sys/fs/bpf"
[ -r /sys/kernel/btf/vmlinux ] || fail "no /sys/kernel/btf/vmlinux"

# BPF qdiscs (CONFIG_NET_SCH_BPF): the struct_ops type in BTF, or failing a
# bpftool, a function only that code has. Each takes about 2 s under TCG.
if have bpftool; then
	bpftool btf dump file /sys/kernel/btf/vmlinux | grep -q '^\[[0-9]*\] STRUCT .bpf_struct_ops_Qdisc_ops.' ||
		fail "vmlinux BTF has no struct bpf_struct_ops_Qdisc_ops"
else
	log "bpftool not in the image; checking kallsyms instead"
	grep -q ' bpf_qdisc_init_prologue$' /proc/kallsyms || fail "kernel has no bpf_qdisc_init_prologue"
fi

for m in veth dummy ifb sch_fq sch_htb sch_tbf sch_prio sch_mqprio sch_netem sch_ingress \
	cls_bpf act_mirred pktgen; do
	grep -q "^$m " /proc/modules || fail "module $m is not loaded"
done

# The real iproute2, not busybox's applet (which cannot do this).
assert_match "$(tc -V)" 'iproute2' "tc is not iproute2"
if have jq; then
	assert_eq "$(tc -j qdisc show dev lo | jq -r '.[0].kind')" noqueue "tc -j | jq"
fi

netns_pair
trap cleanup_netns EXIT
out=$(in_a ping -c 3 -i 0.2 -W 2 "$IP_B") || fail "ping a -> b failed: $out"
assert_match "$out" ' 0% packet loss' "ping"

in_b iperf3 -s -1 >server.log 2>&1 &
listening() { in_b ss -Hltn 'sport = :5201' | grep -q .; }
wait_until 10 listening || fail "iperf3 server did not start: $(cat server.log)"
out=$(in_a iperf3 -c "$IP_B" -t 1) || fail "iperf3 failed: $out"
assert_match "$out" 'receiver' "iperf3 output"
wait
log "$(printf '%s\n' "$out" | grep receiver)"
