# qdiscctl's benchmark, run as one VM case under `tests/vm/run --icount`
# (bench/run starts it). Native and BPF qdiscs are interleaved inside every
# repetition, all in one boot. Each measurement is one console line
#
#   BENCH TEST METRIC KIND REP VALUE
#
# which bench/summarize.py turns into medians, spreads and ratios. Under
# -icount shift=0 the guest clock counts instructions: 1 ns = 1 instruction.
#
# Settings (kernel command line vmtest.KEY=VAL, see bench/run):
#   VMTEST_REPS       repetitions (3)
#   VMTEST_PKTS       pktgen packets per run (50000)
#   VMTEST_TCP_S      iperf3 seconds per run (2: a 1 s run's rate varies by
#                     about 1 % from run to run)
#   VMTEST_RR_MS      request/response ms per run (300)
#   VMTEST_SECTIONS   comma list: pktgen,fullpath,paced,tcp,rr,shaped,cgroups,anatomy,add,show,memory (all)
#   VMTEST_KINDS      comma list of the qdiscs measured (all), e.g. sch_fq,fq
#   VMTEST_EDT_OPTS   edt's options for the cost runs ("rate 100gbit")
# vmtest-timeout: 1500
. /tests/lib.sh

REPS=${VMTEST_REPS:-3}
PKTS=${VMTEST_PKTS:-50000}
TCP_S=${VMTEST_TCP_S:-2}
RR_MS=${VMTEST_RR_MS:-300}
SECTIONS=,${VMTEST_SECTIONS:-pktgen,fullpath,paced,tcp,rr,shaped,cgroups,anatomy,add,show,memory},
# Shapers are measured for their cost at a rate nothing here reaches, and
# for their accuracy at SHAPED_RATE.
FAST_RATE=100gbit
SHAPED_RATE=1gbit
SHAPED_MBIT=1000
EDT_OPTS=${VMTEST_EDT_OPTS:-rate $FAST_RATE}
# pktgen's destination MAC is nobody's, so vb drops every packet at once.
BOGUS_MAC=02:00:00:00:00:99
PG=/proc/net/pktgen

need qdiscctl tc ip iperf3 bpftool benchtool jq

out() { echo "$*" >/dev/console; }
note() { out "BENCHNOTE $*"; }
bench() { out "BENCH $*"; }
section() { case $SECTIONS in *",$1,"*) return 0 ;; esac; return 1; }
KINDS=,${VMTEST_KINDS:-},
# only KIND...: those of the KINDs VMTEST_KINDS selects
only() {
	for _k in "$@"; do
		case $KINDS in ,, | *",$_k,"*) printf '%s ' "$_k" ;; esac
	done
}
now() { benchtool now; }
# ns elapsed since $1 (a `now` value), in ms with one decimal
ms_since() { echo $((($(now) - $1) / 100000)) | sed 's/\(.\)$/.\1/'; }

# The kinds qdiscctl carries decide which pairs run.
bpf_kinds=" $(qdiscctl kinds | awk '/^[a-z]/ { printf "%s ", $1 }')"
has_kind() { case $bpf_kinds in *" $1 "*) return 0 ;; esac; return 1; }
note "run ${VMTEST_BENCHID:-}"

# Two things would make guest time differ between boots, icount or not:
# a process's start-up depends on where ASLR puts it (qdiscctl's 1.2 ms
# add took 1.16 or 1.24 ms by the layout), and the work a command leaves
# behind (RCU callbacks and workqueues freeing a deleted qdisc's programs
# and maps, ~15 ms after a BPF kind's last instance goes) runs on the one
# CPU inside whatever is timed next. So: no ASLR, and settle before each
# measurement (an idle guest costs no host time under sleep=off).
echo 0 >/proc/sys/kernel/randomize_va_space
settle() { sleep 0.5; }
note "bpf kinds:$bpf_kinds"

# --- topology: va (this namespace, pktgen and clients) -> vb (netns b) ---
must ip netns add b
must ip link add va address 02:00:00:00:00:01 type veth peer name vb netns b address 02:00:00:00:00:02
must ip addr add 10.0.0.1/24 dev va
must ip link set va up
must ip -n b addr add 10.0.0.2/24 dev vb
must ip -n b link set vb up
must ip -n b link set lo up
must ip neigh replace 10.0.0.2 lladdr 02:00:00:00:00:02 dev va nud permanent
must ip -n b neigh replace 10.0.0.1 lladdr 02:00:00:00:00:01 dev vb nud permanent
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
ip netns exec b sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6'

# kind_opts KIND: the options KIND cannot do without
kind_opts() {
	case $1 in
	edt) echo "rate $FAST_RATE" ;;
	esac
}

# A registration lives while one of its instances does: one instance of each
# BPF kind on a dummy device keeps the kinds loaded while va's root changes.
# Not edt: a root edt attaches a tcx egress program, and while any exists
# every device's egress path takes the tcx branch (about 37 instructions a
# packet for every other qdisc measured); edt is loaded when it is needed.
keep() { # KIND: (re)create the keeper of KIND
	[ "$1" != edt ] || return 0
	ip link add "keep_$1" type dummy 2>/dev/null
	must qdiscctl add dev "keep_$1" root "$1" $(kind_opts "$1")
}
# Deleting the device would leave the registration behind without instances.
unkeep() {
	[ "$1" != edt ] || return 0
	qdiscctl del dev "keep_$1" root 2>/dev/null
	ip link del "keep_$1" 2>/dev/null
}
for k in $bpf_kinds; do keep "$k"; done

