# Fairness, with fq as the bottleneck in two ways:
#  (1) TCP, 4 and 16 flows (iperf3 -P, 3 s), each held to maxrate 10mbit
#      (4 flows) or 5mbit (16 flows; 80 Mbit/s in all leaves the CPU spare
#      under TCG): the flows keep packets waiting in fq (fq is the
#      bottleneck) and their bytes have Jain's index >= 0.99, each within
#      10 % of the mean.
#  (2) DRR without pacing: 4 UDP flows offering 1:2:4:8 (one sender,
#      weighted round robin, 20,000 datagrams/s in all) into a peer that
#      drains only ~700-2,000 datagrams/s (slow_peer), so that every flow
#      keeps a queue: what each delivers after the first second (the start-up
#      transient, before the queues form, goes by offered load) has Jain's
#      index >= 0.99, each within 10 % of the mean. The native run also puts pfifo through the same and
#      requires it to be unfair (index < 0.9), which shows the scenario
#      can tell a fair qdisc from an unfair one.
# Native sch_fq runs the same.
# vmtest-timeout: 150
# vmtest-seconds: 55
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq iperf3 udpflows udpsink qstat

tcp_fair() {
	p=$1 maxrate=$2
	# TCP payload: 1448 of every 1514 bytes on the wire (timestamps on).
	goodput=$((maxrate * 1448 / 1514))
	fq_add maxrate "$maxrate"
	iperf_server b
	in_a iperf3 -c "$IP_B" -P "$p" -t 3 -J >"$TMPDIR/iperf.json" &
	ipf=$!
	sleep 0.7
	in_a chrt -f 10 qstat -d va -i 50ms -t 2s -s >"$TMPDIR/qstat.out"
	wait $ipf || kfail "iperf3 -P $p failed"
	jq -r '.end.streams[].receiver.bytes' "$TMPDIR/iperf.json" >"$TMPDIR/bytes"
	bps=$(jq -r '[.end.streams[].receiver.bits_per_second] | add / length | floor' "$TMPDIR/iperf.json")
	set -- $(jain <"$TMPDIR/bytes")
	st=$(fq_xstats)
	meanq=$(kv mean_qlen <"$TMPDIR/qstat.out")
	log "[$KIND] TCP x$p: bytes $(echo $(cat "$TMPDIR/bytes")); Jain $1, max deviation $2; mean $bps bit/s; mean qlen $meanq"
	log "[$KIND] $st"
	assert_eq "$(wc -l <"$TMPDIR/bytes")" "$p" "[$KIND] TCP streams"
	# The precondition: fq's maxrate, not the CPU, limited the flows: they
	# kept packets waiting in fq (a CPU-bound sender leaves it empty), and
	# none went faster than maxrate. (How close to maxrate they come
	# depends on how much CPU the host leaves the VM: both sch_fq and fq
	# fell to 60 % on a busy host, so that is logged, not asserted.)
	fcmp "$meanq" '>=' "$p / 2" || kfail "TCP x$p: mean qlen $meanq: the flows did not wait in fq"
	fcmp "$bps" '<=' "$goodput * 1.05" || kfail "TCP x$p: mean $bps bit/s, above maxrate ($goodput)"
	fcmp "$bps" '>=' "$goodput * 0.5" || kfail "TCP x$p: mean $bps bit/s, not half of maxrate ($goodput)"
	[ "$(xget "$st" throttled)" -gt 0 ] || kfail "TCP x$p: no flow was ever throttled"
	fcmp "$1" '>=' 0.99 || kfail "TCP x$p: Jain's index $1 < 0.99"
	fcmp "$2" '<=' 0.10 || kfail "TCP x$p: a flow is $2 off the mean (> 10 %)"
	fq_result "tcp${p}_jain" "$1"
	fq_result "tcp${p}_maxdev" "$2"
	fq_result "tcp${p}_rate" "$bps"
	fq_del
}

