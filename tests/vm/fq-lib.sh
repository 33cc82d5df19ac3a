# Helpers for the fq cases (cases/2*-fq-*.sh); source after lib.sh and
# qdisc-lib.sh. busybox ash only.
#
# Every fq case runs one scenario twice in the same VM: first on native
# sch_fq through tc (KIND=native), then on qdiscctl's fq (KIND=fq), each on
# a fresh a/b veth pair, and then compares the two. The native run proves
# the scenario and its measurement; the fq run is the test. While qdiscctl
# has no fq kind (qdiscctl kinds does not list it), a case whose native
# half passed skips; once fq is listed, its failures are failures.
#
# vmtest.fq_kinds=native (or =fq) on the kernel command line runs one kind
# only (run --append vmtest.fq_kinds=fq).

# The test tools (tests/vm/tools, make vmtools) live in /usr/local/bin.
export PATH=/usr/local/bin:$PATH

# log with the guest's uptime, to see where a case spends its time.
log() {
	read -r _up _ </proc/uptime
	echo "# $_up $*"
}

# Results of both runs, "KIND KEY VALUE" lines, for the comparisons.
FQ_RESULTS=${TMPDIR:-/tmp}/fq-results
: >"$FQ_RESULTS"

# fq_available: qdiscctl exists and lists the fq kind.
fq_available() {
	have qdiscctl && qdiscctl kinds 2>/dev/null | grep -q '^fq[[:space:]]'
}

# kfail MSG: fail, naming the kind under test.
kfail() { fail "[$KIND] $*"; }
# kdefer MSG: a failure that lets the scenario go on (to show what else
# holds); the case fails when the scenario ends.
kdefer() {
	echo "FAIL: [$KIND] $*" >&2
	echo "[$KIND] $*" >>"$TMPDIR/deferred"
}

# tc_fq_args OPTIONS...: OPTIONS as the VM's tc takes them for sch_fq, one
# a line. iproute2 6.15's tc skips the word after "weights" (fixed in
# 6.16: "Parse FQ band weights correctly"), so it is given one to skip
# there; the probe's trailing "help" stops tc before it touches a device.
TC_WEIGHTS_SKIP=yes
! tc qdisc add dev lo root fq weights 16384 16384 16384 help 2>&1 | grep -q '^Usage' ||
	TC_WEIGHTS_SKIP=no
tc_fq_args() {
	for _a; do
		printf '%s\n' "$_a"
		[ "$_a" != weights ] || [ "$TC_WEIGHTS_SKIP" = no ] || printf '0\n'
	done
}

# fq_add [OPTIONS...]: fq (native or ours) as root 1: of va.
fq_add() {
	case $KIND in
	native) in_a tc qdisc add dev va root handle 1: fq $(tc_fq_args "$@") || kfail "tc qdisc add fq $*" ;;
	fq) qd add dev va root handle 1: fq "$@" || kfail "qdiscctl add fq $*" ;;
	esac
}

# fq_replace [OPTIONS...]: replace va's root with fq (native or ours) with OPTIONS.
fq_replace() {
	case $KIND in
	native) in_a tc qdisc replace dev va root handle 1: fq $(tc_fq_args "$@") || kfail "tc qdisc replace fq $*" ;;
	fq) qd replace dev va root handle 1: fq "$@" || kfail "qdiscctl replace fq $*" ;;
	esac
}

# fq_del: delete va's root fq, naming the kind as tc users do.
fq_del() {
	case $KIND in
	native) in_a tc qdisc del dev va root fq || kfail "tc qdisc del ... fq" ;;
	fq) qd del dev va root fq || kfail "qdiscctl del ... fq" ;;
	esac
}

# fq_change [OPTIONS...]: change options of the live instance.
fq_change() {
	case $KIND in
	native) in_a tc qdisc change dev va root fq $(tc_fq_args "$@") ;;
	fq) qd change dev va root fq "$@" ;;
	esac
}

# fq_show: "tc -s qdisc show" text of va's root, from tc or qdiscctl.
fq_show() {
	case $KIND in
	native) in_a tc -s qdisc show dev va ;;
	fq) qd -s show dev va ;;
	esac
}

# fq_json: the -s -j object of va's root qdisc (tc's keys).
fq_json() {
	case $KIND in
	native) in_a tc -s -j qdisc show dev va | jq -c '.[0]' ;;
	fq) qd -s -j show dev va | jq -c '.[0]' ;;
	esac
}

