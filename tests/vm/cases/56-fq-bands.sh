# fq's bands against native sch_fq. With vb's NAPI starved (as 50-prio
# does) three UDP senders with SO_PRIORITY 6, 0 and 1 (bands 0, 1 and 2
# by the default priomap) queue 2,300, 1,500 and 800 datagrams behind a
# full veth ring; released, the qdisc's first 3,600 datagrams (counted at
# the receiver after the ring's 256) go by the weights 49152 32768 16384:
# each band's share is within 5 % of 1/2, 1/3 and 1/6 (about 53 rounds,
# so a partial round is at most 2 %). Each band holds up to limit packets,
# as sch_fq's do: at limit 2000 band 0 drops what it cannot hold
# (band0_drops) while the qdisc holds more than 2,000, and show -s has the
# per-band counters as tc prints them. Native sch_fq runs the same.
# vmtest-timeout: 150
# vmtest-seconds: 40
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink ethtool chrt taskset

W0=49152 W1=32768 W2=16384
LIMIT=2000 RING=256 K=3600
# "PRIORITY SOURCE-PORT DATAGRAMS WEIGHT" of each sender, band 0 first.
SENDERS="6 6000 2300 $W0
0 6001 1500 $W1
1 6002 800 $W2"

scenario() {
	napi_prepare
	big_sndbuf
	fq_add limit $LIMIT flow_limit 3000 weights $W0 $W1 $W2
	in_b taskset -c 0 udpsink -p 9000 -c $((RING + K)) -t 60s -b 33554432 >"$TMPDIR/sink" 2>&1 &
	sink=$!
	sleep 0.3
	napi_starve
	while read -r prio sport n _; do
		in_a udpflows -d "$IP_B" -p 9000 -s "$sport" -q "$prio" -n "$n" -l 1400 -b 8000000 \
			>/dev/null || kfail "udpflows -q $prio failed"
	done <<EOF
$SENDERS
EOF
	held=$(fq_xstats)
	log "[$KIND] held: $held"
	napi_release
	wait "$sink"
	log "[$KIND] $(cat "$TMPDIR/sink")"
	# The precondition: every band held enough for its share of K.
	[ "$(xget "$held" band0_pkts)" -ge $((K / 2)) ] || kfail "band 0 holds too little: $held"
	[ "$(xget "$held" band1_pkts)" -ge $((K / 3)) ] || kfail "band 1 holds too little: $held"
	[ "$(xget "$held" band2_pkts)" -ge $((K / 6)) ] || kfail "band 2 holds too little: $held"
	# Each band is held to limit, not the qdisc.
	assert_eq "$(xget "$held" band0_pkts)" $LIMIT "[$KIND] band 0 at limit"
	[ "$(xget "$held" band0_drops)" -gt 0 ] || kfail "band 0 beyond limit dropped nothing: $held"
	assert_eq "$(xget "$held" band1_drops)/$(xget "$held" band2_drops)" / "[$KIND] bands 1 and 2 below limit, no drops shown"
	[ "$(xget "$held" qlen)" -gt $LIMIT ] || kfail "qlen $(xget "$held" qlen): not above limit $LIMIT"
	assert_eq "$(xget "$held" flows_plimit)" 0 "[$KIND] flows_plimit"
	assert_match "$(fq_show)" ' band0_drops [1-9]' "[$KIND] band0_drops in show -s"
	json=$(fq_json)
	assert_eq "$(jget "$json" '[.band0_pkts, .band1_pkts, .band2_pkts] | map(type) | unique | tojson')" \
		'["number"]' "[$KIND] band packets in -s -j"
	[ "$(jget "$json" .band0_drops)" -gt 0 ] || kfail "no band0_drops in -s -j: $json"
	assert_eq "$(sed -n 's/^total .* rxdrops \([0-9]*\).*/\1/p' "$TMPDIR/sink")" 0 "[$KIND] receiver drops"
	# What leaves before the bands' round robin, all the first sender's:
	# what the ring took (counted as sent), and what waits outside the
	# bands (a requeued packet, sch_fq's fast path queue, fq's fast slot).
	first=$(($(xget "$held" packets) + $(xget "$held" qlen) - $(xget "$held" band0_pkts) -
		$(xget "$held" band1_pkts) - $(xget "$held" band2_pkts) - $(xget "$held" requeues)))
	maxdev=0
	while read -r prio sport _ w; do
		got=$(sed -n "s/^flow [0-9.]*:$sport .* pkts \([0-9]*\) .*/\1/p" "$TMPDIR/sink")
		[ "$sport" != 6000 ] || got=$((got - first))
		dev=$(fcalc "(${got:-0} / ($RING + $K - $first)) / ($w / ($W0 + $W1 + $W2)) - 1")
		log "[$KIND] priority $prio: $got of the bands' first $((RING + K - first)) datagrams, $dev off its weight's share"
		fcmp "$dev" '<' 0 && dev=$(fcalc "-($dev)")
		fcmp "$dev" '>' "$maxdev" && maxdev=$dev
	done <<EOF
$SENDERS
EOF
	fcmp "$maxdev" '<=' 0.05 || kfail "a band is $maxdev off its weight's share (> 5 %)"
	fq_result maxdev "$maxdev"
}

fq_run scenario
fq_done
