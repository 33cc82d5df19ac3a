# fifo limit 10 under a UDP burst: a backlog builds, the fifo drops beyond
# its limit and counts what it drops. On a plain veth no queue ever forms
# (veth_xmit hands each packet over at once), so the peer gets GRO plus a
# threaded NAPI that falls behind, and the sender a big socket buffer.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3 ethtool qstat

netns_pair --neigh
quiet_ns a b
in_a ethtool -K va tso off gso off >/dev/null 2>&1
in_b ethtool -K vb gro on >/dev/null 2>&1 || skip "no GRO on veth"
in_b sh -c 'echo 1 >/sys/class/net/vb/threaded' || skip "no threaded NAPI"
must qd add dev va root fifo limit 10

iperf_server b
in_a iperf3 -u -b 0 -w 4M -l 1400 -c "$IP_B" -t 3 >/tmp/iperf.log 2>&1 &
client=$!
sleep 0.5
maxq=$(sample_max_qlen a va 20)
wait $client
st=$(qd -s -j show dev va)
log "max qlen sampled $maxq; final $(jget "$st" "$stats_fields | tojson")"
[ "$maxq" -gt 0 ] || fail "no backlog ever formed, the test proves nothing"
drops=$(jget "$st" '.[0].drops')
[ "$drops" -gt 0 ] || fail "a backlog formed but limit 10 dropped nothing: $st"
assert_eq "$drops" "$(jget "$(in_a tc -s -j qdisc show dev va)" '.[0].drops')" "tc sees the same drops"

must qd del dev va root
assert_clean
cleanup_netns