# fq_xstats: the fq statistics of va's root as one flat JSON object with
# the names of struct tc_fq_qd_stats (flows, inactive_flows,
# throttled_flows, gc_flows, highprio_packets, throttled, flows_plimit,
# pkts_too_long, allocation_errors, horizon_drops, horizon_caps, ...),
# parsed from the text both tools print (tc's JSON has "throttled" twice),
# after the qdisc's generic counters (bytes, packets, drops, overlimits,
# requeues, qlen, backlog) from qstat. Counters tc prints only when
# non-zero are 0 when absent. No jq: it costs half a second under TCG.
fq_xstats() {
	{
		in_a qstat -d va | sed 's/^t_ns [0-9]* /generic /'
		fq_show
	} | awk '
		function num(v) { return v ~ /^-?[0-9]+$/ ? v : "\"" v "\"" }
		function put(k, v) {
			if (k == "gc") k = "gc_flows"
			else if (k == "highprio") k = "highprio_packets"
			else if (k == "alloc_errors") k = "allocation_errors"
			if (!(k in val)) keys[n++] = k
			val[k] = num(v)
		}
		BEGIN {
			split("flows_plimit pkts_too_long allocation_errors horizon_drops horizon_caps", d, " ")
		}
		$1 == "generic" { for (i = 2; i < NF; i += 2) put($i, $(i + 1)); next }
		/^ *backlog / { seen = 1; next }
		!seen { next }
		{
			gsub(/[()]/, " ")
			i = 1
			if ($1 == "flows") {
				put("flows", $2); put("inactive_flows", $4); put("throttled_flows", $6)
				i = 7
			}
			for (; i < NF; i += 2) put($i, $(i + 1))
		}
		END {
			for (j = 1; j in d; j++) if (!(d[j] in val)) put(d[j], 0)
			for (j = 0; j < n; j++) out = out (j ? "," : "") "\"" keys[j] "\":" val[keys[j]]
			print "{" out "}"
		}'
}

# drained: va's root qdisc holds nothing (for wait_until).
drained() { [ "$(in_a qstat -d va | kv qlen)" = 0 ]; }

# xget JSON KEY: KEY of fq_xstats' flat object (no jq), empty if absent.
xget() {
	printf '%s\n' "$1" | awk -v k="\"$2\":" '{
		i = index($0, k)
		if (!i) exit
		v = substr($0, i + length(k))
		sub(/[,}].*/, "", v)
		gsub(/"/, "", v)
		print v
	}'
}

# fq_result KEY VALUE: record a measurement of this kind.
fq_result() {
	echo "$KIND $1 $2" >>"$FQ_RESULTS"
	log "[$KIND] $1 = $2"
}

# fq_get KIND KEY: a recorded measurement.
fq_get() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { v = $3 } END { print v }' "$FQ_RESULTS"; }

# fq_kinds: the kinds to run, in order.
fq_kinds() {
	_k=${VMTEST_FQ_KINDS:-native,fq}
	echo "$_k" | tr ',' ' '
}

FQ_SKIPPED_FQ=0
# fq_run FUNC [ARGS...]: run the scenario FUNC once per kind, KIND set, each
# time on a fresh a/b pair with quiet namespaces.
fq_run() {
	for KIND in $(fq_kinds); do
		if [ "$KIND" = fq ] && ! fq_available; then
			log "qdiscctl lists no fq kind: the fq half is skipped"
			FQ_SKIPPED_FQ=1
			continue
		fi
		log "=== $KIND: $1"
		netns_pair --neigh
		quiet_ns a b
		"$@"
		fq_result ran 1
		fq_teardown
		[ ! -s "$TMPDIR/deferred" ] || fail "$(cat "$TMPDIR/deferred")"
	done
}

# fq_teardown: stop helpers of a scenario and remove the pair (and fq).
fq_teardown() {
	unslow_peer
	if [ "$KIND" = fq ]; then
		qd del dev va root 2>/dev/null
	fi
	cleanup_netns
}

# fq_both: true when both kinds ran (so that they can be compared).
fq_both() { [ -n "$(fq_get native ran)" ] && [ -n "$(fq_get fq ran)" ]; }

# fq_done: the case's exit: skip when only native sch_fq could be tested.
fq_done() {
	if [ "$FQ_SKIPPED_FQ" = 1 ]; then
		skip "native sch_fq passed; qdiscctl has no fq kind yet"
	fi
	exit 0
}

