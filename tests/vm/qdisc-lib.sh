# qdiscctl's own test helpers; source after lib.sh. busybox ash only.

# qd ARGS...: qdiscctl in namespace a, where netns_pair puts va.
qd() { qdiscctl -n "$NS_A" "$@"; }

# quiet_ns NS...: no IPv6 (DAD, router solicitations), so nothing but the
# test's own traffic crosses the qdiscs and counters can be compared.
quiet_ns() {
	for _ns; do
		ip netns exec "$_ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
			echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' || fail "quiet_ns $_ns"
	done
}

# jget JSON FILTER: jq -r FILTER over JSON.
jget() { printf '%s' "$1" | jq -r "$2"; }

no_qdisc_ops() { ! bpftool struct_ops show 2>/dev/null | grep -q Qdisc_ops; }

# assert_clean: nothing of qdiscctl is left in bpffs or the kernel.
assert_clean() {
	[ ! -e /sys/fs/bpf/qdiscctl ] || fail "${1:-assert_clean}: bpffs holds $(ls -R /sys/fs/bpf/qdiscctl | tr '\n' ' ')"
	# A struct_ops map is freed after an RCU grace period.
	wait_until 5 no_qdisc_ops || fail "${1:-assert_clean}: still registered: $(bpftool struct_ops show)"
}

# expect_fail RC PATTERN CMD...: CMD exits with RC, prints nothing on stdout and
# exactly one line on stderr, matching PATTERN.
expect_fail() {
	_rc=$1 _pat=$2
	shift 2
	"$@" >/tmp/ef.out 2>/tmp/ef.err
	_got=$?
	[ "$_got" = "$_rc" ] || fail "$*: exit $_got, expected $_rc ($(cat /tmp/ef.err))"
	[ ! -s /tmp/ef.out ] || fail "$*: printed on stdout: $(cat /tmp/ef.out)"
	[ "$(wc -l </tmp/ef.err)" = 1 ] || fail "$*: expected one line on stderr, got: $(cat /tmp/ef.err)"
	grep -Eq -- "$_pat" /tmp/ef.err || fail "$*: /$_pat/ not in: $(cat /tmp/ef.err)"
}

# big_sndbuf: let senders ask for 4 MB socket buffers (init netns only),
# so that one UDP socket has enough packets in flight to fill a queue.
# iperf3 -w asks its server for as big a receive buffer. Linux 6.18 raised
# both maxima's defaults to 4 MB; before, they are 208 KB.
big_sndbuf() {
	set_sysctl net.core.wmem_max 8388608
	set_sysctl net.core.rmem_max 8388608
}

# sample_max_qlen NS DEV SAMPLES: the largest qlen DEV's root qdisc shows in
# about SAMPLES * 50 ms, from qstat's netlink samples every 5 ms taken by a
# real-time thread, so neither the sender starves it nor forks slow it.
sample_max_qlen() {
	ip netns exec "$1" chrt -f 10 qstat -d "$2" -i 5ms -n $(($3 * 10)) -s |
		sed -n 's/.*max_qlen \([0-9]*\).*/\1/p'
}

# iperf_server NS: a one-shot iperf3 server in NS, ready when this returns.
iperf_server() {
	ip netns exec "$1" iperf3 -s -1 >/tmp/iperf-server.log 2>&1 &
	_srv_up() { ip netns exec "$1" ss -ltn 2>/dev/null | grep -q ':5201 '; }
	wait_until 5 _srv_up "$1" || fail "iperf3 server in $1 did not start"
}

# stats_of NS DEV: the qdisc's counters from qdiscctl and from tc, as one
# compact JSON object each on two lines, with the same fields.
stats_fields='.[0] | {kind, handle, root, refcnt, bytes, packets, drops, overlimits, requeues, backlog, qlen}'

# napi_prepare: make va -> vb able to hold a backlog on demand (veth goes
# through the peer's NAPI ring only without TSO, with GRO and threaded
# NAPI on vb); sets $napi to vb's NAPI threads (one a receive queue), or
# skips the case. Needs 2 CPUs.
napi_prepare() {
	[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || skip "needs 2 CPUs"
	in_a ethtool -K va tso off gso off >/dev/null 2>&1
	in_b ethtool -K vb gro on >/dev/null 2>&1 || skip "no GRO on veth"
	in_b sh -c 'echo 1 >/sys/class/net/vb/threaded' || skip "no threaded NAPI"
	napi=
	for _p in /proc/[0-9]*; do
		case $(cat "$_p/comm" 2>/dev/null) in napi/vb-*) napi="$napi ${_p#/proc/}" ;; esac
	done
	[ -n "$napi" ] || skip "no NAPI thread for vb"
}

# napi_starve: from now on vb's ring fills and va's qdisc holds what is
# sent: vb's NAPI threads get CPU 1 and a real-time priority below a
# spinner's there (a CFS thread would still get the fair server's share);
# everything else, this shell and the senders included, stays on CPU 0.
# napi_release ends it.
napi_starve() {
	must taskset -p -c 0 $$ >/dev/null
	for _p in $napi; do
		must taskset -p -c 1 "$_p" >/dev/null
		must chrt -f -p 10 "$_p"
	done
	set_sysctl kernel.sched_rt_runtime_us -1
	chrt -f 50 taskset -c 1 sh -c 'while :; do :; done' &
	napi_hog=$!
	sleep 0.2
}
napi_release() {
	kill "$napi_hog"
	wait "$napi_hog" 2>/dev/null
	return 0
}

# flood_held N: N datagrams of 1400 bytes from a to b, all sent while vb's
# NAPI threads cannot run (napi_starve), so veth's ring (256) fills, veth
# stops va's txq and va's root qdisc holds, and beyond its limit drops,
# the rest however fast or slow the host is; no sender racing a receiver.
# Sets $held_qlen to the largest qlen seen while held, then lets vb drain.
# Needs napi_prepare.
flood_held() {
	napi_starve
	in_a udpflows -d "$IP_B" -p 9000 -n "$1" -l 1400 -b 4000000 >/tmp/flood.out 2>&1
	_rc=$?
	held_qlen=$(sample_max_qlen a va 2)
	napi_release
	[ "$_rc" = 0 ] || fail "udpflows -n $1 failed: $(cat /tmp/flood.out)"
	log "flood: $(cat /tmp/flood.out)"
}
