# Flow garbage collection: 100,000 short-lived flows through fq.
#  (a) 100,000 orphan flows: unconnected UDP from two sockets to 50,000
#      ports each, so that every datagram has its own 5-tuple and, with
#      orphan_mask 0xffffffff, its own flow, as fast as the sender can (some
#      20,000-40,000 flows/s under TCG). fq must keep
#      its table bounded (flows <= 16384, its instance_flows), collect (gc counts at least
#      every flow the table could not hold), never fail an allocation and
#      deliver every datagram: every flow is either still in the table or
#      counted as collected (flows + gc >= 100,000), as with sch_fq.
#  (a') 3.5 s after (a), when every flow of (a) is older than the 3 s GC
#      age, the new flows of (b) and 2,000 more orphans have made gc grow
#      by at least 1,000 since (a).
#  (b) 10,000 datagrams each from a new connected socket (closed after
#      its datagram; the kernel reuses socket memory, which fq must tell
#      apart from the old flow): the same bounds. (10,000 rather than
#      100,000: a socket a datagram costs about 0.25 ms under TCG.)
# maxrate 1gbit only turns native sch_fq's fast path off (it would bypass
# the flow table for an idle qdisc) and paces nothing here.
# vmtest-timeout: 200
# vmtest-seconds: 35
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows

N=100000
NS=10000
# The most flows one instance holds (the instance_flows capacity's default).
TABLE=16384

rx_vb() { in_b cat /sys/class/net/vb/statistics/rx_packets; }

check() {
	name=$1 rx0=$2 n=$3
	wait_until 5 drained || kfail "$name: the qdisc does not drain: $(fq_xstats)"
	rx=$(($(rx_vb) - rx0))
	st=$(fq_xstats)
	log "[$KIND] $name: $(cat "$TMPDIR/tx.out"); vb received $rx; $st"
	assert_eq "$(awk '{ print $2 }' "$TMPDIR/tx.out")" "$n" "[$KIND] $name: datagrams sent"
	assert_eq "$rx" "$n" "[$KIND] $name: datagrams delivered"
	assert_eq "$(xget "$st" drops)" 0 "[$KIND] $name: drops"
	assert_eq "$(xget "$st" allocation_errors)" 0 "[$KIND] $name: allocation errors"
	flows=$(xget "$st" flows)
	gc=$(xget "$st" gc_flows)
	if [ "$KIND" = fq ]; then
		[ "$flows" -le $TABLE ] || kfail "$name: $flows flows, the table has $TABLE slots"
		n=$(qd -j show dev va flows | jq '.[0].flows | length')
		# The table's flows plus the prio and overflow flows.
		[ "$n" -le $((TABLE + 2)) ] || kfail "$name: the flow table lists $n flows"
		log "[fq] $name: the flow table lists $n entries"
	fi
	fq_result "${name}_flows" "$flows"
	fq_result "${name}_gc" "$gc"
}

scenario() {
	fq_add orphan_mask 4294967295 maxrate 1gbit
	rx0=$(rx_vb)
	t0=$(uptime_cs)
	in_a udpflows -d "$IP_B" -p 10000 -P 50000 -U -k 2 -s 5000 -n $N >"$TMPDIR/tx.out" ||
		kfail "udpflows failed"
	t1=$(uptime_cs)
	log "[$KIND] orphans: $((t1 - t0))0 ms"
	check orphans "$rx0" $N
	# Every datagram was a new flow: each is still in the table or was
	# collected (a 32-bit hash may merge a pair or two).
	[ $((flows + gc)) -ge $((N - 10)) ] ||
		kdefer "orphans: flows $flows + gc $gc < $N: $((N - flows - gc)) flows are neither in the table nor counted as collected"
	gc0=$gc

	rx0=$(rx_vb)
	in_a udpflows -d "$IP_B" -p 10000 -P 2 -k 0 -n $NS >"$TMPDIR/tx.out" || kfail "udpflows failed"
	log "[$KIND] sockets: $(($(uptime_cs) - t1))0 ms"
	check sockets "$rx0" $NS

	# (a') Once every orphan flow is older than the 3 s GC age, new flows
	# (the sockets' and 2,000 more orphans) collect old ones: gc grows.
	while [ $(($(uptime_cs) - t1)) -lt 350 ]; do sleep 0.2; done
	rx0=$(rx_vb)
	in_a udpflows -d "$IP_B" -p 10000 -P 1000 -U -k 2 -s 7000 -n 2000 >"$TMPDIR/tx.out" ||
		kfail "udpflows failed"
	check aged "$rx0" 2000
	[ "$((gc - gc0))" -ge 1000 ] || kfail "aged: gc grew by only $((gc - gc0)) since the orphans"
}

fq_run scenario
fq_done