# qset KIND [OPTS]: make KIND va's root qdisc. sch_fq is tc's fq; the other
# names are tc kinds or qdiscctl kinds.
qset() {
	_k=$1
	shift
	# qdiscctl del also detaches what a kind attached besides the qdisc
	# (edt's tcx egress program), which would tax every later run.
	qdiscctl del dev va root 2>/dev/null || tc qdisc del dev va root 2>/dev/null
	if [ "${_qprev:-}" = edt ]; then
		[ "$(bpftool -j net show dev va | jq '[.[].tc // [] | length] | add')" = 0 ] ||
			fail "programs left on va after edt: $(bpftool net show dev va)"
	fi
	_qprev=$_k
	case $_k in
	noqueue) ;;
	pfifo | pfifo_fast | bfifo) must tc qdisc add dev va root "$_k" "$@" ;;
	sch_fq) must tc qdisc add dev va root fq "$@" ;;
	htb)
		must tc qdisc add dev va root handle 1: htb default 1
		must tc class add dev va parent 1: classid 1:1 htb rate "${1:-$FAST_RATE}"
		;;
	tbf) must tc qdisc add dev va root tbf rate "${1:-$FAST_RATE}" burst "${2:-4mb}" latency 100ms ;;
	htb-batch) must tc -b "$1" ;;
	edt-cg)
		_qprev=edt
		must qdiscctl add dev va root edt "$@"
		;;
	edt)
		if [ -n "${1:-}" ]; then must qdiscctl add dev va root edt rate "$1"; else must qdiscctl add dev va root edt $EDT_OPTS; fi
		;;
	*) must qdiscctl add dev va root "$_k" "$@" ;;
	esac
	settle
}

