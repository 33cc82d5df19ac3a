# EDT and the horizon: datagrams sent with SO_TXTIME (CLOCK_MONOTONIC)
# leave fq no earlier than stamped; one stamped in the past leaves at once;
# beyond the horizon they are dropped and counted in horizon_drops
# (horizon_drop) or held only until the horizon and counted in horizon_caps
# (horizon_cap). Native sch_fq runs the same and must count the same.
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq txtime udpsink qstat

N=10

# delay_ms SPORT / last_delay_ms SPORT: how long the first / last datagram
# from SPORT took in ms: its arrival at the sink minus its send.
delay_ms() {
	_arr=$(sink_field 9000 first_ns "$1")
	[ -n "$_arr" ] || { echo none; return; }
	echo $(((_arr - $(kv first_send_ns <"$TMPDIR/tx.$1")) / 1000000))
}
last_delay_ms() {
	_arr=$(sink_field 9000 last_ns "$1")
	[ -n "$_arr" ] || { echo none; return; }
	echo $(((_arr - $(kv last_send_ns <"$TMPDIR/tx.$1")) / 1000000))
}
# send SPORT DELAY: N datagrams from SPORT, 10 ms apart, stamped DELAY ahead.
send() {
	in_a txtime -d "$IP_B" -p 9000 -s "$1" -D "$2" -n $N -g 10ms >"$TMPDIR/tx.$1" ||
		kfail "txtime -D $2 failed: $(cat "$TMPDIR/tx.$1")"
}

scenario() {
	# horizon_drop (sch_fq's default) with a 1 s horizon.
	fq_add horizon 1s horizon_drop
	sink_start 9000 -t 30s
	send 5001 500ms
	# The precondition of the EDT check: the datagrams are held (qstat is
	# quick enough to look well within the 500 ms).
	q=$(in_a qstat -d va | kv qlen)
	[ "$q" -gt 0 ] || kfail "datagrams stamped 500 ms ahead are not held (qlen $q)"
	send 5002 10s
	send 5003 -1s
	wait_until 10 drained || kfail "the 500ms-ahead datagrams were not all sent: $(fq_xstats)"
	st=$(fq_xstats)
	log "[$KIND] drop: $st"
	assert_eq "$(xget "$st" horizon_drops)" $N "[$KIND] horizon_drops"
	assert_eq "$(xget "$st" drops)" $N "[$KIND] drops"
	assert_eq "$(xget "$st" horizon_caps)" 0 "[$KIND] horizon_caps"
	fq_result horizon_drops "$(xget "$st" horizon_drops)"
	fq_del

	# horizon_cap: the same far stamps are held until the horizon.
	fq_add horizon 1s horizon_cap
	send 5004 10s
	q=$(in_a qstat -d va | kv qlen)
	[ "$q" = $N ] || kfail "the capped datagrams are not held (qlen $q)"
	wait_until 10 drained || kfail "the capped datagrams were not all sent: $(fq_xstats)"
	st=$(fq_xstats)
	log "[$KIND] cap: $st"
	assert_eq "$(xget "$st" horizon_caps)" $N "[$KIND] horizon_caps"
	assert_eq "$(xget "$st" horizon_drops)" 0 "[$KIND] horizon_drops"
	assert_eq "$(xget "$st" drops)" 0 "[$KIND] drops"
	fq_result horizon_caps "$(xget "$st" horizon_caps)"
	sleep 0.3
	sink_stop 9000
	sink_out 9000

	d1=$(delay_ms 5001) l1=$(last_delay_ms 5001)
	d3=$(delay_ms 5003)
	d4=$(delay_ms 5004) l4=$(last_delay_ms 5004)
	log "[$KIND] delays (ms): 500ms-ahead $d1..$l1, past $d3, capped $d4..$l4"
	fq_result delay_edt "$d1"
	fq_result delay_cap "$d4"
	assert_eq "$(sink_field 9000 pkts 5001)" $N "[$KIND] datagrams stamped 500 ms ahead"
	assert_eq "$(sink_field 9000 pkts 5002)" "" "[$KIND] none of the dropped datagrams arrived"
	assert_eq "$(sink_field 9000 pkts 5003)" $N "[$KIND] datagrams stamped in the past"
	assert_eq "$(sink_field 9000 pkts 5004)" $N "[$KIND] capped datagrams"
	# Each datagram leaves no earlier than its stamp: the first is stamped
	# 500 ms after the first send, the last 500 ms after the last send.
	[ "$d1" -ge 500 ] && [ "$l1" -ge 500 ] || kfail "500ms-ahead datagrams left early: $d1 / $l1 ms"
	[ "$d1" -lt 1500 ] || kfail "500ms-ahead datagrams held for $d1 ms"
	[ "$d3" -lt 400 ] || kfail "a datagram stamped in the past was held for $d3 ms"
	# Capped to the horizon: held about 1 s, far less than the 10 s stamped.
	[ "$d4" -ge 990 ] && [ "$l4" -ge 990 ] || kfail "capped datagrams left before the horizon: $d4 / $l4 ms"
	[ "$d4" -lt 3000 ] || kfail "capped datagrams were held $d4 ms, the horizon is 1 s"
}


fq_run scenario
if fq_both; then
	for m in horizon_drops horizon_caps; do
		assert_eq "$(fq_get fq $m)" "$(fq_get native $m)" "$m: fq vs native"
	done
fi
fq_done
