# prio: pfifo_fast's options and bands, priomap from SO_PRIORITY, per-band
# counters that add up to the qdisc's, strict priority over a standing
# backlog, per-band limits, and a live change that removes bands holding
# packets without losing any. The backlog is held by starving the peer's
# NAPI threads (as 16-change.sh does): veth's ring fills, the txq stops and
# everything sent afterwards waits in the qdisc, in a known order.
# vmtest-seconds: 37
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq ethtool chrt taskset udpflows udpsink iperf3

netns_pair --neigh
quiet_ns a b
napi_prepare
big_sndbuf

# send PRIO SPORT N: N datagrams of 200 bytes with SO_PRIORITY PRIO from SPORT,
# unconnected so that no ICMP error from a port nobody listens on fails one.
send() {
	in_a udpflows -U -d "$IP_B" -p 9000 -s "$2" -q "$1" -n "$3" -l 200 -b 4000000 >/dev/null ||
		fail "udpflows -q $1 failed"
}
# bands_sum ST: the bands' counters summed, as the qdisc's keys.
bands_sum() {
	jget "$1" '.[0] | {bytes: ([.bands[].bytes] | add), packets: ([.bands[].packets] | add),
		drops: ([.bands[].drops] | add), backlog: ([.bands[].backlog] | add),
		qlen: ([.bands[].qlen] | add)} | tojson'
}
totals() { jget "$1" '.[0] | {bytes, packets, drops, backlog, qlen} | tojson'; }
band() { jget "$1" ".[0].bands[$2].$3"; }

# Defaults: pfifo_fast's, printed as tc prints pfifo_fast's.
must in_a tc qdisc replace dev va root pfifo_fast
native=$(in_a tc qdisc show dev va | sed 's/.*refcnt [0-9]* //; s/ *$//')
must qd replace dev va root handle 1: prio
ours=$(qd show dev va | sed 's/.*refcnt [0-9]* //; s/ *$//')
assert_eq "$ours" "$native" "default options as tc shows pfifo_fast's"
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options | tojson')" \
	'{"bands":3,"priomap":[1,2,2,2,1,2,0,0,1,1,1,1,1,1,1,1]}' "JSON options"

# priomap: TC_PRIO_INTERACTIVE (6) to band 0, BESTEFFORT (0) to 1, FILLER
# (1) to 2; only skb->priority & 15 counts (17 is 1).
send 6 5001 10
send 0 5002 20
send 1 5003 30
send 17 5004 5
st=$(qd -s -j show dev va)
log "$(jget "$st" '.[0].bands | tojson')"
assert_eq "$(jget "$st" '[.[0].bands[].packets] | tojson')" '[10,20,35]' "packets a band"
assert_eq "$(bands_sum "$st")" "$(totals "$st")" "bands add up to the totals"
assert_eq "$(jget "$st" '.[0].bands[0] | keys_unsorted | tojson')" \
	'["band","bytes","packets","drops","backlog","qlen"]' "JSON keys of a band"
text=$(qd -s show dev va)
assert_match "$text" '^  band 2: Sent [0-9]+ bytes 35 pkt \(dropped 0\) backlog 0b 0p$' "text layout"

# A custom priomap, live, in tc's syntax: four bands, priority 3 to band 0
# and 15 to band 3, the priorities sent above kept in their bands.
must qd change dev va root prio bands 4 priomap 1 2 2 0 1 2 0 0 1 1 1 1 1 1 1 3
send 3 5001 7
send 15 5002 9
st=$(qd -s -j show dev va)
assert_eq "$(jget "$st" '.[0].options | tojson')" \
	'{"bands":4,"priomap":[1,2,2,0,1,2,0,0,1,1,1,1,1,1,1,3]}' "changed options"
assert_eq "$(jget "$st" '[.[0].bands[].packets] | tojson')" '[17,20,35,9]' "custom priomap"
assert_eq "$(bands_sum "$st")" "$(totals "$st")" "bands add up after the change"

# Priority 0 moved from band 1 to band 3: the packets of it that took the
# fast slot (counted by priority) follow the new map, those that queued in
# band 1's ring stay there; either way bands 1 and 3 hold the 29 and the
# bands add up to the qdisc's counters.
must qd change dev va root prio priomap 3 2 2 0 1 2 0 0 1 1 1 1 1 1 1 3
st=$(qd -s -j show dev va)
log "after moving priority 0: $(jget "$st" '[.[0].bands[].packets] | tojson')"
assert_eq "$(jget "$st" '[.[0].bands[0,2].packets] | tojson')" '[17,35]' "other bands unmoved"
assert_eq "$(($(band "$st" 1 packets) + $(band "$st" 3 packets)))" 29 "priority 0 moved, none lost"
[ "$(band "$st" 3 packets)" -ge 9 ] || fail "band 3 lost its own packets"
assert_eq "$(bands_sum "$st")" "$(totals "$st")" "bands add up after moving a priority"

# Bad input: one line naming the token, exit 255, nothing changed or added.
expect_fail 255 'priomap value "2" \(priority 1\) is not below bands 2' \
	qd add dev vb root prio bands 2 priomap 1 2 1 1 1 1 0 0 1 1 1 1 1 1 1 1
expect_fail 255 'bands "1" is out of range 2..16' qd add dev va root prio bands 1
expect_fail 255 'bands "17" is out of range' qd replace dev va root prio bands 17
expect_fail 255 'priomap takes 16 numbers, got 3 before "limit"' \
	qd replace dev va root prio priomap 1 2 2 limit 10