sent_pkts() { tc -s qdisc show dev va | sed -n 's/^ Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1; }
sent_bytes() { tc -s qdisc show dev va | sed -n 's/^ Sent \([0-9]*\) bytes.*/\1/p' | head -n 1; }

# The pairs: the native kind first, BPF kinds after their reference.
kinds_main="noqueue pfifo"
has_kind fifo && kinds_main="$kinds_main fifo"
kinds_main="$kinds_main pfifo_fast"
has_kind prio && kinds_main="$kinds_main prio"
kinds_main="$kinds_main sch_fq"
has_kind fq && kinds_main="$kinds_main fq"
kinds_main="$kinds_main htb tbf"
has_kind edt && kinds_main="$kinds_main edt"
kinds_flows="sch_fq"
has_kind fq && kinds_flows="$kinds_flows fq"
# TCP and request/response runs are slow under TCG: only the kinds of
# pairs that exist.
kinds_pairs=
has_kind fifo && kinds_pairs="$kinds_pairs pfifo fifo"
has_kind prio && kinds_pairs="$kinds_pairs pfifo_fast prio"
has_kind fq && kinds_pairs="$kinds_pairs sch_fq fq"
has_kind edt && kinds_pairs="$kinds_pairs htb tbf edt"
kinds_main=$(only $kinds_main)
kinds_flows=$(only $kinds_flows)
kinds_pairs=$(only $kinds_pairs)
note "kinds: $kinds_main; 1000 and 50000 flows: $kinds_flows; TCP and rr: $kinds_pairs"

# --- pktgen queue_xmit: packets through the root qdisc, instructions/packet ---
pgw() { echo "$1" >"$2" || fail "pktgen: '$1' > $2"; }
pktgen_setup() {
	pgw "rem_device_all" $PG/kpktgend_0
	pgw "add_device va" $PG/kpktgend_0
	for _c in "count $PKTS" "clone_skb 0" "pkt_size 60" "delay 0" "dst 10.0.0.2" \
		"dst_mac $BOGUS_MAC" "xmit_mode queue_xmit" "udp_src_min 9" "udp_src_max 9"; do
		pgw "$_c" $PG/va
	done
}
# pktgen_run TEST KIND REP: one run; instructions/packet from pktgen's own
# elapsed time, which covers only its transmit loop.
pktgen_run() {
	_before=$(sent_pkts)
	pgw start $PG/pgctrl
	_us=$(sed -n 's/.*Result: OK: \([0-9]*\)(.*/\1/p' $PG/va)
	[ -n "$_us" ] || fail "pktgen: no result: $(cat $PG/va)"
	_sent=$(($(sent_pkts) - ${_before:-0}))
	[ "$2" = noqueue ] || [ "$_sent" = "$PKTS" ] || note "warning: $1 $2 rep $3: qdisc sent $_sent of $PKTS"
	bench "$1" ipp "$2" "$3" "$(awk -v us="$_us" -v n="$PKTS" 'BEGIN { printf "%.3f", us * 1000 / n }')"
}

if section pktgen; then
	t0=$(now)
	pktgen_setup
	for rep in $(seq "$REPS"); do
		for k in $kinds_main; do
			qset "$k"
			pktgen_run pktgen "$k" "$rep"
		done
		# 1,000 flows: UDP source ports 1..1000 in turn; orphan_mask wide
		# enough that (almost) every port is its own flow in both fqs.
		pgw "udp_src_min 1" $PG/va
		pgw "udp_src_max 1001" $PG/va
		for k in $kinds_flows; do
			qset "$k" orphan_mask 65535
			pktgen_run pktgen1000 "$k" "$rep"
		done
		# 50,000 flows: ports 1..50000, one packet each a run.
		pgw "udp_src_max 50001" $PG/va
		for k in $kinds_flows; do
			qset "$k" orphan_mask 65535
			pktgen_run pktgen50000 "$k" "$rep"
		done
		pgw "udp_src_min 9" $PG/va
		pgw "udp_src_max 9" $PG/va
	done
	note "section pktgen: $(ms_since "$t0") ms guest"
fi

# --- fq's full path: both fqs at maxrate 30gbit, which nothing here
# reaches but which turns both fast paths off, so that every packet is
# hashed, looked up in the flow table, queued, scheduled and paced ---
if section fullpath; then
	t0=$(now)
	pktgen_setup
	for rep in $(seq "$REPS"); do
		for n in 1 1000 50000; do
			pgw "udp_src_min $((n == 1 ? 9 : 1))" $PG/va
			pgw "udp_src_max $((n == 1 ? 9 : n + 1))" $PG/va
			for k in $kinds_flows; do
				qset "$k" orphan_mask 65535 maxrate 30gbit
				pktgen_run "full$n" "$k" "$rep"
			done
		done
		pgw "udp_src_min 9" $PG/va
		pgw "udp_src_max 9" $PG/va
	done
	note "section fullpath: $(ms_since "$t0") ms guest"
fi

# --- paced sockets: tests/vm/cases/28-fq-paced.sh's load through va's root
# sch_fq and fq. 10,000 connected UDP sockets, each paced by
# SO_MAX_PACING_RATE to 1,100 bytes/s, send 3 datagrams of 1,042 bytes (as
# the qdisc counts them) one socket after the other, as fast as udpflows
# can: a socket's first datagram leaves at once, its second and third wait
# 0.95 s each (below sch_fq's low_rate_threshold a paced flow has no
# credit), so about 20,000 packets wait behind throttled flows and the
# qdisc's watchdog releases most of them while the guest would be idle.
# Instructions per datagram: the guest's busy time from udpflows' start to
# the sink's last datagram, which is the run's time less its idle time;
# benchtool spin takes the idle time at SCHED_IDLE and counts it in loop
# iterations (the kernel shows idle time only in 10 ms units). It includes
# the 10,000 sockets' setup and teardown and the receiver, the same for both
# kinds, so the difference per datagram is the qdiscs'. Rates at the
# receiver (udpsink -W 0): a socket's bytes after its first datagram over
# the time from its first to its last. ---
PACED_K=10000
PACED_PER=3
PACED_RATE=1100
PACED_IQ=2084
# slab_objs CACHE...: objects in use of each slab cache (0 for one that does
# not exist yet: sch_fq's fq_flow_cache appears with the module). SLUB
# merges fq_flow_cache into a cache of its size; the other users of that
# cache are idle here.
slab_objs() {
	for _c; do
		if [ -r "/sys/kernel/slab/$_c/objects" ]; then
			read -r _n _ <"/sys/kernel/slab/$_c/objects"
			printf '%s ' "$_n"
		else
			printf '0 '
		fi
	done
	echo
}
# irq_counts: local timer interrupts and NET_TX softirqs so far (the
# watchdog's wakeups and the qdisc runs they start; one vCPU)
irq_counts() {
	awk '$1 == "LOC:" || $1 == "NET_TX:" { printf "%s ", $2 } END { print "" }' /proc/interrupts /proc/softirqs
}
paced_run() { # KIND REP
	qset "$1" limit 100000 buckets 16384 initial_quantum $PACED_IQ
	rm -f /tmp/sink.ready
	ip netns exec b /usr/local/bin/udpsink -p 9000 -c $((PACED_K * PACED_PER)) -t 60s -W 0 -H 42 \
		-b 64000000 -r /tmp/sink.ready >/tmp/sink.out 2>&1 &
	_sink=$!
	wait_until 5 test -e /tmp/sink.ready || fail "paced: udpsink did not start"
	set -- "$1" "$2" $(slab_objs fq_flow_cache skbuff_head_cache)
	_irq0=$(irq_counts)
	benchtool spin >/tmp/spin.out &
	_spin=$!
	_t0=$(now)
	/usr/local/bin/udpflows -d 10.0.0.2 -p 9000 -k $PACED_K -w $PACED_PER -s 20000 -m $PACED_RATE -l 1000 \
		-n $((PACED_K * PACED_PER)) >/tmp/tx.out || fail "paced: udpflows: $(cat /tmp/tx.out)"
	# What waits when the sender is done: packets, and the slab objects
	# of sch_fq's flows and of the packets' sk_buffs.
	_qlen=$(tc -s qdisc show dev va | sed -n 's/^ backlog [0-9]*b \([0-9]*\)p.*/\1/p' | head -n 1)
	set -- "$@" $(slab_objs fq_flow_cache skbuff_head_cache)
	wait "$_sink"
	_t1=$(now)
	kill "$_spin"
	wait "$_spin"
	set -- "$@" $_irq0 $(irq_counts)
	read -r _iter _ </tmp/spin.out
	awk '$1 == "total"' /tmp/sink.out | grep -q " pkts $((PACED_K * PACED_PER)) " ||
		fail "paced: $1: the sink got $(awk '$1 == "total"' /tmp/sink.out), sent $(cat /tmp/tx.out)"
	_n=$((PACED_K * PACED_PER))
	bench paced ipp "$1" "$2" "$(awk -v t="$((_t1 - _t0))" -v i="$_iter" -v k="$SPIN_NS" -v n=$_n \
		'BEGIN { printf "%.1f", (t - i * k) / n }')"
	bench paced send_ipp "$1" "$2" "$(awk -v n=$_n '{ for (i = 1; i < NF; i++) if ($i == "usecs") u = $(i + 1) }
		END { printf "%.1f", u * 1000 / n }' /tmp/tx.out)"
	bench paced idle_ms "$1" "$2" "$(awk -v i="$_iter" -v k="$SPIN_NS" 'BEGIN { printf "%.1f", i * k / 1e6 }')"
	bench paced queued "$1" "$2" "${_qlen:-0}"
	bench paced flow_objs "$1" "$2" $(($5 - $3))
	bench paced skb_objs "$1" "$2" $(($6 - $4))
	bench paced timer_irqs "$1" "$2" $((${9} - ${7}))
	bench paced net_tx "$1" "$2" $((${10} - ${8}))
	# Per socket: achieved / pacing rate; bytes beyond what the rate allows
	# between its first and last datagram (28-fq-paced.sh's check), and
	# how many sockets exceed that by more than initial_quantum.
	awk -v r=$PACED_RATE -v q=$PACED_IQ '$1 == "flow" {
			for (i = 3; i < NF; i++) v[$i] = $(i + 1)
			x = v["bytes"] - r * (v["last_ns"] - v["first_ns"]) / 1e9
			if (x > m) m = x
			if (x > q) over++
			printf "%.5f\n", v["rate_bps"] / 8 / r >"/tmp/paced.ratios"
		} END { printf "%.0f %d\n", m, over }' /tmp/sink.out >/tmp/paced.over
	read -r _most _over </tmp/paced.over
	sort -n /tmp/paced.ratios | awk '{ v[NR] = $1 } END { print NR, v[1], v[int((NR + 1) / 2)], v[NR] }' >/tmp/paced.sum
	read -r _flows _min _med _max </tmp/paced.sum
	[ "$_flows" = $PACED_K ] || fail "paced: $1: $_flows flows at the receiver, not $PACED_K"
	bench paced rate_min "$1" "$2" "$_min"
	bench paced rate_median "$1" "$2" "$_med"
	bench paced rate_max "$1" "$2" "$_max"
	bench paced over_bytes_max "$1" "$2" "$_most"
	bench paced over_iq "$1" "$2" "${_over:-0}"
}
if section paced; then
	t0=$(now)
	# What a spin iteration costs alone (ns, i.e. instructions, with the
	# timer tick's share), to turn a run's spin count into idle time.
	settle
	set -- $(benchtool spin 200)
	SPIN_NS=$(awk -v i="$1" -v t="$2" 'BEGIN { printf "%.6f", t / i }')
	note "paced: a spin iteration takes $SPIN_NS ns alone"
	for rep in $(seq "$REPS"); do
		for k in $kinds_flows; do
			paced_run "$k" "$rep"
		done
	done
	note "section paced: $(ms_since "$t0") ms guest"
