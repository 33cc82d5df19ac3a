# Helpers for VM test cases; source with ". /tests/lib.sh". busybox ash: no
# bashisms here or in cases.
#
# A case is run as "/bin/sh CASE" in its own process, in an empty scratch
# directory (also $TMPDIR). Exit status: 0 pass, 77 skip, anything else fail;
# its output is shown only on failure (or with run -v). A line
# "# vmtest-tools: PROG..." puts those host programs (and their libraries)
# into the VM of a run that has the case (tests/vm/run).
# "# vmtest-timeout: N" in the case sets its timeout (default 120 s, guest
# time); on timeout it is killed. Afterwards the runner kills leftover
# processes, deletes all named netns and any link that was not there at
# boot, deletes root/ingress/clsact qdiscs on the rest, unregisters BPF
# struct_ops, empties /sys/fs/bpf and undoes set_sysctl.
# Environment: VMTEST_CASE (case name), VMTEST_ICOUNT=1 under --icount,
# VMTEST_VERBOSE=1 under -v, any other vmtest.KEY=VAL from the kernel
# command line as VMTEST_KEY. Every tests/vm/*.sh is available as /tests/NAME.

# Busybox's sh runs its own applets before searching PATH, so plain "ip", "tc"
# or "ping" would be busybox's limited versions; route them to the real tools.
# Things exec'd by other programs ("ip netns exec a tc ...", "timeout 5 ...")
# are not affected by these functions: ip netns exec finds the real tools on
# PATH, busybox's timeout/xargs/sh -c would find busybox's, so give those the
# full path (/usr/sbin/ip, /usr/sbin/tc, /usr/bin/ping).
ip() { /usr/sbin/ip "$@"; }
tc() { /usr/sbin/tc "$@"; }
ss() { /usr/bin/ss "$@"; }
ping() { /usr/bin/ping "$@"; }
[ -x /usr/bin/taskset ] && taskset() { /usr/bin/taskset "$@"; }

# Addresses netns_pair sets up; pktgen and static neighbours need the MACs.
NS_A=a
NS_B=b
DEV_A=va
DEV_B=vb
IP_A=10.0.0.1
IP_B=10.0.0.2
MAC_A=02:00:00:00:00:01
MAC_B=02:00:00:00:00:02

log() { echo "# $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# have CMD: CMD is a real program on PATH (bpftool, jq, qdiscctl, ...).
have() { command -v "$1" >/dev/null 2>&1; }
# need CMD...: skip the case unless every CMD is available.
need() {
	for _c; do have "$_c" || skip "$_c not available"; done
}

# must CMD...: run CMD, fail the case with its exit status if it fails.
must() {
	"$@" || fail "command failed (rc=$?): $*"
}

# assert_eq ACTUAL EXPECTED [MSG]
assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-assert_eq}: expected '$2', got '$1'"
}

# assert_match TEXT ERE [MSG]: some line of TEXT matches the extended regex.
assert_match() {
	printf '%s\n' "$1" | grep -Eq -- "$2" || fail "${3:-assert_match}: /$2/ not in: $1"
}

# assert_no_match TEXT ERE [MSG]
assert_no_match() {
	! printf '%s\n' "$1" | grep -Eq -- "$2" || fail "${3:-assert_no_match}: /$2/ found in: $1"
}

# Guest uptime in hundredths of a second (for timing and deadlines).
uptime_cs() {
	read -r _up _ </proc/uptime
	_s=${_up%.*}
	_f=${_up#*.}
	echo $((_s * 100 + ${_f#0}))
}

# wait_until TIMEOUT_S CMD...: rerun CMD every 0.1 s until it succeeds. Returns
# 1 on timeout, so write "wait_until 5 cond || fail ...". For pipelines, wrap
# them in a function and pass its name.
wait_until() {
	_deadline=$(($(uptime_cs) + $1 * 100))
	shift
	until "$@"; do
		[ "$(uptime_cs)" -lt "$_deadline" ] || return 1
		sleep 0.1
	done
}

# set_sysctl KEY VALUE: set a sysctl of the initial namespace; the runner puts
# the old value back after the case. (Namespaces a and b die with the case, so
# "in_a sysctl -w ..." needs no undo.)
set_sysctl() {
	_f=/proc/sys/$(echo "$1" | tr . /)
	[ -e "$_f" ] || fail "no sysctl $1"
	grep -q "^$_f " /run/vmtest-sysctl.undo 2>/dev/null ||
		echo "$_f $(cat "$_f")" >>/run/vmtest-sysctl.undo
	echo "$2" >"$_f" || fail "cannot set sysctl $1=$2"
}

# netns_pair [--neigh] [--queues N]: namespaces a and b joined by a veth
# pair, va@a (10.0.0.1/24, 02:..:01) <-> vb@b (10.0.0.2/24, 02:..:02), all
# up. --neigh adds permanent neighbour entries, so no ARP traffic goes
# through the qdiscs under test; --queues gives each end N tx and rx queues
# (for mq).
netns_pair() {
	_neigh='' _q=''
	while [ $# -gt 0 ]; do
		case $1 in
		--neigh) _neigh=1 ;;
		--queues) _q="numtxqueues $2 numrxqueues $2"; shift ;;
		*) fail "netns_pair: unknown option $1" ;;
		esac
		shift
	done
	cleanup_netns
	must ip netns add "$NS_A"
	must ip netns add "$NS_B"
	# $_q unquoted: no words, or "numtxqueues N numrxqueues N".
	must ip link add "$DEV_A" netns "$NS_A" address "$MAC_A" $_q \
		type veth peer name "$DEV_B" netns "$NS_B" address "$MAC_B" $_q
	must ip -n "$NS_A" addr add "$IP_A/24" dev "$DEV_A"
	must ip -n "$NS_B" addr add "$IP_B/24" dev "$DEV_B"
	for _ns in "$NS_A" "$NS_B"; do
		must ip -n "$_ns" link set lo up
	done
	must ip -n "$NS_A" link set "$DEV_A" up
	must ip -n "$NS_B" link set "$DEV_B" up
	if [ -n "$_neigh" ]; then
		must ip -n "$NS_A" neigh replace "$IP_B" lladdr "$MAC_B" dev "$DEV_A" nud permanent
		must ip -n "$NS_B" neigh replace "$IP_A" lladdr "$MAC_A" dev "$DEV_B" nud permanent
	fi
}

# cleanup_netns [NS...]: delete the namespaces (default a and b), and with
# them their devices. Safe to call when they do not exist.
cleanup_netns() {
	[ $# -gt 0 ] || set -- "$NS_A" "$NS_B"
	for _ns; do
		ip netns del "$_ns" 2>/dev/null
	done
	return 0
}

# in_a CMD... / in_b CMD...: run CMD inside namespace a / b.
in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }
