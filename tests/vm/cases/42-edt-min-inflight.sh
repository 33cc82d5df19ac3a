# edt's min_inflight: past the horizon a UDP flood is dropped, but the
# packets of a TCP flow with fewer packets in flight than min_inflight are
# held back instead (counted in held_back), so the flow never waits for a
# timer to send again. With min_inflight 0 nothing is held back.
# vmtest-timeout: 120
# vmtest-seconds: 31
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3 sockperf

netns_pair --neigh
quiet_ns a b
ip netns exec b sockperf sr --tcp -i "$IP_B" -p 11111 >/dev/null 2>&1 &

# try MIN: a 2 Mbit/s edt with a 2 ms horizon and no backpressure, flooded
# by UDP, carries a 64-byte TCP ping-pong; prints "max-latency-us held_back
# horizon_drops".
try() {
	must qd add dev va root edt rate 2mbit horizon 2ms nobackpressure min_inflight "$1"
	iperf_server b
	ip netns exec a iperf3 -u -b 20M -l 1400 -c "$IP_B" -t 5 >/dev/null 2>&1 &
	_flood=$!
	sleep 1
	ip netns exec a sockperf pp --tcp -i "$IP_B" -p 11111 -m 64 -t 3 >/tmp/pp.log 2>&1 ||
		fail "sockperf: $(tail -3 /tmp/pp.log)"
	_max=$(sed -n 's/.*<MAX> observation = *\([0-9.]*\).*/\1/p' /tmp/pp.log)
	[ -n "$_max" ] || fail "no latency from sockperf: $(cat /tmp/pp.log)"
	wait $_flood
	_st=$(qd -s -j show dev va)
	must qd del dev va root
	echo "${_max%.*} $(jget "$_st" '.[0].held_back') $(jget "$_st" '.[0].horizon_drops')"
}

set -- $(try 2)
log "min_inflight 2: max latency $1 us, $2 packets held back, $3 horizon drops"
[ "$3" -gt 0 ] || fail "the flood was never dropped at the horizon: the setup proves nothing"
[ "$2" -gt 0 ] || fail "no TCP packet was ever past the horizon: the setup proves nothing"
protected=$1

set -- $(try 0)
log "min_inflight 0: max latency $1 us, $2 packets held back, $3 horizon drops"
assert_eq "$2" 0 "nothing is held back with min_inflight 0"
# A segment dropped locally waits for TCP's probe timer, 200 ms at least.
[ "$protected" -lt 100000 ] || fail "the protected flow still waited ${protected}us once"
assert_clean
cleanup_netns