fi

# --- TCP: iperf3, 1 and 8 flows; request/response: benchtool rr ---
ip netns exec b iperf3 -s >/dev/null 2>&1 &
ip netns exec b benchtool rr-server 5202 >/dev/null 2>&1 &
_servers_up() { ip netns exec b ss -Hltn | grep -q ':5201 ' && ip netns exec b ss -Hltn | grep -q ':5202 '; }
wait_until 10 _servers_up || fail "servers in b did not start"

# tcp_mbit FLOWS: iperf3's receiver rate over all flows, in Mbit/s.
tcp_mbit() {
	iperf3 -c 10.0.0.2 -t "$TCP_S" -P "$1" -J >/tmp/iperf.json 2>&1 || fail "iperf3: $(cat /tmp/iperf.json)"
	jq -r '.end.sum_received.bits_per_second / 1e6' /tmp/iperf.json
}

if section tcp; then
	t0=$(now)
	for rep in $(seq "$REPS"); do
		for k in $kinds_pairs; do
			qset "$k"
			bench tcp1 mbit "$k" "$rep" "$(tcp_mbit 1)"
			bench tcp8 mbit "$k" "$rep" "$(tcp_mbit 8)"
		done
	done
	note "section tcp: $(ms_since "$t0") ms guest"
fi

if section rr; then
	t0=$(now)
	for rep in $(seq "$REPS"); do
		for k in $kinds_pairs; do
			qset "$k"
			set -- $(benchtool rr-client 10.0.0.2 5202 "$RR_MS") || fail "rr-client"
			bench rr tps "$k" "$rep" "$(awk -v t="$1" -v ns="$2" 'BEGIN { printf "%.1f", t * 1e9 / ns }')"
			bench rr us "$k" "$rep" "$(awk -v t="$1" -v ns="$2" 'BEGIN { printf "%.3f", ns / t / 1000 }')"
		done
	done
	note "section rr: $(ms_since "$t0") ms guest"
fi

