# fq's ce_threshold against sch_fq's. Behind a peer that drains slowly
# (slow_peer: about 700 packets/s), a UDP flow sending ECT(0) at twice that
# rate for 2 s builds a standing queue that lasts seconds, far past a 20 ms
# ce_threshold, while a light ECT(0) flow (20/s) never waits behind it: the
# receiver counts the packets of each flow and the CE-marked ones (tc u32
# filters on its ingress). The heavy flow starts with a burst of 2 s worth
# of the drain: without it the queue emptied whenever the busy host stalled
# the sender, and half the flow left in time; a burst alone is sent before
# fq's dequeue first finds the flow late, and so leaves unmarked. sch_fq
# marks at dequeue the packets that leave late; fq's
# egress program marks the flow's next packets once dequeue found it late,
# so it misses what was queued when the flow turned late, each time it
# does (a sender the busy host runs in bursts turns it late again and
# again): the heavy flow's marks must be within an order of magnitude of
# sch_fq's, the light flow's no more than sch_fq's. ce_mark counts, as
# sch_fq's, the packets that left late: for sch_fq exactly what arrived
# marked, and for both about the same share of the heavy flow (within a
# factor of 2). Then, fq only: the egress program is attached only
# while an instance on the device has ce_threshold (add, change, mq), and
# nothing is left once the qdisc goes.
# vmtest-timeout: 240
# vmtest-seconds: 45
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink qstat bpftool taskset

THRESH=20ms
HEAVY_PPS=1400
HEAVY_BURST=1400
LIGHT_PPS=20

# ce_prog: the egress programs on va.
ce_prog() { in_a bpftool net show dev va | grep -c 'tcx/egress.*fq_ce_mark'; }

# rx_count PREF: packets the ingress filter of that preference counted.
rx_count() {
	in_b tc -s -j filter show dev vb ingress |
		jq "[.[] | select(.pref == $1 and .options.actions) | .options.actions[0].stats.packets] | add // 0"
}

