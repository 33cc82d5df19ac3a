# monitor: rates from the kernel's counters over a steady 5 s UDP flow
# add up to what iperf3 sent within 5 % (packets, and bytes with the 42
# bytes of headers a datagram carries on the wire), prio's bands as
# records; every NDJSON line parses with jq; text lines name each qdisc.
# monitor events prints qdiscs added and deleted, as tc monitor, naming
# qdiscctl's kinds.
# vmtest-seconds: 48
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3

netns_pair --neigh
quiet_ns a b

# Events, text and JSON, while qdiscs come and go.
qd monitor events >/tmp/ev.txt 2>&1 &
ev1=$!
qd -j monitor events >/tmp/ev.json 2>&1 &
ev2=$!
sleep 0.5
must qd add dev va root handle 1: fifo limit 300
must qd replace dev va root handle 2: prio
must qd del dev va root
sleep 0.5
kill $ev1 $ev2
wait $ev1 $ev2 2>/dev/null
log "events: $(cat /tmp/ev.txt)"
for l in 'qdisc qdiscctl_fifo 1: dev va root (refcnt [0-9]+ )?$' 'deleted qdisc qdiscctl_fifo 1: dev va root $' \
	'qdisc qdiscctl_prio 2: dev va root (refcnt [0-9]+ )?$' 'deleted qdisc qdiscctl_prio 2: dev va root $'; do
	assert_match "$(cat /tmp/ev.txt)" "^$l" "event /$l/"
done
assert_eq "$(jq -c 'select(.handle == "1:" or .handle == "2:") | [.deleted // false, .kind, .handle, .dev]' /tmp/ev.json | tr '\n' ' ')" \
	'[false,"qdiscctl_fifo","1:","va"] [true,"qdiscctl_fifo","1:","va"] [false,"qdiscctl_prio","2:","va"] [true,"qdiscctl_prio","2:","va"] ' \
	"JSON events"

# Rates: a steady 10 Mbit/s of 1400-byte datagrams for 5 s through prio
# (band 1), monitor reading every second from before it starts to after
# it ends. iperf3 paces in bursts and catches up when behind, so its 1 s
# slices are not steady; what monitor's rates add up to over the flow,
# rate times interval, must be what iperf3 sent.
must qd add dev va root handle 1: prio
iperf_server b
qd -j monitor dev va -c 10 >/tmp/mon.json &
mon=$!
sleep 1.5
in_a iperf3 -c "$IP_B" -u -b 10M -l 1400 -t 5 -J >/tmp/iperf.json 2>&1 || fail "iperf3 failed: $(cat /tmp/iperf.json)"
wait $mon || fail "monitor failed"
assert_eq "$(wc -l </tmp/mon.json)" 10 "one JSON object an interval"
while read -r l; do
	printf '%s\n' "$l" | jq -e . >/dev/null || fail "not JSON: $l"
done </tmp/mon.json
log "monitor: $(jq -c '.qdiscs[0] | [.packets_per_sec, .bytes_per_sec]' /tmp/mon.json | tr '\n' ' ')"
# sum FIELD: rate times interval, over the intervals.
sum() { jq -s "[.[] | .interval_ns / 1e9 * ($1)] | add" /tmp/mon.json; }
mon_p=$(sum .qdiscs[0].packets_per_sec)
mon_B=$(sum .qdiscs[0].bytes_per_sec)
band1=$(sum .qdiscs[0].bands[1].bytes_per_sec)
busy=$(jq -s '[.[] | select(.qdiscs[0].packets_per_sec > 100)] | length' /tmp/mon.json)
ipf_p=$(jq '.end.sum.packets' /tmp/iperf.json)
ipf_s=$(jq '.end.sum.seconds' /tmp/iperf.json)
wire_B=$(jq '.end.sum.bytes + 42 * .end.sum.packets' /tmp/iperf.json)
log "monitor: $mon_p packets, $mon_B bytes (band 1: $band1), busy in $busy intervals; iperf3: $ipf_p packets, $wire_B bytes with headers, in ${ipf_s}s"
within5() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.05 * b) }'; }
within5 "$mon_p" "$ipf_p" || fail "packets: monitor's rates add up to $mon_p, iperf3 sent $ipf_p"
within5 "$mon_B" "$wire_B" || fail "bytes: monitor's rates add up to $mon_B, iperf3 sent $wire_B"
within5 "$band1" "$mon_B" || fail "band 1 carries the flow: $band1 of $mon_B"
# Its mean rate over the 5 s, as iperf3 reports it.
within5 "$(awk -v b="$mon_B" -v s="$ipf_s" 'BEGIN { print b / s }')" "$(jq '.end.sum.bytes / .end.sum.seconds' /tmp/iperf.json | awk -v p="$ipf_p" -v s="$ipf_s" '{ print $1 + 42 * p / s }')" ||
	fail "mean rate"
[ "$busy" -ge 4 ] && [ "$busy" -le 7 ] || fail "the flow was seen in $busy intervals of 1 s, not 5"
awk -v s="$(jq -s '[.[].interval_ns] | add / 1e9' /tmp/mon.json)" 'BEGIN { exit !(s > 9.9 && s < 10.5) }' ||
	fail "10 intervals of 1 s did not take 10 s on the monotonic clock"

# Text: a line a qdisc an interval.
qd monitor dev va -i 0.5 -c 2 >/tmp/mon.txt || fail "text lines: exit $?"
log "text: $(cat /tmp/mon.txt)"
assert_eq "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2} qdisc qdiscctl_prio 1: dev va root (refcnt [0-9]+ )?[0-9.]+[KMG]?bit [0-9]+pps drops [0-9]+/s backlog [0-9]+b [0-9]+p \| band 0: bytes [0-9]+/s' /tmp/mon.txt)" 2 \
	"two text lines"
# edt's achieved rate beside its configured one.
must qd replace dev va root edt rate 10mbit
m=$(qd -j monitor dev va -c 1 -i 0.2) || fail "monitor of edt: exit $?"
assert_eq "$(jget "$m" '.qdiscs[0].rate_est_configured')" 1250000 "edt's configured rate in JSON"
assert_match "$(qd monitor dev va -c 1 -i 0.2)" ' rate_est [0-9.]+[KMG]?bit of 10Mbit( |$)' "edt's rates in text"
expect_fail 255 'bad interval "0"' qd monitor -i 0
expect_fail 255 '"bogus"' qd monitor dev va bogus
log "ok"
