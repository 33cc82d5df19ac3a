# Hash collisions never merge flows: with every flow in one bucket (buckets
# 1; native sch_fq's least is 2), 4 connected and 4 unconnected (orphan)
# UDP flows offering 1:2:4:8 each, every flow paced to maxrate 2mbit, keep
# separate queues: each is paced on its own (the eight together get about
# 8 x 2 Mbit/s; merged flows would share one 2 Mbit/s by offered load), so
# what each delivers after the first second has Jain's index >= 0.99, each
# within 10 % of the mean. fq's flow table lists the eight flows separately
# (4 by socket, 4 by hash), each with its own queue near flow_limit and its
# own drops, and counts collisions (at least 7: every flow after the first
# found its bucket used). Native sch_fq runs the same. orphan_mask
# 0xffffffff: with the default 1023, two orphan flows share a key, and so
# one flow, about once in 170 boots (the skb hash is seeded per boot), in
# sch_fq as in fq; that is no bucket collision.
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink

RATE=2000000
LIMIT=100

scenario() {
	big_sndbuf
	buckets=1
	[ "$KIND" = fq ] || buckets=2
	fq_add buckets $buckets maxrate 2mbit flow_limit $LIMIT orphan_mask 4294967295
	sink_start 9000 -t 30s -i 2s -S 1s -H 42
	in_a udpflows -d "$IP_B" -p 9000 -s 6000 -k 4 -w 1,2,4,8 -l 1400 -b 4000000 -r 10000 -n 0 -t 3s \
		>"$TMPDIR/tx.sk" &
	sk=$!
	in_a udpflows -d "$IP_B" -p 9000 -s 6100 -k 4 -w 1,2,4,8 -l 1400 -b 4000000 -r 10000 -n 0 -t 3s -U \
		>"$TMPDIR/tx.orphan" &
	orphan=$!
	sleep 2
	[ "$KIND" != fq ] || during=$(qd -j show dev va flows)
	wait $sk || kfail "connected sender failed"
	wait $orphan || kfail "unconnected sender failed"
	sink_wait 9000
	st=$(fq_xstats)
	sink_out 9000
	log "[$KIND] $(cat "$TMPDIR/tx.sk"); $(cat "$TMPDIR/tx.orphan")"
	log "[$KIND] $st"
	assert_eq "$(sink_field 9000 flows)" 8 "[$KIND] flows received"
	set -- $(sink_flows 9000 pkts | jain)
	total=$(sink_flows 9000 lsq_bps | awk '{ s += $1 } END { printf "%.0f\n", s }')
	log "[$KIND] 8 flows in $buckets bucket(s): Jain $1, max deviation $2, together $total bit/s"
	# The precondition: pacing, i.e. fq, limited the flows.
	fcmp "$total" '>=' "8 * $RATE * 0.75" || kfail "together only $total bit/s: flows were merged or starved"
	fcmp "$total" '<=' "8 * $RATE * 1.1" || kfail "together $total bit/s: fq did not pace"
	fcmp "$1" '>=' 0.99 || kfail "Jain's index $1 < 0.99"
	fcmp "$2" '<=' 0.10 || kfail "a flow is $2 off the mean (> 10 %)"
	fq_result jain "$1"
	if [ "$KIND" = fq ]; then
		qd show dev va flows
		# Eight flows of their own (plus the prio and overflow slots).
		sks=$(jget "$during" '[.[0].flows[] | select(.flow | startswith("sk "))] | length')
		hashes=$(jget "$during" '[.[0].flows[] | select(.flow | startswith("hash "))] | length')
		assert_eq "$sks $hashes" "4 4" "[fq] socket and hash flows in the table"
		q=$(jget "$during" '[.[0].flows[] | select(.flow | test("^(sk|hash) ")) | .qlen]')
		# Merged flows would share one flow_limit: at most half each.
		assert_eq "$(jget "$q" "map(select(. >= $LIMIT * 3 / 4 and . <= $LIMIT)) | length")" 8 \
			"[fq] every flow has its own queue near flow_limit: $(echo $q)"
		after=$(qd -j show dev va flows)
		assert_eq "$(jget "$after" '[.[0].flows[] | select(.flow | test("^(sk|hash) ")) | select(.drops > 0)] | length')" 8 \
			"[fq] every flow has its own drops"
		[ "$(xget "$st" collisions)" -ge 7 ] || kfail "collisions $(xget "$st" collisions) < 7"
	fi
}

fq_run scenario
fq_done