expect_fail 255 'priomap takes 16 numbers, got 15$' \
	qd replace dev va root prio priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1
expect_fail 255 '"1" is one more' \
	qd replace dev va root prio priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 1
expect_fail 255 'priomap value "16" is out of range 0..15' \
	qd replace dev va root prio bands 16 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 16
# The current priomap sends priority 0 to band 3: two bands are too few.
expect_fail 255 'priomap value "3" \(priority 0\) is not below bands 2' qd change dev va root bands 2
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.bands')" 4 "a refused change changes nothing"
assert_eq "$(in_b tc qdisc show dev vb | grep -c qdiscctl)" 0 "a refused add adds nothing"

# Strict priority over a standing backlog. Five bands, 100 packets each:
# bulk (priority 1) in band 2, priorities 14 and 15 in bands 3 and 4, the
# urgent flow (6) in band 0.
must qd replace dev va root prio bands 5 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 3 4 limit 100
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 100 "limit shown when given"
in_b taskset -c 0 udpsink -p 9000 -i 3s -t 60s >/tmp/sink.out 2>&1 &
sink=$!
sleep 0.3
napi_starve
# More bulk than veth's ring (256) and band 2's limit hold.
send 1 5001 600
send 14 5002 30
send 15 5003 30
send 6 5004 50
held=$(qd -s -j show dev va)
log "held: $(totals "$held") bands $(jget "$held" '[.[0].bands[] | [.band, .qlen, .drops]] | tojson')"
if [ "$(band "$held" 2 qlen)" != 100 ]; then
	napi_release
	fail "no backlog of 100 bulk packets formed in band 2: $held"
fi
assert_eq "$(band "$held" 0 qlen)" 50 "the urgent flow queued behind the bulk"
assert_eq "$(band "$held" 3 qlen)/$(band "$held" 4 qlen)" 30/30 "bands 3 and 4 hold theirs"
[ "$(band "$held" 2 drops)" -gt 0 ] || fail "band 2 beyond its limit dropped nothing"
assert_eq "$(band "$held" 2 drops)" "$(jget "$held" '.[0].drops')" "only band 2 dropped"
# A packet the driver handed back counts in the qdisc's qlen but in no band.
rq=$(($(jget "$held" '.[0].qlen') - $(jget "$held" '[.[0].bands[].qlen] | add')))
[ "$rq" = 0 ] || [ "$rq" = 1 ] || fail "bands hold $rq packets fewer than the qdisc"

# Remove bands 3 and 4 while they hold 60 packets: they stay listed and drain last.
qd change dev va root bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
rc=$?
changed=$(qd -s -j show dev va)
napi_release
[ "$rc" = 0 ] || fail "change under a backlog failed ($rc)"
assert_eq "$(jget "$changed" '.[0].options.bands')" 3 "bands changed"
assert_eq "$(jget "$changed" '.[0].bands | length')" 5 "removed bands listed while they hold packets"
assert_eq "$(band "$changed" 3 qlen)/$(band "$changed" 4 qlen)" 30/30 "nothing lost"

wait "$sink"
log "$(cat /tmp/sink.out)"
flow() { sed -n "s/^flow [0-9.]*:$1 .* $2 \([0-9]*\).*/\1/p" /tmp/sink.out; }
bulk=$((600 - $(band "$held" 2 drops)))
assert_eq "$(flow 5001 pkts)/$(flow 5002 pkts)/$(flow 5003 pkts)/$(flow 5004 pkts)" \
	"$bulk/30/30/50" "every queued packet delivered once"
# Band 0 left before the bulk still queued in band 2; the removed bands last.
[ "$(flow 5004 last_ns)" -lt "$(flow 5001 last_ns)" ] ||
	fail "the urgent flow did not overtake the bulk backlog"
[ "$(flow 5001 last_ns)" -lt "$(flow 5002 first_ns)" ] &&
	[ "$(flow 5002 last_ns)" -lt "$(flow 5003 first_ns)" ] ||
	fail "removed bands 3 and 4 did not drain after the others, in order"
st=$(qd -s -j show dev va)
log "end: $(totals "$st")"
assert_eq "$(jget "$st" '.[0].qlen')/$(jget "$st" '.[0].backlog')" 0/0 "drained"
assert_eq "$(bands_sum "$st")" "$(totals "$st")" "bands add up to the totals at the end"

# GSO packets: the bands count segments, as the qdisc's totals do.
in_a ethtool -K va tso on gso on >/dev/null 2>&1
iperf_server b
must in_a iperf3 -c "$IP_B" -t 1 -S 0x10 >/tmp/iperf.log 2>&1
st=$(qd -s -j show dev va)
log "after TCP: $(totals "$st") bands $(jget "$st" '[.[0].bands[] | .packets] | tojson')"
[ "$(jget "$st" '.[0].packets')" -gt $((547 + 1000)) ] || fail "TCP sent too little to tell"
assert_eq "$(bands_sum "$st")" "$(totals "$st")" "bands add up to the totals with GSO"
# TOS 0x10 (low delay) is TC_PRIO_INTERACTIVE: band 0.
[ "$(band "$st" 0 packets)" -gt 1000 ] || fail "IP_TOS 0x10 did not map to band 0"

must qd del dev va root
assert_clean
cleanup_netns
