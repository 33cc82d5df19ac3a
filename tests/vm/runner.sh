#!/bin/sh
# In-VM test runner, started by /init. Runs each case in /tests/cases.list as
# "/bin/sh CASE" with a timeout, reports PASS/FAIL/SKIP, resets the machine
# between cases, and finally checks the kernel log.
#
# Environment (from the kernel command line, see /init):
#   VMTEST_CASES    comma-separated case names to run (default: all)
#   VMTEST_TIMEOUT  default per-case timeout in seconds (default 120); a case
#                   can set its own with a line "# vmtest-timeout: N"
#   VMTEST_VERBOSE  1: print every case's output, not only failures'

. /tests/lib.sh

default_timeout=${VMTEST_TIMEOUT:-120}
passed=0 failed=0 skipped=0
klog=/tmp/vmtest-kernel.log
baseline_links=" $(echo $(ls /sys/class/net)) "

indent() { sed 's/^/    /'; }

# Print at most the last 300 lines of a case's output, indented.
show_output() {
	n=$(wc -l <"$1")
	[ "$n" -le 300 ] || echo "    [... $((n - 300)) earlier lines cut ...]"
	tail -n 300 "$1" | indent
}

# Kernel messages since the last call, each tagged with the case that was
# running, so the kernel-log report can say who triggered what.
collect_klog() {
	dmesg -c | sed "s|^|[$1] |" >>"$klog"
}

# Undo whatever a case left behind, so that a crash cannot poison the next
# case. Cases should clean up themselves; this is the safety net.
reset_vm() {
	# Leftover user processes (background servers, daemons, stuck children).
	# Kernel threads have no /proc/PID/exe target; zombies neither.
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = 1 ] || [ "$p" = $$ ] || [ ! -e "/proc/$p/exe" ] || kill -KILL "$p" 2>/dev/null
	done
	ip -all netns delete 2>/dev/null
	for dev in /sys/class/net/*; do
		dev=${dev##*/}
		case $baseline_links in
		*" $dev "*)
			tc qdisc del dev "$dev" root 2>/dev/null
			tc qdisc del dev "$dev" ingress 2>/dev/null
			tc qdisc del dev "$dev" clsact 2>/dev/null
			;;
		*) ip link del "$dev" 2>/dev/null ;;
		esac
	done
	# Registered BPF qdiscs: unregister struct_ops maps (works for maps that are
	# not links), then drop bpffs pins (which releases pinned links).
	if have bpftool; then
		for id in $(bpftool struct_ops show 2>/dev/null | sed -n 's/^\([0-9]*\):.*/\1/p'); do
			bpftool struct_ops unregister id "$id" >/dev/null 2>&1
		done
	fi
	rm -rf /sys/fs/bpf/* 2>/dev/null
	if [ -f /run/vmtest-sysctl.undo ]; then
		while read -r f v; do echo "$v" >"$f"; done </run/vmtest-sysctl.undo
		rm -f /run/vmtest-sysctl.undo
	fi
	rm -rf /tmp/case.*
}

# Guest uptime in tenths of a second, to report durations.
now_ds() {
	read -r u _ </proc/uptime
	f=${u#*.}
	echo $((${u%.*} * 10 + ${f%?}))
}

run_case() {
	path=$1 name=$2
	dir=/tmp/case.$name
	out=/tmp/out.$name
	t=$(sed -n 's/^# vmtest-timeout: *\([0-9][0-9]*\).*/\1/p' "$path" | head -n 1)
	t=${t:-$default_timeout}
	mkdir -p "$dir"
	start=$(now_ds)
	# busybox timeout kills only the case's shell; reset_vm gets the rest.
	# The command after timeout keeps ash from exec'ing it in place of the
	# subshell, so ash's "Killed" notice goes to the case output, not the console.
	(
		cd "$dir" || exit 1
		export VMTEST_CASE="$name" TMPDIR="$dir"
		timeout -s KILL "$t" /bin/sh "$path"
		exit $?
	) </dev/null >"$out" 2>&1
	rc=$?
	el=$(($(now_ds) - start))
	secs="$((el / 10)).$((el % 10))s"
	collect_klog "$name"

	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $name ($secs)"
		[ "${VMTEST_VERBOSE:-0}" = 0 ] || show_output "$out"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
		why=$(sed -n 's/^SKIP: //p' "$out" | tail -n 1)
		echo "SKIP $name${why:+: $why}"
		[ "${VMTEST_VERBOSE:-0}" = 0 ] || show_output "$out"
	else
		failed=$((failed + 1))
		if [ $rc -eq 137 ] && [ $el -ge $((t * 10)) ]; then
			echo "FAIL $name (timeout after ${t}s)"
		else
			echo "FAIL $name (rc=$rc, $secs)"
		fi
		show_output "$out"
	fi
	reset_vm
	collect_klog "$name/cleanup"
}

echo "=== VMTEST-BEGIN"
collect_klog boot
ncases=0
while IFS= read -r path; do
	name=${path##*/}
	name=${name%.sh}
	case ",${VMTEST_CASES:-$name}," in
	*",$name,"*) ;;
	*) continue ;;
	esac
	ncases=$((ncases + 1))
	run_case "$path" "$name"
done </tests/cases.list
[ $ncases -gt 0 ] || { echo "FAIL no-cases (none matched '${VMTEST_CASES:-}')"; failed=1; }

# Kernel problems anywhere in the run fail it, even if every case passed.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	echo scan >$kmemleak
	cat $kmemleak | sed 's/^/[kmemleak] /' >>"$klog"
fi
collect_klog end
bad='Oops|BUG:|WARNING:|refcount_t|kmemleak|memory leak|Call Trace|soft lockup|hard LOCKUP|general protection|Kernel panic|blocked for more than|rcu_.*stall|UBSAN|KASAN|list_(add|del) corruption'
if grep -Eq "$bad" "$klog"; then
	failed=$((failed + 1))
	echo "FAIL kernel-log"
	grep -E -A 8 "$bad" "$klog" | head -n 150 | indent
fi

summary="$passed passed, $failed failed"
[ $skipped -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ $failed -eq 0 ]
