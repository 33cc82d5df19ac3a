#!/usr/bin/env bash
# On a kernel without BPF qdisc support (the build machines' own kernel),
# qdiscctl says so in one line, exits 3, and leaves nothing behind.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bpftool=${BPFTOOL:-$top/build/deps/bin/bpftool}

if "$bpftool" btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q '^struct bpf_struct_ops_Qdisc_ops {'; then
	echo "SKIP unsupported-kernel: this kernel supports BPF qdiscs"
	exit 77
fi
had_pins=$([ -e /sys/fs/bpf/qdiscctl ] && echo yes)
err=$("$top/qdiscctl" add dev lo root fifo limit 10 2>&1 >/dev/null)
rc=$?
fail=0
[ "$rc" = 3 ] || { echo "exit $rc, expected 3"; fail=1; }
[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { echo "expected one line, got: $err"; fail=1; }
case $err in *"CONFIG_NET_SCH_BPF"*) ;; *) echo "no CONFIG_NET_SCH_BPF in: $err"; fail=1 ;; esac
[ -n "$had_pins" ] || [ ! -e /sys/fs/bpf/qdiscctl ] || { echo "left /sys/fs/bpf/qdiscctl behind"; fail=1; }
# Commands that need no BPF qdisc still work.
"$top/qdiscctl" kinds >/dev/null || { echo "kinds failed"; fail=1; }
"$top/qdiscctl" show dev lo >/dev/null || { echo "show failed"; fail=1; }
[ $fail = 0 ] && echo "PASS unsupported-kernel: $err"
exit $fail