# --- shapers at SHAPED_RATE: the rate achieved at the qdisc, one TCP flow ---
# edt_dctcp: edt again, the flow using DCTCP, the sender HBM's congestion
# signals are meant for (cubic halves its window at each; at 1 Gbit/s a
# 64 KB GSO packet alone takes 524 us, ten times ce_threshold).
if section shaped; then
	t0=$(now)
	shapers="htb tbf"
	has_kind edt && shapers="$shapers edt edt_dctcp"
	for rep in $(seq "$REPS"); do
		for k in $(only $shapers); do
			cc=
			case $k in
			tbf) qset tbf "$SHAPED_RATE" 64kb ;;
			edt_dctcp) qset edt "$SHAPED_RATE" && cc="-C dctcp" ;;
			*) qset "$k" "$SHAPED_RATE" ;;
			esac
			# The qdisc's own byte count: what a shaper meters (for GSO
			# packets it includes every segment's headers; the device's
			# tx_bytes does not).
			# 1.5 s: over 600 ms windows edt's rate varied by 0.5 %
			# between repetitions.
			iperf3 -c 10.0.0.2 -t 2 $cc >/tmp/iperf.out 2>&1 &
			ipid=$!
			sleep 0.3
			b0=$(sent_bytes) n0=$(now)
			sleep 1.5
			b1=$(sent_bytes) n1=$(now)
			wait "$ipid" || fail "iperf3: $(cat /tmp/iperf.out)"
			bench shaped rate_ratio "$k" "$rep" \
				"$(awk -v b="$((b1 - b0))" -v ns="$((n1 - n0))" -v r="$SHAPED_MBIT" 'BEGIN { printf "%.5f", b * 8000 / ns / r }')"
		done
	done
	note "section shaped: $(ms_since "$t0") ms guest"
fi

