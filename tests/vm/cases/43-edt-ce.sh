# edt's ce_threshold: with ECN on, TCP packets the qdisc schedules past the
# threshold arrive CE-marked (by the program qdiscctl attaches before the
# qdisc) and are not dropped; with ECN off the sender gets NET_XMIT_CN
# instead. del takes the program away with the qdisc.
# vmtest-timeout: 120
# vmtest-seconds: 27
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3 bpftool

netns_pair --neigh
quiet_ns a b

# ce_received: CE-marked packets netns b has received.
ce_received() {
	ip netns exec b cat /proc/net/netstat |
		awk '/^IpExt:/ { if (n++) { for (i = 2; i <= NF; i++) if (h[i] == "InCEPkts") print $i } else for (i = 2; i <= NF; i++) h[i] = $i }'
}

# run ECN: 3 s of TCP through edt rate 20mbit with the thresholds scaled to
# that rate; prints "ce_received ce_marks cn_signals drops".
run() {
	ip netns exec a sh -c "echo $1 >/proc/sys/net/ipv4/tcp_ecn"
	must qd add dev va root edt rate 20mbit horizon 25ms ce_threshold 2500us
	assert_match "$(ip netns exec a bpftool net show dev va)" 'tcx/egress.*edt_ce_mark' "egress program attached"
	_ce0=$(ce_received)
	iperf_server b
	must in_a iperf3 -c "$IP_B" -t 3 >/dev/null
	_st=$(qd -s -j show dev va)
	echo "$(( $(ce_received) - _ce0 )) $(jget "$_st" '.[0].ce_marks') $(jget "$_st" '.[0].cn_signals') \
$(jget "$_st" '.[0].drops')"
	must qd del dev va root
}

set -- $(run 1)
log "ECN on: $1 CE-marked packets received, $2 marked, $3 CN signals, $4 drops"
[ "$2" -gt 0 ] || fail "edt marked nothing"
# A marked GSO packet reaches the receiver as several marked segments.
[ "$1" -ge "$2" ] || fail "edt marked $2 packets, the receiver saw $1"
assert_eq "$4" 0 "drops with ECN"

set -- $(run 0)
log "ECN off: $1 CE-marked packets received, $2 marked, $3 CN signals, $4 drops"
assert_eq "$1" 0 "CE marks without ECN"
[ "$3" -gt 0 ] || fail "no congestion notification without ECN"
assert_eq "$4" 0 "drops without ECN"

assert_no_match "$(ip netns exec a bpftool net show dev va)" 'edt_ce_mark' "the program went with the qdisc"
assert_clean
cleanup_netns
