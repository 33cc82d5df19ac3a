# fifo keeps first-in-first-out order on both of its paths (the fast slot
# for a packet that finds the qdisc empty, the ring behind it), survives
# driver requeues without a hole, and frees a standing queue when it is
# replaced.
#
#   bench/run --order
#
# Spaced packets: pktgen numbers them, benchtool seqcheck receives them on
# vb and counts any whose number is not above the one before.
# vmtest-timeout: 240
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl benchtool iperf3 ethtool jq

PG=/proc/net/pktgen
pgw() { echo "$1" >"$2" || fail "pktgen: '$1' > $2"; }

must ip netns add b
must ip link add va address 02:00:00:00:00:01 type veth peer name vb netns b address 02:00:00:00:00:02
must ip addr add 10.0.0.1/24 dev va
# Nothing but pktgen's packets crosses the qdisc (no IPv6 DAD, MLD, RS).
echo 1 >/proc/sys/net/ipv6/conf/va/disable_ipv6
must ip link set va up
must ip -n b addr add 10.0.0.2/24 dev vb
must ip -n b link set vb up
set_sysctl net.core.rmem_max 33554432
big_sndbuf
pktgen_setup() { # COUNT DELAY_NS
	pgw "rem_device_all" $PG/kpktgend_0
	pgw "add_device va" $PG/kpktgend_0
	for c in "count $1" "delay $2" "clone_skb 0" "pkt_size 60" "dst 10.0.0.2" \
		"dst_mac 02:00:00:00:00:02" "udp_dst_min 9" "udp_dst_max 9" "xmit_mode queue_xmit"; do
		pgw "$c" $PG/va
	done
}
pktgen_errors() { sed -n 's/.*errors: \([0-9]*\).*/\1/p' $PG/va; }

# run_order COUNT DELAY_NS LIMIT: offer COUNT packets; prints "received
# reordered sent drops requeues pktgen_errors"
run_order() {
	# A new instance, so that its counters start at 0.
	qdiscctl del dev va root 2>/dev/null
	must qdiscctl add dev va root fifo limit "$3"
	ip netns exec b benchtool seqcheck 9 1500 >/tmp/seq.out &
	rx=$!
	wait_until 5 grep -q ready /tmp/seq.out || fail "seqcheck did not start"
	pktgen_setup "$1" "$2"
	pgw start $PG/pgctrl
	wait $rx
	set -- $(tail -n 1 /tmp/seq.out)
	st=$(qdiscctl -s -j show dev va)
	echo "$1 $2 $(jget "$st" '.[0].packets') $(jget "$st" '.[0].drops') $(jget "$st" '.[0].requeues') $(pktgen_errors)"
}

# 1. Packets far apart: each finds the qdisc empty and takes the fast slot.
set -- $(run_order 2000 100000 1000)
log "spaced: received $1, reordered $2, sent $3, dropped $4, requeues $5"
assert_eq "$2" 0 "spaced packets reordered"
assert_eq "$3" 2000 "spaced packets sent"
assert_eq "$4" 0 "spaced packets dropped"

# 2. A UDP burst into a slow receiver: GRO plus threaded NAPI on vb put
# veth in its NAPI mode, whose ring fills, so veth stops va's queue: a
# queue stands in the ring, drops at the limit, the driver requeues. The
# iperf3 server counts datagrams that arrive out of order.
qdiscctl del dev va root 2>/dev/null
must qdiscctl add dev va root fifo limit 50
ethtool -K va tso off gso off >/dev/null 2>&1
ip netns exec b ethtool -K vb gro on >/dev/null 2>&1 || skip "no GRO on veth"
ip netns exec b sh -c 'echo 1 >/sys/class/net/vb/threaded' || skip "no threaded NAPI"
ip netns exec b iperf3 -s -1 -J >/dev/null 2>&1 &
_srv_up() { ip netns exec b ss -Hltn | grep -q ':5201 '; }
wait_until 5 _srv_up || fail "no iperf3 server"
must iperf3 -u -b 0 -w 4M -l 1400 -c 10.0.0.2 -t 3 -J --get-server-output >/tmp/udp.json
st=$(qdiscctl -s -j show dev va)
ooo=$(jq -r '[.server_output_json.end.streams[].udp.out_of_order] | add' /tmp/udp.json)
rx=$(jq -r '[.server_output_json.end.streams[].udp.packets] | add' /tmp/udp.json)
tx=$(jq -r '.end.sum.packets' /tmp/udp.json)
log "udp burst: sent by iperf3 $tx, received $rx, out of order $ooo; fifo $(jget "$st" "$stats_fields | tojson")"
assert_eq "$ooo" 0 "datagrams out of order"
[ "$(jget "$st" '.[0].drops')" -gt 0 ] || fail "no drops: the queue never reached its limit, the test proves nothing"
[ "$rx" -gt 0 ] || fail "nothing received"
assert_eq "$(jget "$st" '.[0].qlen')" 0 "queue drained"
assert_eq "$(jget "$st" '.[0].backlog')" 0 "backlog drained"

# 3. Replace the fifo under a standing queue: .reset and .destroy free it.
must qdiscctl replace dev va root fifo limit 50
ip netns exec b iperf3 -s -1 >/dev/null 2>&1 &
wait_until 5 _srv_up || fail "no iperf3 server"
iperf3 -u -b 0 -w 4M -l 1400 -c 10.0.0.2 -t 4 >/dev/null 2>&1 &
flood=$!
sleep 1
q=0 n=0
while [ "$q" = 0 ] && [ $n -lt 200 ]; do
	q=$(chrt -f 10 /usr/sbin/tc -s qdisc show dev va | sed -n 's/^ backlog [^ ]* \([0-9]*\)p.*/\1/p')
	n=$((n + 1))
done
must qdiscctl replace dev va root pfifo
log "replaced with $q packets queued"
wait $flood
assert_match "$(tc qdisc show dev va)" '^qdisc pfifo ' "pfifo replaced fifo"
assert_clean "after replace"