# --- traffic helpers ---------------------------------------------------

# [SINK_CPU=N] sink_start PORT [udpsink OPTIONS...]: udpsink in b on PORT, output in
# $TMPDIR/sink.PORT; ready when this returns. sink_wait PORT waits for it
# to exit (give it -t or -i), sink_stop PORT ends it now.
sink_start() {
	_p=$1
	shift
	rm -f "$TMPDIR/sink.$_p.ready"
	# Not in_b: a backgrounded shell function would make $! a subshell.
	# SINK_CPU=N pins the sink to CPU N.
	/usr/sbin/ip netns exec "$NS_B" ${SINK_CPU:+taskset -c "$SINK_CPU"} \
		udpsink -p "$_p" -r "$TMPDIR/sink.$_p.ready" "$@" >"$TMPDIR/sink.$_p" 2>&1 &
	echo $! >"$TMPDIR/sink.$_p.pid"
	wait_until 5 test -e "$TMPDIR/sink.$_p.ready" || kfail "udpsink on port $_p did not start"
}
sink_wait() {
	_pid=$(cat "$TMPDIR/sink.$1.pid")
	wait "$_pid"
}
sink_stop() {
	_pid=$(cat "$TMPDIR/sink.$1.pid")
	kill "$_pid" 2>/dev/null
	wait "$_pid"
}
# sink_out PORT: what the sink printed.
sink_out() { cat "$TMPDIR/sink.$1"; }
# sink_field PORT FIELD [SPORT]: FIELD of the total line, or of the flow
# from source port SPORT.
sink_field() {
	if [ $# -ge 3 ]; then
		awk -v f="$2" -v s=":$3\$" '$1 == "flow" && $2 ~ s { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMPDIR/sink.$1"
	else
		awk -v f="$2" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMPDIR/sink.$1"
	fi
}
# sink_flows PORT FIELD: FIELD of every flow, one per line.
sink_flows() {
	awk -v f="$2" '$1 == "flow" { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMPDIR/sink.$1"
}

# within GOT WANT PERCENT NAME: GOT (bytes/s) is WANT within PERCENT %.
within() {
	fcmp "$1" ">=" "$2 * (100 - $3) / 100" && fcmp "$1" "<=" "$2 * (100 + $3) / 100" ||
		fail "$4: $1 bytes/s, expected $2 within $3 %"
}

# cg_window N CGDIR_OF PPS_OF: res="B0 ... B(N-1)", the bytes/s (as the
# qdisc counts them: 1442 bytes a datagram) that port 9001 + i got at the
# receiver over 4 s from UDP sender i, which runs in cgroup directory
# $(CGDIR_OF i) of namespace a and offers $(PPS_OF i) datagrams a second,
# blocking on its 1 MB socket buffer beyond what its class lets out. The
# senders start before the sink (a loaded emulated CPU takes seconds to
# start many); the window opens 1 s after the first datagram, and a
# flow's first 20 datagrams in it do not count: a sender that started
# late sends its burst (16 full-size packets by default) then.
cg_window() {
	_n=$1
	_i=0
	rm -f /tmp/senders
	while [ "$_i" -lt "$_n" ]; do
		/bin/sh -c "echo \$\$ >$($2 "$_i")/cgroup.procs && exec /usr/sbin/ip netns exec a \
			udpflows -d $IP_B -p $((9001 + _i)) -k 1 -n 0 -l 1400 -b 1048576 -r $($3 "$_i") -t 30s" \
			>/tmp/tx.$_i 2>&1 &
		echo $! >>/tmp/senders
		_i=$((_i + 1))
	done
	wait_until 20 cg_senders_up "$_n" "$2" || fail "senders did not start"
	sleep 2
	sink_start 9001 -P "$_n" -H 42 -S 1s -W 20 -t 5s
	sink_wait 9001
	kill $(cat /tmp/senders) 2>/dev/null
	wait $(cat /tmp/senders) 2>/dev/null
	rm -f /tmp/senders
	res=$(awk -v n="$_n" '$1 == "flow" { for (i = 3; i < NF; i++) if ($i == "rate_bps") r[$4] = $(i + 1) }
		END { for (p = 9001; p < 9001 + n; p++) printf "%d ", r[p] / 8 }' "$TMPDIR/sink.9001")
}
# cg_senders_up N CGDIR_OF: each of the N senders' cgroups has its process
# (cgroupfs files have no size: read them).
cg_senders_up() {
	_j=0
	while [ "$_j" -lt "$1" ]; do
		[ -n "$(cat "$($2 "$_j")/cgroup.procs")" ] || return 1
		_j=$((_j + 1))
	done
}

# htb_by_port N RATE WORDS_OF [WORDS...]: htb on va, the counterpart of
# cg_window's senders: under parent 1:1 (htb RATE WORDS), class 1:(100 + i)
# with the words $(WORDS_OF i) takes port 9001 + i (a u32 filter) for
# i < N, and class 1:30, at 100kbit up to RATE, everything else.
htb_by_port() {
	_n=$1
	_rate=$2
	_of=$3
	shift 3
	must in_a tc qdisc add dev va root handle 1: htb default 30
	must in_a tc class add dev va parent 1: classid 1:1 htb rate "$_rate" "$@"
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		# shellcheck disable=SC2046
		must in_a tc class add dev va parent 1:1 classid 1:$((100 + _i)) htb $("$_of" "$_i")
		must in_a tc filter add dev va parent 1: protocol ip u32 \
			match ip dport $((9001 + _i)) 0xffff flowid 1:$((100 + _i))
		_i=$((_i + 1))
	done
	must in_a tc class add dev va parent 1:1 classid 1:30 htb rate 100kbit ceil "$_rate"
}

# jain: Jain's fairness index and the largest relative deviation from the
# mean of the numbers on stdin (one per line): "JAIN MAXDEV".
jain() {
	awk '{ s += $1; q += $1 * $1; v[n++] = $1 }
		END {
			if (n == 0 || q == 0) { print "0 1"; exit }
			m = s / n; d = 0
			for (i = 0; i < n; i++) { x = (v[i] - m) / m; if (x < 0) x = -x; if (x > d) d = x }
			printf "%.5f %.4f\n", s * s / (n * q), d
		}'
}

# kv NAME: the word after NAME on each line of stdin (the tools print
# "name value" pairs).
kv() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# fcmp A OP B: floating-point comparison of two awk expressions over
# numbers, e.g. fcmp "$j" '>=' 0.99 or fcmp "$f" '<=' "$n * 1.05".
fcmp() { awk "BEGIN { exit !(($1) $2 ($3)) }"; }
# fcalc EXPR: an awk expression's value (printf %.6g).
fcalc() { awk "BEGIN { printf \"%.6g\\n\", $1 }"; }

# slow_peer: make va's peer drain slowly and steadily, so that a backlog
# forms in va's root qdisc and stays: GRO and threaded NAPI on vb (see
# 11-fifo-limit), TSO/GSO off on va, and vb's NAPI thread pinned to CPU 1
# at nice 19 next to a busy loop at nice 0, so that it gets a small, steady
# share of a CPU (about 700 full-size packets per second under TCG). Senders
# and receivers should run on CPU 0 (taskset -c 0). Needs 2 CPUs.
FQ_HOG=
slow_peer() {
	[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] || skip "slow_peer needs 2 CPUs"
	have taskset || skip "no taskset"
	in_a ethtool -K va tso off gso off >/dev/null 2>&1
	in_b ethtool -K vb gro on >/dev/null 2>&1 || skip "no GRO on veth"
	in_b sh -c 'echo 1 >/sys/class/net/vb/threaded' || skip "no threaded NAPI"
	_napi=
	for _c in /proc/[0-9]*/comm; do
		case $(cat "$_c" 2>/dev/null) in napi/vb-*)
			_napi=${_c#/proc/}
			_napi=${_napi%/comm}
			;;
		esac
	done
	[ -n "$_napi" ] || kfail "no napi/vb-* thread"
	taskset -p -c 1 "$_napi" >/dev/null || kfail "cannot pin napi thread $_napi"
	renice -n 19 -p "$_napi" >/dev/null || kfail "cannot renice napi thread $_napi"
	# The full path: with lib.sh's taskset function, $! would be a subshell
	# and killing it would leave the loop running.
	/usr/bin/taskset -c 1 sh -c 'while :; do :; done' &
	FQ_HOG=$!
}
unslow_peer() {
	if [ -n "$FQ_HOG" ]; then
		kill "$FQ_HOG" 2>/dev/null
		wait "$FQ_HOG" 2>/dev/null
	fi
	FQ_HOG=
}