# --- edt's cgroup classes against htb's classes, both backlogged: N cgroups
# configured (an edt cgroup entry, or an htb class under one parent with a
# BPF classifier mapping the socket's cgroup id to its classid), UDP from
# sockets in ACTIVE of them (benchtool cgsend: one process that makes each
# socket in its cgroup), every class at CG_MBIT / ACTIVE so that the
# shaper, not the CPU, sets the rate. Instructions per packet: the guest's
# busy time over a 1 s window (the window less the idle time an
# idle-priority thread counts) over the packets va sent in it. Rates: each
# class's bytes as the qdisc counts them between two reads of its
# statistics around the window, over its configured rate and the time
# between the reads (below). ---
CG_MBIT=20
CG_DIR=/sys/fs/cgroup/bench
# 10.0.0.3 has nobody's MAC: vb drops each packet at once, as pktgen's.
CG_DST=10.0.0.3
CG_WARM_MS=500
CG_WIN_MS=1000
cg_run() { # TEST KIND REP N ACTIVE
	_kbit=$((CG_MBIT * 1000 / $5))
	# A socket holds about 100 ms of its class's packets (16 at least),
	# so that its class never runs dry while the sender is not running;
	# a 60-byte datagram's skb is charged about 1 KB (the kernel doubles
	# SO_SNDBUF).
	_pps=$((_kbit * 1000 / 8 / 60))
	_q=$((_pps / 10 > 16 ? _pps / 10 : 16))
	case $2 in
	htb)
		{
			echo "qdisc add dev va root handle 1: htb"
			echo "class add dev va parent 1: classid 1:1 htb rate $FAST_RATE quantum 1514"
			_i=0
			while [ $_i -lt "$4" ]; do
				printf 'class add dev va parent 1:1 classid 1:%x htb rate %skbit burst 1514 cburst 1514 quantum 1514\n' \
					$((_i + 256)) $_kbit
				_i=$((_i + 1))
			done
			echo "filter add dev va parent 1: protocol all prio 1 bpf object-pinned /sys/fs/bpf/cgcls"
		} >/tmp/cg.batch
		qset htb-batch /tmp/cg.batch
		echo "exec /usr/sbin/tc"' -s -j class show dev va >/tmp/cgsnap.$1' >/tmp/cgsnap.sh
		;;
	edt)
		_i=0
		# limit: room for every socket's backlog (with backpressure a
		# local socket's packets beyond the horizon are held, not
		# dropped, as htb's leaves hold them).
		set -- "$@" rate "$FAST_RATE" limit 20000
		while [ $_i -lt "$4" ]; do
			set -- "$@" cgroup "/bench/$_i" rate "${_kbit}kbit" burst 1514
			_i=$((_i + 1))
		done
		_cg_args="$1 $2 $3 $4 $5"
		shift 5
		qset edt-cg "$@"
		set -- $_cg_args
		echo "exec $(command -v qdiscctl)"' -s -j show dev va >/tmp/cgsnap.$1' >/tmp/cgsnap.sh
		;;
	esac
	set -- "$@" $(benchtool cgsend $CG_DST va $CG_DIR "$4" "$5" $((_q * 512)) $CG_WARM_MS $CG_WIN_MS \
		"$CG_SPIN_NS" sh /tmp/cgsnap.sh) || fail "cgroups: $1 $2: cgsend failed"
	# $6 packets, $7 busy ns, $8 window ns, $9 datagrams sent in the window
	bench "$1" ipp "$2" "$3" "$(awk -v b="$7" -v p="$6" 'BEGIN { printf "%.1f", b / p }')"
	# Near 1, the CPU is the bottleneck: instructions per packet are then
	# 10^9 / the packet rate, a floor of what the qdisc would take.
	bench "$1" busy "$2" "$3" "$(awk -v b="$7" -v w="$8" 'BEGIN { printf "%.4f", b / w }')"
	# Datagrams sent beyond those va sent were dropped by the qdisc.
	[ "$9" -le $(($6 + $6 / 50)) ] || note "warning: cgroups: $1 $2 rep $3: sent $9 datagrams, va $6"
	# Bytes and packets of each class between the snapshots. A snapshot
	# reads its classes at one point of its run, and no clock here knows
	# which, so the time between the reads is the packets the classes
	# counted between them at the rate va sent in the window, which a
	# backlogged shaper holds (bench/README.md, "The cgroups section").
	case $2 in
	htb) _jq='.[] | select(.parent == "1:1") | "\(.handle) \(.stats.bytes) \(.stats.packets)"' ;;
	edt) _jq='.[0].cgroups[] | "\(.path) \(.bytes) \(.packets)"' ;;
	esac
	for _s in 0 1; do jq -r "$_jq" /tmp/cgsnap.$_s >/tmp/cgsnap.$_s.txt || fail "cgroups: $2: snapshot $_s"; done
	awk -v n="$4" -v a="$5" -v pkts="$6" -v win="$8" -v kbit="$_kbit" -v kind="$2" '
		function key(c) { return kind == "htb" ? sprintf("1:%x", c + 256) : "/bench/" c }
		FNR == NR { b0[$1] = $2; p0[$1] = $3; next }
		{ b1[$1] = $2; dp += $3 - p0[$1] }
		END {
			ns = dp * win / pkts
			min = 1e9; max = 0; sum = 0
			for (j = 0; j < a; j++) {
				k = key(int(j * n / a))
				r = (b1[k] - b0[k]) * 8e6 / ns / kbit
				sum += r
				if (r < min) min = r
				if (r > max) max = r
			}
			printf "%.5f %.5f %.5f\n", sum / a, min, max
		}' /tmp/cgsnap.0.txt /tmp/cgsnap.1.txt >/tmp/cg.rates
	read -r _agg _min _max </tmp/cg.rates
	bench "$1" rate "$2" "$3" "$_agg"
	bench "$1" class_min "$2" "$3" "$_min"
	bench "$1" class_max "$2" "$3" "$_max"
}
if section cgroups && has_kind edt && [ -f /tests/files/cgcls.bpf.o ]; then
	t0=$(now)
	settle
	set -- $(benchtool cgspin 200)
	CG_SPIN_NS=$(awk -v i="$1" -v t="$2" 'BEGIN { printf "%.6f", t / i }')
	note "cgroups: an idle-counter iteration takes $CG_SPIN_NS ns alone"
	must ip neigh replace $CG_DST lladdr $BOGUS_MAC dev va nud permanent
	# htb's leaves are pfifo of txqueuelen packets: room for every socket's.
	must ip link set va txqueuelen 10000
	must mkdir -p $CG_DIR
	i=0
	while [ $i -lt 1024 ]; do mkdir -p "$CG_DIR/$i"; i=$((i + 1)); done
	must bpftool prog load /tests/files/cgcls.bpf.o /sys/fs/bpf/cgcls type classifier pinmaps /sys/fs/bpf/cgcls_maps
	# cgroup i's id (its directory's inode) -> classid 1:(256 + i), as
	# little-endian bytes.
	i=0
	while [ $i -lt 1024 ]; do
		stat -c %i "$CG_DIR/$i" | awk -v c=$((65536 + 256 + i)) '{
			id = $1; k = ""; v = ""
			for (b = 0; b < 8; b++) { k = k " " id % 256; id = int(id / 256) }
			for (b = 0; b < 4; b++) { v = v " " c % 256; c = int(c / 256) }
			print "map update pinned /sys/fs/bpf/cgcls_maps/cgcls_map key" k " value" v
		}'
		i=$((i + 1))
	done >/tmp/cgmap.batch
	must bpftool batch file /tmp/cgmap.batch
	for rep in $(seq "$REPS"); do
		for c in "1 1" "100 16" "1024 16" "100 100" "1024 1024"; do
			set -- $c
			t=cg$1
			[ "$1" = "$2" ] && [ "$1" != 1 ] && t=cg$1all
			for k in $(only htb edt); do
				cg_run "$t" "$k" "$rep" "$1" "$2"
			done
		done
	done
	qset noqueue
	rm -rf /sys/fs/bpf/cgcls /sys/fs/bpf/cgcls_maps
	i=0
	while [ $i -lt 1024 ]; do rmdir "$CG_DIR/$i"; i=$((i + 1)); done
	rmdir $CG_DIR
	ip link set va txqueuelen 1000
	ip neigh del $CG_DST dev va
	note "section cgroups: $(ms_since "$t0") ms guest"
fi
qset noqueue

