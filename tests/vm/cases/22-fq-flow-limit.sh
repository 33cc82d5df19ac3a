# flow_limit: one UDP flow flooding a paced fq (maxrate 10mbit, so that its
# queue really fills) is held at flow_limit packets and the rest of it is
# dropped and counted in flows_plimit, while a second, light flow loses
# nothing. Native sch_fq and fq run the same scenario and must agree.
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink qstat chrt

LIMIT=50

scenario() {
	big_sndbuf
	fq_add flow_limit $LIMIT maxrate 10mbit
	sink_start 9000 -i 1500ms -t 20s -H 42
	# A: 5000 datagrams/s of 1400 bytes (58 Mbit/s) into a 10 Mbit/s flow.
	in_a udpflows -d "$IP_B" -p 9000 -s 5001 -l 1400 -b 4000000 -r 5000 -n 0 -t 3s >"$TMPDIR/a.out" &
	a=$!
	# B: 100 datagrams/s (1.2 Mbit/s), well below its own 10 Mbit/s.
	in_a udpflows -d "$IP_B" -p 9000 -s 5002 -l 1400 -r 100 -n 0 -t 3s >"$TMPDIR/b.out" &
	b=$!
	sleep 1
	[ "$KIND" != fq ] || during=$(qd -j show dev va flows)
	maxq=$(in_a chrt -f 10 qstat -d va -i 20ms -t 1500ms -s | kv max_qlen)
	wait $a || kfail "flow A's sender failed: $(cat "$TMPDIR/a.out")"
	wait $b || kfail "flow B's sender failed: $(cat "$TMPDIR/b.out")"
	sink_wait 9000
	st=$(fq_xstats)
	log "[$KIND] max qlen $maxq; $st"
	log "[$KIND] A: $(cat "$TMPDIR/a.out"); B: $(cat "$TMPDIR/b.out")"
	sink_out 9000

	sent_a=$(kv sent <"$TMPDIR/a.out")
	sent_b=$(kv sent <"$TMPDIR/b.out")
	rx_a=$(sink_field 9000 pkts 5001)
	rx_b=$(sink_field 9000 pkts 5002)
	drops=$(xget "$st" drops)
	plimit=$(xget "$st" flows_plimit)
	# The precondition: A's queue reached the limit.
	[ "$maxq" -ge $LIMIT ] || kfail "no backlog of $LIMIT packets ever formed (max qlen $maxq)"
	# A is held at the limit; B adds at most a packet or two (and one may be requeued).
	[ "$maxq" -le $((LIMIT + 3)) ] || kfail "qlen $maxq exceeds flow_limit $LIMIT"
	[ "$plimit" -gt 0 ] || kfail "flows_plimit did not count: $st"
	assert_eq "$drops" "$plimit" "[$KIND] every drop is a flow_limit drop"
	assert_eq "$rx_b" "$sent_b" "[$KIND] flow B lost nothing"
	assert_eq "$((sent_a - rx_a))" "$drops" "[$KIND] flow A lost exactly the drops"
	assert_eq "$(sink_field 9000 rxdrops)" 0 "[$KIND] receiver drops"
	if [ "$KIND" = fq ]; then
		# The flow table tells the two flows apart: A at the limit with
		# every drop, B with every packet of its own and no drop.
		qd show dev va flows
		after=$(qd -j show dev va flows)
		# (One look at the table, not atomic and taken while the flow is
		# paced out and refilled: A's queue is near, never above, the limit.)
		q=$(jget "$during" '[.[0].flows[].qlen] | max')
		[ "$q" -ge $((LIMIT / 2)) ] && [ "$q" -le $LIMIT ] ||
			kfail "largest flow qlen $q during the flood, flow_limit $LIMIT: $during"
		assert_eq "$(jget "$after" "[.[0].flows[] | select(.drops > 0)] | length")" 1 "[fq] one flow dropped"
		assert_eq "$(jget "$after" "[.[0].flows[] | select(.drops > 0)][0] | [.drops, .packets] | @tsv" | tr '\t' ' ')" \
			"$drops $rx_a" "[fq] flow A's drops and packets"
		assert_eq "$(jget "$after" "[.[0].flows[] | select(.packets == $sent_b and .drops == 0)] | length")" 1 \
			"[fq] flow B: $sent_b packets, no drop"
	fi
	fq_result maxq "$maxq"
	fq_result drop_share "$(fcalc "$plimit / $sent_a")"
}

fq_run scenario
if fq_both; then
	# Same offered load and limit: the same share of flow A dropped (the
	# sender's own rate varies with the qdisc's cost, so compare shares).
	n=$(fq_get native drop_share)
	f=$(fq_get fq drop_share)
	fcmp "$f - $n" '<=' 0.03 && fcmp "$n - $f" '<=' 0.03 ||
		fail "share of flow A dropped: native $n, fq $f (more than 0.03 apart)"
fi
fq_done
