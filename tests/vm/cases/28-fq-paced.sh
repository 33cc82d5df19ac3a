# 10,000 paced sockets through one fq: 10,000 connected UDP sockets, each
# paced by SO_MAX_PACING_RATE to 1,100 bytes/s, send 3 datagrams of 1,042
# bytes (as the qdisc counts them) each, one socket after the other and as
# fast as the sender can, so that every socket's second and third datagram
# wait in the qdisc for their departure times (0.95 s apart; sch_fq and fq
# hold a packet 1 s at most). While the sender runs (about 3 s), the flows
# counted equal the sockets (no flow is reclaimed while it has packets
# queued or a departure ahead, and the table has room for all of them),
# thousands of packets are queued behind throttled flows when it ends and
# flows were throttled more often than there are sockets (the proof of a
# backlog and of pacing). Afterwards every datagram arrived, nothing was
# dropped, no allocation failed, fq's overflow flow carried nothing, and no
# socket's bytes exceed its rate over the time between its first and last
# datagram by more than initial_quantum (2,084 bytes, two datagrams).
# buckets 16384 takes bucket blocks from the registration's pool. Native
# sch_fq runs the same scenario.
# vmtest-timeout: 300
# vmtest-seconds: 38
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink qstat

K=10000
PER=3
RATE=1100
IQ=2084

scenario() {
	fq_add limit 100000 buckets 16384 initial_quantum $IQ
	sink_start 9000 -i 4s -t 120s -H 42 -b 64000000
	in_a udpflows -d "$IP_B" -p 9000 -k $K -w $PER -s 20000 -m $RATE -l 1000 -n $((K * PER)) \
		>"$TMPDIR/tx.out" || kfail "udpflows failed: $(cat "$TMPDIR/tx.out")"
	st=$(fq_xstats)
	log "[$KIND] sender done: $(cat "$TMPDIR/tx.out"); $st"
	# A socket sends its datagrams within about a second; on a busy host
	# the sender takes longer than the 3 s after which an idle flow may be
	# reclaimed (by sch_fq too), and such a flow is counted in gc_flows.
	if [ "$KIND" = fq ]; then
		during=$(qd -j show dev va flows)
		sks=$(jget "$during" '[.[0].flows[] | select(.flow | startswith("sk "))] | length')
		gc=$(xget "$(fq_xstats)" gc_flows)
		assert_eq "$((sks + gc))" $K "[fq] socket flows listed while sending, with the $gc idle ones reclaimed"
	fi
	assert_eq "$(awk '{ print $2 }' "$TMPDIR/tx.out")" $((K * PER)) "[$KIND] datagrams sent"
	assert_eq "$(($(xget "$st" flows) + $(xget "$st" gc_flows)))" $K "[$KIND] flows while sending, with the idle ones reclaimed"
	qlen=$(xget "$st" qlen)
	# Of the last second's sockets, the later datagrams still wait; and
	# nearly every socket's flow was throttled at least once.
	[ "$qlen" -ge $((K / 10)) ] || kfail "only $qlen packets queued when the sender ended: no backlog"
	[ "$(xget "$st" throttled_flows)" -ge $((K / 10)) ] ||
		kfail "only $(xget "$st" throttled_flows) flows throttled when the sender ended"
	[ "$(xget "$st" throttled)" -ge $K ] || kfail "flows were throttled only $(xget "$st" throttled) times"
	fq_result queued "$qlen"

	sink_wait 9000
	wait_until 10 drained || kfail "the qdisc does not drain: $(fq_xstats)"
	st=$(fq_xstats)
	log "[$KIND] drained: $st"
	assert_eq "$(sink_field 9000 pkts)" $((K * PER)) "[$KIND] datagrams received"
	assert_eq "$(sink_field 9000 flows)" $K "[$KIND] flows at the receiver"
	assert_eq "$(xget "$st" drops)" 0 "[$KIND] drops"
	assert_eq "$(xget "$st" allocation_errors)" 0 "[$KIND] allocation errors"
	# Bytes beyond what the rate allows between a socket's first and last
	# datagram: the largest of any socket, and how many exceed the quantum.
	over=$(awk -v r=$RATE -v q=$IQ '$1 == "flow" {
			for (i = 3; i < NF; i++) v[$i] = $(i + 1)
			x = v["bytes"] - r * (v["last_ns"] - v["first_ns"]) / 1e9
			if (x > m) m = x
			if (x > q) n++
		} END { printf "%.0f %d\n", m, n }' "$TMPDIR/sink.9000")
	log "[$KIND] most bytes beyond the rate: ${over% *}; sockets beyond initial_quantum: ${over#* }"
	assert_eq "${over#* }" 0 "[$KIND] sockets that exceeded their rate by more than $IQ bytes (most: ${over% *})"
	fq_result over "${over% *}"
	if [ "$KIND" = fq ]; then
		after=$(qd -j show dev va flows)
		assert_eq "$(jget "$after" '[.[0].flows[] | select(.flow == "overflow") | .packets] | add')" 0 \
			"[fq] packets of the overflow flow"
		# The reserved flows never count as inactive (it wrapped once).
		inactive=$(xget "$st" inactive_flows)
		[ "$inactive" -le $K ] || kfail "inactive $inactive > $K flows"
	fi
}

fq_run scenario
fq_done
