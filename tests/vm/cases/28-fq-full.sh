# An fq instance at its most flows (instance_flows, 16,384 by default):
# 17,000 connected UDP sockets send one datagram each, stamped (SO_TXTIME)
# to leave 4 s later, so every flow has a packet queued and none may be
# collected. Exactly the sockets beyond the first 16,384 find no room:
# their datagrams go to the overflow flow and count in alloc_errors, no
# flow is collected (gc 0), and inactive never exceeds flows (it wrapped to
# 4294967295 while the overflow flow held packets). Once the departure
# times pass, every datagram leaves. fq only: sch_fq has no such bound.
# vmtest-timeout: 200
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink qstat

K=17000
ROOM=16384

scenario() {
	[ "$KIND" = fq ] || return 0
	# All 17,000 leave at once: room for them in the receiver's backlog.
	set_sysctl net.core.netdev_max_backlog 40000
	# flow_limit 1000: the overflow flow holds all of its 616 packets.
	fq_add limit 100000 buckets 16384 flow_limit 1000
	sink_start 9000 -i 3s -t 120s -q -b 64000000
	in_a udpflows -d "$IP_B" -p 9000 -k $K -s 30000 -T 4s -n $K >"$TMPDIR/tx.out" ||
		kfail "udpflows failed: $(cat "$TMPDIR/tx.out")"
	st=$(fq_xstats)
	log "[fq] sender done: $(cat "$TMPDIR/tx.out"); $st"
	assert_eq "$(awk '{ print $2 }' "$TMPDIR/tx.out")" $K "[fq] datagrams sent"
	assert_eq "$(xget "$st" qlen)" $K "[fq] all queued until their time"
	assert_eq "$(xget "$st" flows)" $ROOM "[fq] flows"
	assert_eq "$(xget "$st" allocation_errors)" $((K - ROOM)) "[fq] alloc_errors"
	assert_eq "$(xget "$st" gc_flows)" 0 "[fq] flows collected with packets queued"
	[ "$(xget "$st" inactive_flows)" -le "$(xget "$st" flows)" ] ||
		kfail "inactive $(xget "$st" inactive_flows) > flows $(xget "$st" flows)"
	fl=$(qd -j show dev va flows)
	assert_eq "$(jget "$fl" '[.[0].flows[] | select(.flow == "overflow") | .qlen] | add')" $((K - ROOM)) \
		"[fq] packets waiting in the overflow flow"
	sink_wait 9000
	wait_until 10 drained || kfail "the qdisc does not drain: $(fq_xstats)"
	st=$(fq_xstats)
	log "[fq] drained: $st"
	assert_eq "$(sink_field 9000 pkts)" $K "[fq] datagrams received"
	assert_eq "$(xget "$st" drops)" 0 "[fq] drops"
	[ "$(xget "$st" inactive_flows)" -le "$(xget "$st" flows)" ] ||
		kfail "inactive $(xget "$st" inactive_flows) > flows $(xget "$st" flows) after draining"
}

VMTEST_FQ_KINDS=fq
fq_run scenario
fq_done
