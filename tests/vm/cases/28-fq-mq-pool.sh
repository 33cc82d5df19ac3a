# fq's shared pools under concurrent instances: an mq root with an fq on
# each of 4 tx queues, and two senders on different CPUs, each sending
# 40,000 datagrams of as many orphan flows (orphan_mask 0xffffffff, a new
# 5-tuple a datagram) spread over the queues, with maxrate 1gbit so that
# every packet takes the full path (flow slots taken, collected and given
# back, packet slots taken and given back). Every datagram arrives, no
# child drops one or fails an allocation, and flows were collected (once
# they are older than FQ_GC_AGE, by a few late datagrams). Then
# the tree is deleted (every slot goes back to the pools) and made again,
# on the same registration, and the same holds: the pools handed out each
# slot once and took each back.
# vmtest-timeout: 240
# vmtest-seconds: 33
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows taskset

N=40000

rx_vb() { in_b cat /sys/class/net/vb/statistics/rx_packets; }
# sum KEY: KEY summed over the fq children of va (qdiscctl's JSON).
sum() { qd -s -j show dev va | jq "[.[] | select(.kind == \"qdiscctl_fq\") | .$1 // 0] | add"; }

round() {
	must qd add dev va root handle 1: mq fq orphan_mask 4294967295 maxrate 1gbit
	rx0=$(rx_vb)
	/usr/sbin/ip netns exec a /usr/bin/taskset -c 0 udpflows -d "$IP_B" -p 10000 -P 20000 -U \
		-s 20000 -S 2 -n $N >"$TMPDIR/tx0.out" &
	s0=$!
	/usr/sbin/ip netns exec a /usr/bin/taskset -c 1 udpflows -d "$IP_B" -p 10000 -P 20000 -U \
		-s 30000 -S 2 -n $N >"$TMPDIR/tx1.out" &
	s1=$!
	wait $s0 || fail "$1: sender 0 failed: $(cat "$TMPDIR/tx0.out")"
	wait $s1 || fail "$1: sender 1 failed: $(cat "$TMPDIR/tx1.out")"
	wait_until 10 all_drained || fail "$1: the children do not drain"
	rx=$(($(rx_vb) - rx0))
	log "$1: $(cat "$TMPDIR/tx0.out"); $(cat "$TMPDIR/tx1.out"); vb received $rx"
	qd -s show dev va | grep -E '^qdisc|flows|alloc' | head -20
	used=$(qd -s -j show dev va | jq '[.[] | select(.kind == "qdiscctl_fq") | select(.packets > 0)] | length')
	[ "$used" -ge 2 ] || fail "$1: only $used children carried packets"
	assert_eq "$rx" $((2 * N)) "$1: datagrams delivered"
	assert_eq "$(sum drops)" 0 "$1: drops"
	assert_eq "$(sum alloc_errors)" 0 "$1: alloc_errors"
	# The senders take about 2 s, less than FQ_GC_AGE (3 s), so no flow is
	# old enough to collect while they run. Let them age, then a few more
	# datagrams have every packet's look at the idle list collect them.
	sleep 3.5
	/usr/sbin/ip netns exec a /usr/bin/taskset -c 0 udpflows -d "$IP_B" -p 10000 -P 20000 -U \
		-s 40000 -S 2 -n 64 >"$TMPDIR/tx2.out" || fail "$1: the late sender failed"
	wait_until 10 all_drained || fail "$1: the children do not drain"
	[ "$(sum gc)" -gt 0 ] || fail "$1: no flow was collected"
	assert_eq "$(sum alloc_errors)" 0 "$1: alloc_errors after collecting"
	must qd del dev va root
}
all_drained() { [ "$(qd -s -j show dev va | jq '[.[] | .qlen] | add')" = 0 ]; }

netns_pair --neigh --queues 4
quiet_ns a b
# Keeps the registration (and its pools) between the rounds.
must ip link add d0 type dummy
must ip link set d0 up
must qdiscctl add dev d0 root fq
round first
round again
must qdiscctl del dev d0 root
ip link del d0
cleanup_netns