# --- where a BPF qdisc's instructions go (one run each, same pktgen) ---
# T: one trampoline round trip = bfifo with an empty fentry program on
# bfifo_enqueue minus bfifo. Bodies: bpf_stats' run_time_ns (instructions,
# under icount) per call, minus what the same window reads for the empty
# program.
if section anatomy && [ -f /tests/files/tramp.bpf.o ]; then
	t0=$(now)
	pktgen_setup
	qset pfifo && pktgen_run anatomy pfifo 1
	qset bfifo limit 1000 && pktgen_run anatomy bfifo 1
	bpftool prog load /tests/files/tramp.bpf.o /sys/fs/bpf/bench_tramp autoattach ||
		fail "cannot attach the empty fentry program"
	pktgen_run anatomy bfifo+fentry 1
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	set -- $(benchtool progstat bench_empty)
	pktgen_run anatomy-stats bfifo+fentry 1
	set -- $(benchtool progstat bench_empty) "$@"
	bench anatomy window empty 1 "$(awk -v t="$(($1 - $3))" -v c="$(($2 - $4))" 'BEGIN { printf "%.3f", t / c }')"
	rm -f /sys/fs/bpf/bench_tramp
	for k in $(only $bpf_kinds); do
		qset "$k"
		before=$(benchtool progstat "${k}_enqueue" "${k}_dequeue")
		pktgen_run anatomy-stats "$k" 1
		set -- $(benchtool progstat "${k}_enqueue" "${k}_dequeue") $before
		bench anatomy enq_window "$k" 1 "$(awk -v t="$(($1 - $5))" -v c="$(($2 - $6))" 'BEGIN { printf "%.3f", t / c }')"
		bench anatomy enq_calls "$k" 1 "$(awk -v c="$(($2 - $6))" -v n="$PKTS" 'BEGIN { printf "%.4f", c / n }')"
		bench anatomy deq_window "$k" 1 "$(awk -v t="$(($3 - $7))" -v c="$(($4 - $8))" 'BEGIN { printf "%.3f", t / c }')"
		bench anatomy deq_calls "$k" 1 "$(awk -v c="$(($4 - $8))" -v n="$PKTS" 'BEGIN { printf "%.4f", c / n }')"
	done
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
	qset noqueue
	note "section anatomy: $(ms_since "$t0") ms guest"
fi

# --- qdiscctl's own cost: add = load + verify + register + attach ---
tm() { # CMD...: guest ms the command took (it must succeed), after settling
	settle
	set -- $(benchtool time "$@")
	[ "$2" = 0 ] || fail "timed command failed ($2)"
	awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e6 }'
}
# Each repetition records the median of ADD_N runs of each command: even
# settled and without ASLR, about one run in ten takes a few ms longer.
ADD_N=5
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
if section add; then
	t0=$(now)
	ip link add add0 type dummy
	for rep in $(seq "$REPS"); do
		bench add ms tc-pfifo "$rep" "$(for i in $(seq $ADD_N); do
			tm tc qdisc add dev add0 root pfifo; echo; tc qdisc del dev add0 root; done | median)"
		bench add ms qdiscctl-pfifo "$rep" "$(for i in $(seq $ADD_N); do
			tm qdiscctl add dev add0 root pfifo; echo; tc qdisc del dev add0 root; done | median)"
		for k in $bpf_kinds; do
			unkeep "$k"
			: >/tmp/add.1st
			: >/tmp/add.2nd
			: >/tmp/del.2nd
			: >/tmp/del.last
			# The first add registers the kind, the last del unregisters it.
			for i in $(seq $ADD_N); do
				{ tm qdiscctl add dev va root "$k" $(kind_opts "$k"); echo; } >>/tmp/add.1st
				{ tm qdiscctl add dev add0 root "$k" $(kind_opts "$k"); echo; } >>/tmp/add.2nd
				{ tm qdiscctl del dev add0 root; echo; } >>/tmp/del.2nd
				{ tm qdiscctl del dev va root; echo; } >>/tmp/del.last
			done
			bench add ms "$k" "$rep" "$(median </tmp/add.1st)"
			bench add ms "$k-2nd" "$rep" "$(median </tmp/add.2nd)"
			bench add ms "del-$k-2nd" "$rep" "$(median </tmp/del.2nd)"
			bench add ms "del-$k-last" "$rep" "$(median </tmp/del.last)"
			keep "$k"
		done
	done
	ip link del add0
	note "section add: $(ms_since "$t0") ms guest"
fi

# --- show -s with 1,000 qdiscs: 1,000 dummy devices in netns s ---
if section show; then
	t0=$(now)
	for k in $bpf_kinds; do unkeep "$k"; done
	qset noqueue
	must ip netns add s
	i=0
	while [ $i -lt 1000 ]; do echo "link add d$i type dummy"; i=$((i + 1)); done >/tmp/links.batch
	must ip -n s -b /tmp/links.batch
	# As many instances of each BPF kind as it allows, the rest pfifo.
	i=0
	for k in $bpf_kinds; do
		j=0
		while [ $j -lt 64 ]; do echo "add dev d$((i + j)) root $k $(kind_opts "$k")"; j=$((j + 1)); done >/tmp/q.batch
		qdiscctl -n s --force -b /tmp/q.batch >/dev/null 2>&1
		n=$(tc -n s qdisc show | grep -c "qdiscctl_$k ")
		note "show: $n $k instances"
		bench show count "$k" 1 "$n"
		i=$((i + 64))
	done
	# The devices are down: tc lists only the qdiscs added to them.
	tc -n s qdisc show | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") have[$(i + 1)] = 1 }
		END { for (i = 0; i < 1000; i++) if (!(("d" i) in have)) print "qdisc add dev d" i " root pfifo" }' >/tmp/q.batch
	must tc -n s -b /tmp/q.batch
	bench show count pfifo 1 "$(tc -n s qdisc show | grep -c '^qdisc pfifo ')"
	bench show count total 1 "$(tc -n s qdisc show | grep -c '^qdisc ')"
	for rep in $(seq "$REPS"); do
		bench show ms qdiscctl "$rep" "$(tm qdiscctl -n s -s show)"
		bench show ms tc "$rep" "$(tm tc -n s -s qdisc show)"
		bench show-json ms qdiscctl "$rep" "$(tm qdiscctl -n s -s -j show)"
		bench show-json ms tc "$rep" "$(tm tc -n s -s -j qdisc show)"
	done
	# The outputs list the same qdiscs.
	a=$(qdiscctl -n s -s -j show | jq length) b=$(tc -n s -s -j qdisc show | jq length)
	[ "$a" = "$b" ] || fail "show lists $a qdiscs, tc $b"
	ip netns del s
	note "section show: $(ms_since "$t0") ms guest"