# udp_drr NAME TIME: the weighted flood into the slow peer; prints "JAIN
# MAXDEV COUNTED" (COUNTED: the datagrams received after the first second).
udp_drr() {
	SINK_CPU=0 sink_start 9000 -t 30s -S 1s
	in_a taskset -c 0 udpflows -d "$IP_B" -p 9000 -s 6000 -k 4 -w 1,2,4,8 -l 1400 -b 4000000 -r 20000 -n 0 -t "$2" \
		>"$TMPDIR/tx.out" &
	tx=$!
	sleep 0.5
	in_a chrt -f 10 qstat -d va -i 20ms -t 1500ms -s >"$TMPDIR/qstat.out"
	wait $tx || kfail "sender failed"
	# What is still queued is not counted: the window ends with the flood.
	sink_stop 9000
	sink_out 9000 >&2
	echo "# $1: $(cat "$TMPDIR/tx.out"); $(cat "$TMPDIR/qstat.out")" >&2
	echo "$(sink_flows 9000 pkts | jain) $(sink_field 9000 pkts)"
}

scenario() {
	big_sndbuf
	# TCP paces itself at 1.2 x cwnd / srtt, and fq applies that rate too
	# (TCP cannot know it runs under a BPF fq); srtt includes the queueing
	# in fq, so a late watchdog under TCG lowers every flow's rate below
	# maxrate. Ten times the rate keeps maxrate the one limit.
	in_a sh -c 'echo 1000 >/proc/sys/net/ipv4/tcp_pacing_ss_ratio &&
		echo 1000 >/proc/sys/net/ipv4/tcp_pacing_ca_ratio' || kfail "pacing ratios"
	tcp_fair 4 10000000
	tcp_fair 16 5000000

	# (2): the peer drains in bursts of up to its 256-slot ring, so every
	# flow needs a queue deeper than its share of a burst to stay backlogged
	# (with flow_limit 100 a light flow runs dry and loses its share):
	# flow_limit 1000.
	slow_peer
	fq_add flow_limit 1000
	set -- $(udp_drr "$KIND" 3s)
	st=$(fq_xstats)
	log "[$KIND] UDP 1:2:4:8 DRR: Jain $1, max deviation $2, $3 datagrams; $st"
	if ! fcmp "$1" '>=' 0.99 || ! fcmp "$2" '<=' 0.10; then
		# Once in some ten runs sch_fq itself came out at 0.97 here (a
		# hiccup of the starved peer); a broken DRR fails twice. The
		# peer drains in bursts of up to its 256-slot ring, and on a busy
		# host as few as 160 datagrams a second: fewer than eight bursts
		# counted say nothing of fairness, so the second try runs long
		# enough for eight at the rate the first one saw (12 s at most).
		secs=3
		[ "${3:-0}" -ge 2048 ] || secs=$((2 * 2048 / (${3:-0} + 1) + 2))
		[ "$secs" -le 12 ] || secs=12
		log "[$KIND] UDP: Jain $1, max deviation $2: once more, for ${secs}s"
		fq_del
		fq_add flow_limit 1000
		set -- $(udp_drr "$KIND" "${secs}s")
		st=$(fq_xstats)
		log "[$KIND] UDP 1:2:4:8 DRR, second try: Jain $1, max deviation $2, $3 datagrams; $st"
	fi
	maxq=$(kv max_qlen <"$TMPDIR/qstat.out")
	[ "$maxq" -ge 2000 ] || kfail "UDP: max qlen $maxq: the flows did not keep queues"
	[ "$(xget "$st" flows_plimit)" -gt 0 ] || kfail "UDP: no flow reached flow_limit"
	assert_eq "$(sink_field 9000 flows)" 4 "[$KIND] UDP flows received"
	[ "$KIND" != fq ] || qd show dev va flows
	fcmp "$1" '>=' 0.99 || kfail "UDP: Jain's index $1 < 0.99"
	fcmp "$2" '<=' 0.10 || kfail "UDP: a flow is $2 off the mean (> 10 %)"
	fq_result udp_jain "$1"
	fq_result udp_maxdev "$2"
	if [ "$KIND" = native ]; then
		must in_a tc qdisc replace dev va root pfifo limit 4000
		set -- $(udp_drr pfifo 2500ms)
		log "[pfifo] UDP 1:2:4:8: Jain $1, max deviation $2 (must be unfair)"
		fcmp "$1" '<' 0.9 || kfail "pfifo is as fair as fq here (Jain $1): the scenario proves nothing"
		must in_a tc qdisc del dev va root
	fi
}

fq_run scenario
fq_done
