# change: new options for a live fifo, in place. A backlog is held in the
# fifo by starving the peer's NAPI threads (veth's ring fills, the txq
# stops), so the change provably lands on queued packets: they stay queued,
# the counters go on, and every one of them reaches the peer afterwards.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq ethtool chrt taskset

netns_pair --neigh
quiet_ns a b
napi_prepare

must qd add dev va root handle 1: fifo limit 1000
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must qd change dev va root limit 500
st=$(qd -s -j show dev va)
assert_eq "$(jget "$st" '.[0].options.limit')" 500 "limit changed"
assert_eq "$(jget "$st" '.[0].packets')" 2 "counters kept"
must qd change dev va root fifo limit 1000
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 1000 "with the kind named"

# Hold a backlog.
napi_starve
# All 800 requests at once (-l), more than both veth rings (256 each) hold;
# -S lets the socket hold them all. What vb receives is counted there, not
# by ping, whose socket may overflow with 800 replies at once.
big_sndbuf
rx0=$(in_b cat /sys/class/net/vb/statistics/rx_packets)
in_a ping -c 800 -l 800 -S 4000000 -s 100 -q -W 30 "$IP_B" >/tmp/ping.log 2>&1 &
pinger=$!
qlen() { jget "$(qd -s -j show dev va)" '.[0].qlen'; }
backlog() { [ "$(qlen)" -ge 100 ]; }
if ! wait_until 10 backlog; then
	napi_release
	fail "no backlog formed: $(qd -s -j show dev va)"
fi
before=$(qd -s -j show dev va)
# Below the backlog: what is queued stays, only new packets would be dropped.
qd change dev va root limit 50
rc=$?
after=$(qd -s -j show dev va)
napi_release
[ "$rc" = 0 ] || fail "change under a backlog failed ($rc)"
log "before $(jget "$before" "$stats_fields | tojson")"
log "after  $(jget "$after" "$stats_fields | tojson")"
assert_eq "$(jget "$after" '.[0].options.limit')" 50 "show reflects the change at once"
assert_eq "$(jget "$after" '.[0].qlen')" "$(jget "$before" '.[0].qlen')" "the backlog is kept"
assert_eq "$(jget "$after" '.[0].packets')" "$(jget "$before" '.[0].packets')" "counters go on"

delivered() { [ "$(in_b cat /sys/class/net/vb/statistics/rx_packets)" -ge $((rx0 + 800)) ]; }
wait_until 20 delivered || fail "vb got $(($(in_b cat /sys/class/net/vb/statistics/rx_packets) - rx0)) of 800"
kill "$pinger" 2>/dev/null
wait "$pinger" 2>/dev/null
st=$(qd -s -j show dev va)
log "end $(jget "$st" "$stats_fields | tojson")"
assert_eq "$(jget "$st" '.[0].drops')" 0 "nothing dropped"
assert_eq "$(jget "$st" '.[0].packets')" 802 "all sent through the same instance"
assert_eq "$(jget "$st" '.[0].qlen')" 0 "drained"
assert_eq "$(($(in_b cat /sys/class/net/vb/statistics/rx_packets) - rx0))" 800 "each delivered once"

# What change refuses, each with one line and its exit code.
expect_fail 2 'no qdisc at dev va parent 5:5' qd change dev va parent 5:5 limit 10
expect_fail 2 'no qdisc at dev va root handle 2:' qd change dev va root handle 2: limit 10
expect_fail 2 'is qdiscctl_fifo, not fq' qd change dev va root fq limit 10
expect_fail 255 '"bogus"' qd change dev va root bogus 10
expect_fail 255 '"0"' qd change dev va root limit 0
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 50 "refused changes change nothing"
must qd del dev va root
expect_fail 1 'noqueue, not one of qdiscctl.s kinds .use tc change' qd change dev va root limit 10
assert_clean
cleanup_netns