fi

# --- map memory of a registration: every kind with room for 8, 128 and
# 1,024 instances (-C), read back as bpftool's bytes_memlock (-d kinds).
# It is allocated when the kind is registered, whether instances exist or
# not, so one instance is enough to register it.
if section memory; then
	t0=$(now)
	for k in $bpf_kinds; do unkeep "$k"; done
	ip link add mem0 type dummy
	for k in $bpf_kinds; do
		for n in 8 128 1024; do
			if ! qdiscctl -C instances=$n add dev mem0 root "$k" $(kind_opts "$k") >/dev/null; then
				note "warning: memory: $k with $n instances could not be registered"
				continue
			fi
			reg=$(qdiscctl -d -j kinds | jq -c --arg k "$k" '.[] | select(.name == $k) | .registrations[0]')
			[ "$(echo "$reg" | jq .instances)" = "$n" ] || fail "memory: $k registered with $(echo "$reg" | jq .instances) instances, not $n"
			bench memory bytes "$k-$n" 1 "$(echo "$reg" | jq .memory)"
			# What one of fq's flow and packet slots costs: the maps of
			# its two pools (the slots and the stacks of free ones) over
			# their entries, as 29-fq-memory.sh reads them.
			if [ "$k" = fq ] && [ "$n" = 8 ]; then
				ids=$(bpftool prog show -j | jq -c '[.[] | select(.name | startswith("fq_")) | .map_ids[]?] | unique')
				bpftool map show -j | jq -r --argjson ids "$ids" '[.[] | select(.id as $i | $ids | index($i))] |
					def m(n): [.[] | select(.name == n)][0];
					"\(m("flows").max_entries) \(m("flows").bytes_memlock + m("flow_pool").bytes_memlock)" +
					" \(m("pkts").max_entries) \(m("pkts").bytes_memlock + m("pkt_pool").bytes_memlock)"' >/tmp/fqmaps
				read -r fe fb pe pb </tmp/fqmaps
				bench memory slot_bytes fq-flow 1 "$(awk -v e="$fe" -v b="$fb" 'BEGIN { printf "%.1f", b / e }')"
				bench memory slots fq-flow 1 "$fe"
				bench memory slot_bytes fq-packet 1 "$(awk -v e="$pe" -v b="$pb" 'BEGIN { printf "%.1f", b / e }')"
				bench memory slots fq-packet 1 "$pe"
			fi
			must qdiscctl del dev mem0 root
		done
	done
	ip link del mem0
	# sch_fq allocates a flow from its slab cache (fq_flow_cache) when a
	# packet of a new flow comes, and frees it once it has been idle 3 s
	# and a lookup passes by, or with the qdisc; its packets wait in their
	# own sk_buffs, linked through the skb, at no cost of its own. N flows:
	# pktgen's UDP source ports 1..N, one packet each, on va's sch_fq with
	# the fullpath section's options (orphan_mask 65535; maxrate 30gbit
	# turns off the fast path, which would queue every packet in the
	# internal flow); the flows stay, idle, until the qdisc goes. The
	# cache's objects in use are read from sysfs before and after (SLUB
	# counts free objects of its per-CPU slabs as in use; shrinking the
	# cache first puts them back on its lists, where they count as free).
	if [ -n "$(only sch_fq)" ]; then
		pktgen_setup
		for n in 10000 50000; do
			# The cache exists once the module is loaded.
			qset sch_fq orphan_mask 65535 maxrate 30gbit
			if [ ! -r /sys/kernel/slab/fq_flow_cache/objects ]; then
				note "warning: memory: no /sys/kernel/slab/fq_flow_cache: sch_fq's flow memory cannot be read"
				break
			fi
			echo 1 >/sys/kernel/slab/fq_flow_cache/shrink
			set -- $(slab_objs fq_flow_cache)
			pgw "count $n" $PG/va
			pgw "udp_src_min 1" $PG/va
			pgw "udp_src_max $((n + 1))" $PG/va
			pgw start $PG/pgctrl
			echo 1 >/sys/kernel/slab/fq_flow_cache/shrink
			set -- "$@" $(slab_objs fq_flow_cache)
			bench memory flows "sch_fq-$n" 1 "$(tc -s qdisc show dev va | sed -n 's/^ *flows \([0-9]*\) .*/\1/p' | head -n 1)"
			bench memory slab_objs "sch_fq-$n" 1 $(($2 - $1))
		done
		if [ -r /sys/kernel/slab/fq_flow_cache/objects ]; then
			read -r osize </sys/kernel/slab/fq_flow_cache/object_size
			read -r ssize </sys/kernel/slab/fq_flow_cache/slab_size
			bench memory object_size fq_flow_cache 1 "$osize"
			bench memory slab_size fq_flow_cache 1 "$ssize"
		fi
		qset noqueue
		pgw "count $PKTS" $PG/va
		pgw "udp_src_min 9" $PG/va
		pgw "udp_src_max 9" $PG/va
	fi
	note "section memory: $(ms_since "$t0") ms guest"
fi

for k in $bpf_kinds; do unkeep "$k"; done
tc qdisc del dev va root 2>/dev/null
note "done"
