# edt's packets come from one pool of its registration (-C packets=1024
# here): a root edt holding local UDP senders' packets (backpressure, so
# none is dropped at the horizon, and limit 10000) stops at the pool and
# counts alloc_drops; a second instance, on another device, gets only what
# the first leaves; the first one's slots come back when it is deleted and
# the second one fills up with them; a reset (device down) gives them back
# too, and a new instance fills the pool again. The children of an mq, fed
# from both CPUs, share the pool the same way. Nothing is left afterwards.
# vmtest-timeout: 300
# vmtest-seconds: 68
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

KIND=edt
POOL=1024
# An instance keeps at most two batches of 32 free slots for itself.
NEAR=$((POOL - 64))
EDT="-C packets=$POOL"

netns_pair --neigh
quiet_ns a b
big_sndbuf
# d0: a second device in a, whose edt queues what is sent to 10.9.0.2.
must ip -n a link add d0 type dummy
must ip -n a addr add 10.9.0.1/24 dev d0
must ip -n a link set d0 up

qlen() { in_a tc -s -j qdisc show dev "$1" | jq '[.[] | .qlen] | add // 0'; }
# held DEV...: the packets the devices' qdiscs hold, from one dump: va goes
# on sending while d0 fills, so two reads would count a slot twice.
held() {
	in_a tc -s -j qdisc show | jq --arg d "$*" '[.[] | select(.dev as $x | $d | split(" ") | index($x)) | .qlen] | add // 0'
}
xstat() { qd -s -j show dev "$1" | jq ".[0].$2"; }
full() { [ "$(qlen "$1")" -ge "$2" ] && [ "$(xstat "$1" alloc_drops)" -gt 0 ]; }
# wmem: the sum of the Send-Q (sk_wmem_alloc) of a's UDP sockets.
freed() { [ "$(in_a ss -uan | awk 'NR > 1 { s += $3 } END { print s + 0 }')" = 0 ]; }

# send NAME DEST: 4 senders with 4 MB buffers (about 7,000 packets) in the
# background, far more than the 500 kbit/s edt lets out.
send() {
	/usr/sbin/ip netns exec a taskset -c 0 udpflows -d "$2" -p 9000 -k 4 -n 0 -t 300s \
		-l 1400 -b 4000000 >/dev/null 2>&1 &
	eval "$1=\$!"
}
stop() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

SINK_CPU=0 sink_start 9000 -q
must qd $EDT add dev va root edt rate 500kbit
must qd $EDT add dev d0 root edt rate 500kbit
assert_eq "$(qdiscctl -d kinds | grep -c 'registration qdiscctl_edt[.:]')" 1 "one registration"
assert_match "$(qdiscctl -d kinds)" "packets[ =]$POOL" "its pool"

send A "$IP_B"
wait_until 20 full va $NEAR || fail "va never filled the pool: qlen $(qlen va), $(qd -s show dev va)"
kill -STOP "$A"
q=$(qlen va)
[ "$q" -le $POOL ] || fail "va holds $q packets, more than the pool's $POOL"
log "va: qlen $q, alloc_drops $(xstat va alloc_drops), cap_drops $(xstat va cap_drops)"
assert_eq "$(xstat va cap_drops)" 0 "no drops at limit"

# d0 shares the pool: it gets what va leaves, and drops the rest.
send D 10.9.0.2
wait_until 10 full d0 1 || fail "d0 got no packet or no alloc_drops: qlen $(qlen d0)"
sum=$(held va d0)
[ "$sum" -le $POOL ] || fail "va and d0 hold $sum packets, more than the pool's $POOL"
log "d0 beside va: qlen $(qlen d0), together $sum"

# va's slots come back with it; d0 takes them.
must qd del dev va root
wait_until 20 full d0 $NEAR || fail "d0 did not get va's slots: qlen $(qlen d0)"
log "d0 after va went: qlen $(qlen d0)"
stop "$D"
stop "$A"

# A reset gives d0's slots back; va's new instance fills the pool again.
must ip -n a link set d0 down
assert_eq "$(qlen d0)" 0 "d0 empty after its reset"
must ip -n a link set d0 up
must qd $EDT add dev va root edt rate 500kbit
send A "$IP_B"
wait_until 20 full va $NEAR || fail "va did not get the pool back: qlen $(qlen va)"
log "va again: qlen $(qlen va)"
stop "$A"

# A change with packets queued stays live, and deleting frees them.
must qd change dev va root limit 500 rate 400kbit
assert_eq "$(qd -j show dev va | jq '.[0].options.limit')" 500 "limit changed"
[ "$(qlen va)" -gt 500 ] || fail "the queue went with the change: qlen $(qlen va)"
must qd del dev va root
must qd del dev d0 root
wait_until 10 freed || fail "senders still charged"
sink_stop 9000
assert_clean "after the root instances"

# mq: 4 children, fed from both CPUs at once, take from and give back to
# one pool; together they hold at most all of it, and after a del the
# next mq gets all of it back.
NTX=4
netns_pair --neigh --queues $NTX
quiet_ns a b
SINK_CPU=0 sink_start 9000 -P 16 -q
children_qlen() { in_a tc -s -j qdisc show dev va | jq '[.[1:][] | .qlen] | add // 0'; }
drops() { qd -s -j show dev va | jq '[.[1:][] | .alloc_drops] | add // 0'; }
mq_full() { [ "$(children_qlen)" -ge $((POOL - NTX * 64)) ] && [ "$(drops)" -gt 0 ]; }
# mq_fill: 16 sockets on each CPU, so that every child gets some.
mq_fill() {
	for cpu in 0 1; do
		/usr/sbin/ip netns exec a taskset -c $cpu udpflows -d "$IP_B" -p 9000 -P 16 -k 16 \
			-n 0 -t 300s -l 1400 -b 1000000 >/dev/null 2>&1 &
		eval "S$cpu=\$!"
	done
	wait_until 20 mq_full || fail "$1: the children never filled the pool: qlen $(children_qlen)"
	sleep 2
	q=$(children_qlen)
	[ "$q" -le $POOL ] || fail "$1: the children hold $q packets, more than the pool's $POOL"
	busy=$(qd -s -j show dev va | jq '[.[1:][] | select(.qlen > 0)] | length')
	[ "$busy" -ge 2 ] || fail "$1: only $busy children held packets"
	log "$1: $busy children hold $q packets, alloc_drops $(drops)"
	stop "$S0"
	stop "$S1"
}
must qd $EDT add dev va root mq edt rate 500kbit
mq_fill "mq"
must qd del dev va root
must qd $EDT add dev va root mq edt rate 500kbit
mq_fill "mq again"
must qd del dev va root
wait_until 10 freed || fail "senders still charged"
sink_stop 9000
cleanup_netns
assert_clean
