# HBM's experiment, scaled to the VM: one 10 KB request/response flow next
# to 1 or 3 bulk TCP flows through a 20 Mbit/s limit. htb queues behind its
# rate and the small flow waits behind the bulk; edt keeps the queue at its
# horizon and tells TCP to back off, so the small flow's tail latency drops.
# vmtest-timeout: 200
# vmtest-seconds: 58
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3 sockperf

netns_pair --neigh
quiet_ns a b
ip netns exec b sockperf sr --tcp -i "$IP_B" -p 11111 >/dev/null 2>&1 &

# run_mix BULK: BULK iperf3 TCP flows plus the 10 KB ping-pong for 3 s;
# prints "p90_us p99_us bulk_bits/s drops".
run_mix() {
	iperf_server b
	ip netns exec a iperf3 -c "$IP_B" -P "$1" -t 6 -J >/tmp/bulk.json 2>&1 &
	_bulk=$!
	sleep 1.5
	ip netns exec a sockperf pp --tcp -i "$IP_B" -p 11111 -m 10000 -t 3 >/tmp/pp.log 2>&1 ||
		fail "sockperf: $(tail -5 /tmp/pp.log)"
	wait $_bulk
	_p90=$(sed -n 's/.*percentile 90.000 = *\([0-9.]*\).*/\1/p' /tmp/pp.log)
	_p99=$(sed -n 's/.*percentile 99.000 = *\([0-9.]*\).*/\1/p' /tmp/pp.log)
	[ -n "$_p99" ] || fail "no percentiles from sockperf: $(cat /tmp/pp.log)"
	echo "$_p90 $_p99 $(jq '.end.sum_received.bits_per_second' /tmp/bulk.json) \
$(/usr/sbin/tc -n a -s -j qdisc show dev va | jq '.[0].drops')"
}

for bulk in 1 3; do
	must in_a tc qdisc add dev va root handle 1: htb default 1
	must in_a tc class add dev va parent 1: classid 1:1 htb rate 20mbit
	set -- $(run_mix $bulk)
	htb_p90=$1 htb_p99=$2 htb_bps=$3 htb_drops=$4
	must in_a tc qdisc del dev va root

	# HBM's 500us and 50us are tuned for 1 Gbit/s: scale them to 20 Mbit/s.
	must qd add dev va root edt rate 20mbit horizon 25ms ce_threshold 2500us
	set -- $(run_mix $bulk)
	edt_p90=$1 edt_p99=$2 edt_bps=$3 edt_drops=$4
	must qd del dev va root

	log "$((bulk + 1)) flows: htb p90 ${htb_p90}us p99 ${htb_p99}us bulk ${htb_bps} bit/s drops $htb_drops"
	log "$((bulk + 1)) flows: edt p90 ${edt_p90}us p99 ${edt_p99}us bulk ${edt_bps} bit/s drops $edt_drops"
	awk "BEGIN { exit !($htb_p99 > 10000) }" ||
		fail "$((bulk + 1)) flows: htb queued too little (p99 ${htb_p99}us): the setup proves nothing"
	awk "BEGIN { exit !($edt_p99 * 2 < $htb_p99) }" ||
		fail "$((bulk + 1)) flows: edt's p99 ${edt_p99}us is not well below htb's ${htb_p99}us"
done
assert_clean
cleanup_netns
