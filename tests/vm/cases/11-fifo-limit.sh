# fifo limit 10 under a UDP burst: a backlog builds, the fifo drops beyond
# its limit and counts what it drops. On a plain veth no queue ever forms
# (veth_xmit hands each packet over at once), so vb's NAPI threads are
# starved while the burst is sent (flood_held): the ring fills, veth stops
# va's txq and every packet beyond ring and limit meets the fifo's limit.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq udpflows ethtool qstat chrt taskset

netns_pair --neigh
quiet_ns a b
napi_prepare
must qd add dev va root fifo limit 10

# 1000 datagrams: 256 fill the ring, 10 the fifo, the rest find it full.
flood_held 1000
maxq=$held_qlen
st=$(qd -s -j show dev va)
log "max qlen sampled $maxq; final $(jget "$st" "$stats_fields | tojson")"
[ "$maxq" -gt 0 ] || fail "no backlog ever formed, the test proves nothing"
drops=$(jget "$st" '.[0].drops')
[ "$drops" -gt 0 ] || fail "a backlog formed but limit 10 dropped nothing: $st"
assert_eq "$drops" "$(jget "$(in_a tc -s -j qdisc show dev va)" '.[0].drops')" "tc sees the same drops"

must qd del dev va root
assert_clean
cleanup_netns
