# monitor ... flows: fq's busiest flows with their rates, from two readings
# of its flow table. Two connected UDP sockets, one sending 3 datagrams
# for the other's 1, held by fq's maxrate so that they queue (an empty fq
# sends a packet past its table): two flows, busiest first, at 3 to 1,
# adding up to the qdisc's rate; the text lines carry them too.
# vmtest-seconds: 24
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq udpflows udpsink

netns_pair --neigh
quiet_ns a b
must qd add dev va root handle 1: fq maxrate 4mbit
# Someone listens: a connected socket that meets ICMP port unreachable stops.
in_b udpsink -p 9000 -t 8s -q >/dev/null &
sleep 0.3
# Socket 0 sends 3 datagrams of every 4: 600 a second of 800.
in_a udpflows -d "$IP_B" -p 9000 -k 2 -w 3,1 -r 800 -l 1000 -n 0 -t 4s >/tmp/udp.out &
udp=$!
sleep 0.8
must qd -j monitor dev va flows -c 2 >/tmp/mon.json
qd monitor dev va flows -i 0.5 -c 1 >/tmp/mon.txt || fail "text: exit $?"
wait $udp || fail "udpflows: $(cat /tmp/udp.out)"
last=$(tail -n 1 /tmp/mon.json)
log "flows: $(jget "$last" '.qdiscs[0].busiest_flows | map({flow, state, packets_per_sec, bytes_per_sec}) | tojson')"
assert_eq "$(jget "$last" '.qdiscs[0].busiest_flows | length')" 2 "two flows"
assert_match "$(jget "$last" '.qdiscs[0].busiest_flows[0].flow')" '^sk 0x[0-9a-f]{16}$' "a socket's flow"
p0=$(jget "$last" '.qdiscs[0].busiest_flows[0].packets_per_sec')
p1=$(jget "$last" '.qdiscs[0].busiest_flows[1].packets_per_sec')
tot=$(jget "$last" '.qdiscs[0].packets_per_sec')
log "busiest $p0, then $p1 a second; the qdisc $tot"
awk -v a="$p0" -v b="$p1" 'BEGIN { exit !(b >= 50 && a >= 2.4 * b && a <= 3.6 * b) }' ||
	fail "the flows: $p0 and $p1 a second, not 3 to 1"
awk -v a="$p0" -v b="$p1" -v t="$tot" 'BEGIN { d = a + b - t; if (d < 0) d = -d; exit !(d <= 0.1 * t) }' ||
	fail "the flows ($p0 + $p1) are not the qdisc's $tot a second"
assert_eq "$(jget "$last" '.qdiscs[0].busiest_flows[0].bytes_per_sec >= .qdiscs[0].busiest_flows[1].bytes_per_sec')" true \
	"busiest first"
log "text: $(cat /tmp/mon.txt)"
assert_match "$(cat /tmp/mon.txt)" '\| flow sk 0x[0-9a-f]{16}: state [a-z]+ qlen [0-9]+ backlog [0-9]+ .* packets [0-9]+/s bytes [0-9]+/s' \
	"flows in the text line"
log "ok"
