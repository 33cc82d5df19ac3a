# Two fifo instances on two devices in different namespaces share no queue,
# limit or counter: a burst that overflows one leaves the other untouched.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq udpflows ethtool qstat chrt taskset

netns_pair --neigh
# A second pair, c/d, built like a/b.
cleanup_netns c d
must ip netns add c
must ip netns add d
must ip link add vc netns c address 02:00:00:00:00:03 type veth peer name vd netns d address 02:00:00:00:00:04
must ip -n c addr add 10.0.1.1/24 dev vc
must ip -n d addr add 10.0.1.2/24 dev vd
for ns in c d; do must ip -n $ns link set lo up; done
must ip -n c link set vc up
must ip -n d link set vd up
must ip -n c neigh replace 10.0.1.2 lladdr 02:00:00:00:00:04 dev vc nud permanent
must ip -n d neigh replace 10.0.1.1 lladdr 02:00:00:00:00:03 dev vd nud permanent
quiet_ns a b c d

must qd add dev va root handle 1: fifo limit 10
must qdiscctl -n c add dev vc root handle 2: fifo limit 500
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 10 "a's limit"
assert_eq "$(jget "$(qdiscctl -n c -j show dev vc)" '.[0].options.limit')" 500 "c's limit"
slots=$(qd -d show dev va)$(qdiscctl -n c -d show dev vc)
assert_eq "$(printf '%s\n' "$slots" | grep -o 'slot [0-9]*' | sort -u | wc -l)" 2 "two slots: $slots"

# Overflow va as in 11-fifo-limit.
napi_prepare
rx_vd() { ip -n d -j -s link show vd | jq '.[0].stats64.rx.packets'; }
rx_before=$(rx_vd)
flood_held 1000

a=$(qd -s -j show dev va)
c=$(qdiscctl -n c -s -j show dev vc)
log "a: $(jget "$a" "$stats_fields | tojson")"
log "c: $(jget "$c" "$stats_fields | tojson")"
[ "$(jget "$a" '.[0].drops')" -gt 0 ] || fail "va's fifo did not overflow: $a"
for f in bytes packets drops backlog qlen; do
	assert_eq "$(jget "$c" ".[0].$f")" 0 "vc's $f while only va had traffic"
done
assert_eq "$(rx_vd)" "$rx_before" "no packet of va's reached vd"

# And c's fifo carries c's traffic with its own counters.
must ip netns exec c ping -c 3 -i 0.2 -q 10.0.1.2
c=$(qdiscctl -n c -s -j show dev vc)
assert_eq "$(jget "$c" '.[0].packets')" 3 "c counted only its own pings"
assert_eq "$(jget "$c" '.[0].drops')" 0 "c dropped nothing"

must qd del dev va root
assert_eq "$(jget "$(qdiscctl -n c -s -j show dev vc)" '.[0].options.limit')" 500 "c survives a's del"
must qdiscctl -n c del dev vc root
assert_clean
cleanup_netns a b c d
