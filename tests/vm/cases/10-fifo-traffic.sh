# fifo on a veth between two namespaces: ping and iperf3 through it, the
# counters agree with tc's, and del leaves nothing behind.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3 bpftool

netns_pair --neigh
quiet_ns a b
must qd add dev va root handle 1: fifo limit 100

out=$(qd show dev va)
assert_match "$out" '^qdisc qdiscctl_fifo 1: root refcnt [0-9]+ limit 100p' "show"
assert_match "$(in_a tc qdisc show dev va)" 'qdiscctl_fifo 1: root' "tc sees the kind"
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 100 "JSON options"

must in_a ping -c 5 -i 0.2 -q "$IP_B"
iperf_server b
must in_a iperf3 -c "$IP_B" -t 2 >/tmp/iperf.log
assert_match "$(cat /tmp/iperf.log)" 'receiver' "iperf3 ran"

ours=$(qd -s -j show dev va)
theirs=$(in_a tc -s -j qdisc show dev va)
log "qdiscctl: $(jget "$ours" "$stats_fields | tojson")"
log "tc:       $(jget "$theirs" "$stats_fields | tojson")"
assert_eq "$(jget "$ours" "$stats_fields | tojson")" "$(jget "$theirs" "$stats_fields | tojson")" "-s -j counters"
[ "$(jget "$ours" '.[0].packets')" -gt 1000 ] || fail "too few packets went through the fifo: $ours"
assert_match "$(qd -s show dev va)" '^ Sent [0-9]+ bytes [0-9]+ pkt \(dropped 0, overlimits 0 requeues [0-9]+\)' "-s text"

must qd del dev va root
assert_match "$(in_a tc qdisc show dev va)" 'noqueue' "default qdisc is back"
assert_clean "after del"
expect_fail 2 'Specified qdisc kind is unknown' in_a /usr/sbin/tc qdisc add dev va root qdiscctl_fifo
cleanup_netns