scenario() {
	big_sndbuf
	slow_peer
	must in_b tc qdisc add dev vb clsact
	# 1, 2: CE-marked packets of the heavy and the light flow; 3, 4: all
	# of them ("continue": every filter sees every packet).
	for f in "1 9000" "2 9001"; do
		set -- $f
		must in_b tc filter add dev vb ingress pref "$1" protocol ip u32 \
			match ip tos 0x03 0x03 match ip dport "$2" 0xffff action continue
		must in_b tc filter add dev vb ingress pref "$(($1 + 2))" protocol ip u32 \
			match ip dport "$2" 0xffff action continue
	done
	# Room for the whole backlog: no drop, so both count the same packets.
	fq_add limit 20000 flow_limit 10000 ce_threshold $THRESH
	sink_start 9000 -P 2 -t 200s -b 16000000
	in_a taskset -c 0 udpflows -d "$IP_B" -p 9000 -s 5001 -l 1000 -e 2 -b 16000000 \
		-B $HEAVY_BURST -r $HEAVY_PPS -n 0 -t 2s >"$TMPDIR/heavy.out" &
	h=$!
	in_a taskset -c 0 udpflows -d "$IP_B" -p 9001 -s 5002 -l 200 -e 2 -r $LIGHT_PPS -n 0 -t 2s \
		>"$TMPDIR/light.out" &
	l=$!
	sleep 1
	maxq=$(sample_max_qlen "$NS_A" va 10)
	wait $h || kfail "heavy sender failed: $(cat "$TMPDIR/heavy.out")"
	wait $l || kfail "light sender failed: $(cat "$TMPDIR/light.out")"
	# What is queued has waited already: let it go at full speed.
	unslow_peer
	wait_until 30 drained || kfail "the qdisc does not drain: $(fq_xstats)"
	sink_stop 9000
	st=$(fq_xstats)
	js=$(fq_json)
	sent_h=$(kv sent <"$TMPDIR/heavy.out")
	sent_l=$(kv sent <"$TMPDIR/light.out")
	ce_h=$(rx_count 1)
	ce_l=$(rx_count 2)
	rx_h=$(rx_count 3)
	rx_l=$(rx_count 4)
	mark=$(jget "$js" '.ce_mark // 0')
	log "[$KIND] max qlen $maxq; heavy: sent $sent_h received $rx_h CE $ce_h;" \
		"light: sent $sent_l received $rx_l CE $ce_l; ce_mark $mark"
	log "[$KIND] $st"
	fq_result ce_heavy "$ce_h"
	fq_result ce_light "$ce_l"
	fq_result rx_heavy "$rx_h"
	fq_result ce_mark "$mark"

	# The precondition: a queue far longer than the threshold's worth.
	[ "$maxq" -ge 100 ] || kfail "no standing queue formed (max qlen $maxq)"
	assert_eq "$(xget "$st" drops)" 0 "[$KIND] drops"
	assert_eq "$rx_h" "$sent_h" "[$KIND] the heavy flow arrived whole"
	# Most of the heavy flow waited past the threshold.
	fcmp "$mark" '>=' "$rx_h / 2" || kfail "only $mark of $rx_h packets left late"
	[ "$ce_h" -gt 0 ] || kfail "no heavy packet arrived CE-marked"
	# The light flow never queues behind it (new flows go first): it is
	# late only when the drain itself stalls past the threshold, which a
	# busy host can make it do, so fq is held to what sch_fq saw.
	if [ "$KIND" = native ]; then
		fq_result ce_light_allowed "$((2 * ce_l + rx_l / 10 + 2))"
	else
		allowed=$(fq_get native ce_light_allowed)
		[ "$ce_l" -le "${allowed:-$((rx_l / 10 + 2))}" ] ||
			kfail "$ce_l of $rx_l light packets CE-marked (sch_fq: $(fq_get native ce_light))"
	fi
	# fq's count and its marks differ by what was queued when the flow
	# turned late (unmarked, counted) and when it recovered (marked, not).
	[ "$KIND" != native ] ||
		assert_eq "$mark" "$((ce_h + ce_l))" "[native] ce_mark against the receiver's count"
	assert_match "$(fq_show | head -n 1)" " ce_threshold $THRESH " "[$KIND] ce_threshold shown"
	assert_eq "$(jget "$js" '.options.ce_threshold')" 20000 "[$KIND] JSON ce_threshold (us)"
	assert_match "$(fq_show)" " ce_mark $mark" "[$KIND] ce_mark in -s text"
	if [ "$KIND" = fq ]; then
		assert_eq "$(ce_prog)" 1 "[fq] the marking program is attached"
		# Live: off (sch_fq's ~0U us) detaches it, a threshold again attaches it.
		must qd change dev va root fq ce_threshold 4294967295
		assert_eq "$(ce_prog)" 0 "[fq] change to no ce_threshold detaches the program"
		assert_no_match "$(qd show dev va)" "ce_threshold" "[fq] no ce_threshold shown"
		must qd change dev va root fq ce_threshold 100
		assert_eq "$(ce_prog)" 1 "[fq] change to a ce_threshold attaches it"
		assert_match "$(qd show dev va)" " ce_threshold 100us " "[fq] a bare ce_threshold is us"
		must qd del dev va root
		assert_eq "$(ce_prog)" 0 "[fq] del detaches it"
		# Without ce_threshold the device never gets it.
		fq_add
		assert_eq "$(ce_prog)" 0 "[fq] no program without ce_threshold"
		must qd replace dev va root fq ce_threshold 1ms
		assert_eq "$(ce_prog)" 1 "[fq] replace with ce_threshold attaches it"
		must qd replace dev va root fq
		assert_eq "$(ce_prog)" 0 "[fq] replace without it detaches it"
		must qd del dev va root
	fi
}

fq_run scenario
if fq_both; then
	n=$(fq_get native ce_heavy)
	f=$(fq_get fq ce_heavy)
	log "heavy flow CE-marked at the receiver: sch_fq $n, fq $f (of $(fq_get native rx_heavy) and" \
		"$(fq_get fq rx_heavy)); light flow: sch_fq $(fq_get native ce_light), fq $(fq_get fq ce_light);" \
		"ce_mark: sch_fq $(fq_get native ce_mark), fq $(fq_get fq ce_mark)"
	fcmp "$f" '>=' "$n / 10" && fcmp "$f" '<=' "$n * 10" ||
		fail "fq marked $f heavy packets, sch_fq $n: not within an order of magnitude"
	nl=$(fcalc "$(fq_get native ce_mark) / $(fq_get native rx_heavy)")
	fl=$(fcalc "$(fq_get fq ce_mark) / $(fq_get fq rx_heavy)")
	log "late share of the heavy flow (ce_mark / packets): sch_fq $nl, fq $fl"
	fcmp "$fl" '>=' "$nl / 2" && fcmp "$fl" '<=' "$nl * 2" ||
		fail "late share: fq $fl, sch_fq $nl: not within a factor of 2"
fi

# mq: one program for the device, whichever children have ce_threshold.
if fq_available; then
	netns_pair --queues 4
	quiet_ns a b
	must qd add dev va root mq fq ce_threshold 5ms
	assert_eq "$(ce_prog)" 1 "mq: one program for four children"
	must qd change dev va root fq ce_threshold 4294967295
	assert_eq "$(ce_prog)" 0 "mq: no child with ce_threshold, no program"
	must qd change dev va root fq ce_threshold 5ms
	assert_eq "$(ce_prog)" 1 "mq: attached again"
	must qd del dev va root
	assert_eq "$(ce_prog)" 0 "mq: del detaches it"
	cleanup_netns
	assert_clean "after fq with ce_threshold"
fi
fq_done
