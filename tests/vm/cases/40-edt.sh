# edt: the aggregate rate holds to 0.5 %, and with backpressure 16 UDP
# senders offering twice the rate block instead of losing packets, where
# htb at the same rate drops about half of them (the qdisc-backpressure
# RFC's experiment, scaled to the VM).
# vmtest-timeout: 150
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3

netns_pair --neigh
quiet_ns a b

# sample PID: "TIME BYTES", hundredths of a second and the bytes va has
# sent, read through the namespace of process PID with shell builtins
# only, so that no fork lies between the two readings.
sample() {
	read -r _up _ </proc/uptime
	while read -r _line; do
		case $_line in va:*) break ;; esac
	done <"/proc/$1/net/dev"
	# Wide counters run into the name ("va:123456789"): split after the colon.
	set -- ${_line#va:}
	echo "$(( ${_up%.*} * 100 + ${_up#*.} )) $9"
}

# The rate, from va's counters over 6 s of a standing queue:
# a 100 ms horizon and drops beyond it keep the queue full whatever the
# emulated senders manage.
must qd add dev va root edt rate 20mbit horizon 100ms nobackpressure
iperf_server b
in_a iperf3 -u -b 22M -l 1400 -c "$IP_B" -t 9 >/tmp/iperf.log 2>&1 &
client=$!
# A process in namespace a, to read va's counters through.
/usr/sbin/ip netns exec a /bin/sleep 13 &
anchor=$!
sleep 1
set -- $(sample $anchor)
t0=$1 b0=$2
sleep 6
set -- $(sample $anchor)
t1=$1 b1=$2
wait $client
kill $anchor
# bytes/s against 2500000 B/s, in parts per thousand.
ppt=$(( (b1 - b0) * 100 * 1000 / (t1 - t0) / 2500000 ))
log "edt rate 20mbit: $(( (b1 - b0) * 100 / (t1 - t0) )) B/s over $(( (t1 - t0) * 10 )) ms = $ppt/1000 of the rate"
[ "$ppt" -ge 995 ] && [ "$ppt" -le 1005 ] || fail "achieved rate is $ppt/1000 of the configured one"
must qd del dev va root

# udp_loss: 16 UDP sender processes with blocking sockets and 512 KB send
# buffers (their sum is far beyond htb's 1000-packet leaf queue and within
# edt's 10000-packet cap), each offering 1.25 Mbit/s, twice its share of
# 10 Mbit/s, for 6 s. Prints "lost% bits/s": the loss the receivers saw
# and the rate that left va in the middle of the run. (The rate is low so
# that 32 emulated iperf3 processes leave the CPU to the qdisc.)
udp_loss() {
	/usr/sbin/ip netns exec a /bin/sleep 20 &
	_anchor=$!
	for i in $(seq 16); do
		ip netns exec b iperf3 -s -1 -p $((5300 + i)) >/dev/null 2>&1 &
	done
	sleep 1
	for i in $(seq 16); do
		ip netns exec a iperf3 -u -b 1.25M -l 1400 -w 512K -c "$IP_B" -p $((5300 + i)) -t 6 -J \
			>/tmp/bp$i.json 2>&1 &
	done
	sleep 2
	set -- $(sample $_anchor)
	_t0=$1 _b0=$2
	sleep 3
	set -- $(sample $_anchor)
	_bps=$(( ($2 - _b0) * 800 / ($1 - _t0) ))
	kill $_anchor
	wait
	cat /tmp/bp*.json | jq -s -r --argjson bps "$_bps" \
		'[.[].end.sum] | "\(100 * (map(.lost_packets) | add) / (map(.packets) | add)) \($bps)"'
}

must in_a tc qdisc add dev va root handle 1: htb default 1
must in_a tc class add dev va parent 1: classid 1:1 htb rate 10mbit
set -- $(udp_loss)
htb_loss=$1 htb_bps=$2
must in_a tc qdisc del dev va root

must qd add dev va root edt rate 10mbit backpressure
set -- $(udp_loss)
edt_loss=$1 edt_bps=$2
st=$(qd -s -j show dev va)
must qd del dev va root
log "htb: lost ${htb_loss}% at ${htb_bps} bit/s; edt backpressure: lost ${edt_loss}% at ${edt_bps} bit/s; edt drops $(jget "$st" '.[0].drops')"
awk "BEGIN { exit !($htb_loss > 20) }" || fail "htb did not drop heavily (${htb_loss}%): the setup proves nothing"
awk "BEGIN { exit !($edt_loss <= 0.5) }" || fail "edt with backpressure lost ${edt_loss}%"
awk "BEGIN { exit !($edt_bps >= 0.95 * 10000000) }" || fail "edt carried only $edt_bps bit/s"
assert_clean
cleanup_netns
