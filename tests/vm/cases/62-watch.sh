# watch: FILE kept applied. Within 1 s it restores the qdisc of a veth
# deleted and created again, one deleted by tc behind its back, and keeps
# it across down and up; packets go through each restored qdisc. A
# statement the kernel refuses is tried with back-off, not in a loop.
# SIGHUP reads FILE again. Device churn does not grow its memory. kill -9
# in the middle of its work leaves nothing half-made.
# vmtest-timeout: 240
# vmtest-seconds: 65
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq tc

netns_pair --neigh
quiet_ns a b
must ip -n a link add dummy0 type dummy
must ip -n a link set dummy0 up
conf=/tmp/watch.conf
cat >$conf <<EOF
netns a
dev va root handle 1: fifo limit 300
dev vx* root fq flow_limit 40
# fifo is classless: the kernel refuses this, every time.
dev dummy0 parent 1:1 fifo
EOF

# start_watch: a watcher, once it has applied the file and holds its kinds.
start_watch() {
	_n=$(grep -c 'applied; watching' /tmp/watch.log 2>/dev/null)
	qdiscctl watch $conf 2>>/tmp/watch.log &
	watcher=$!
	wait_until 20 watching "${_n:-0}" || fail "watch did not start: $(cat /tmp/watch.log)"
}
watching() { [ "$(grep -c 'applied; watching' /tmp/watch.log)" -gt "$1" ]; }
start_watch
# Polled every 20 ms: one qdiscctl, no jq (ip netns exec alone costs 0.7 s under TCG).
kind_of() { qd show dev "$1" root 2>/dev/null | awk '{ print $2; exit }'; }
is_fifo() { [ "$(kind_of va)" = qdiscctl_fifo ]; }
is_fifo || fail "not applied at start: $(cat /tmp/watch.log)"
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 300 "with its option"

# within NAME COND: COND holds within 1 s (polled every 20 ms).
within() {
	_name=$1
	shift
	_t0=$(uptime_cs)
	until "$@"; do
		[ $(($(uptime_cs) - _t0)) -le 100 ] || fail "$_name: not within 1 s: $(tail -5 /tmp/watch.log)"
		sleep 0.02
	done
	_dt=$(($(uptime_cs) - _t0))
	log "$_name: ${_dt}0 ms"
	[ "$_dt" -le 100 ] || fail "$_name: ${_dt}0 ms, more than 1 s"
}
ping_b() { must in_a ping -c 3 -i 0.1 -q "$1"; }

# tc deletes it behind watch's back.
must in_a tc qdisc del dev va root
within "after tc qdisc del" is_fifo
ping_b "$IP_B"
assert_eq "$(jget "$(qd -s -j show dev va)" '.[0].packets')" 3 "a fresh instance counts the packets"

# Down and up.
must ip -n a link set va down
must ip -n a link set va up
within "after down and up" is_fifo
ping_b "$IP_B"

# A veth made, deleted and made again: its qdisc each time.
mkveth() {
	must ip link add vx0 netns a type veth peer name vy0 netns b
	must ip -n a addr add 10.0.1.1/24 dev vx0
	must ip -n b addr add 10.0.1.2/24 dev vy0
	must ip -n a link set vx0 up
	must ip -n b link set vy0 up
}
is_fq() { [ "$(kind_of vx0)" = qdiscctl_fq ]; }
mkveth
within "a new veth" is_fq
must ip -n a link del vx0
mkveth
within "the veth made again" is_fq
assert_eq "$(jget "$(qd -j show dev vx0)" '.[0].options.flow_limit')" 40 "with its option"
ping_b 10.0.1.2
assert_eq "$(jget "$(qd -s -j show dev vx0)" '.[0].packets')" "$(in_a cat /sys/class/net/vx0/statistics/tx_packets)" "every packet through fq"

# The refused statement: dummy0 flaps 20 times in 2 s, tried with back-off.
before=$(grep -c 'dev dummy0 parent 1:1: add qdiscctl_fifo: refused' /tmp/watch.log)
t0=$(uptime_cs)
i=0
while [ $i -lt 20 ]; do
	ip -n a link set dummy0 down
	ip -n a link set dummy0 up
	sleep 0.1
	i=$((i + 1))
done
sleep 1
tries=$(($(grep -c 'dev dummy0 parent 1:1: add qdiscctl_fifo: refused' /tmp/watch.log) - before))
secs=$((($(uptime_cs) - t0) / 100 + 1))
# Tries 1, 2, 4, 8 ... s apart: at most 2 + log2(secs) of them, however many flaps.
most=2 t=1
while [ $t -le $secs ]; do most=$((most + 1)) t=$((t * 2)); done
log "refused tries during 20 flaps in ${secs} s: $tries (at most $most); $(grep 'next try' /tmp/watch.log | tail -2)"
[ "$tries" -ge 1 ] && [ "$tries" -le "$most" ] || fail "$tries tries in $secs s: no back-off"
assert_match "$(cat /tmp/watch.log)" 'refused 2 times: next try in 2s' "the back-off grows"
is_fifo || fail "va lost its qdisc"

# SIGHUP: the file again.
sed -i 's/limit 300/limit 400/' $conf
kill -HUP $watcher
is400() { [ "$(jget "$(qd -j show dev va)" '.[0].options.limit')" = 400 ]; }
wait_until 5 is400 || fail "SIGHUP: the file not read again: $(tail -3 /tmp/watch.log)"
echo 'dev va root fifo limit lots' >/tmp/bad.conf
cp $conf /tmp/good.conf
cp /tmp/bad.conf $conf
kill -HUP $watcher
sleep 0.5
kill -0 $watcher || fail "a bad file on SIGHUP ended watch"
assert_match "$(cat /tmp/watch.log)" 'not taken: still applying the one before' "a bad file is not taken"
cp /tmp/good.conf $conf

# Churn of devices it does not configure: memory stays.
rss() { awk '/^VmRSS/ { print $2 }' /proc/$watcher/status; }
rss0=$(rss)
i=0
while [ $i -lt 100 ]; do
	ip -n a link add tmp$i type dummy
	ip -n a link set tmp$i up
	i=$((i + 1))
done
i=0
while [ $i -lt 100 ]; do
	ip -n a link del tmp$i
	i=$((i + 1))
done
sleep 1
rss1=$(rss)
log "watch RSS ${rss0} kB, after 100 devices came and went ${rss1} kB"
[ $((rss1 - rss0)) -le 256 ] || fail "RSS grew from $rss0 to $rss1 kB"

# kill -9 while it works: whatever it was doing is either done or not begun.
n=0
while [ $n -lt 5 ]; do
	in_a tc qdisc del dev va root
	sleep "0.$((n * 3))"
	kill -9 $watcher
	wait $watcher 2>/dev/null
	# What a killed run left must not stand in the way of the next.
	out=$(qd apply $conf 2>&1)
	assert_match "$out" 'dev va root: (add qdiscctl_fifo|unchanged)' "apply after kill -9 ($n)"
	start_watch
	n=$((n + 1))
done
within "the last watcher applies" is_fifo

# A namespace that goes is forgotten: its socket closed, so that the
# namespace and its devices can go too; watch runs on.
cleanup_netns
went() { grep -q 'watch: netns a went away: forgotten' /tmp/watch.log; }
wait_until 5 went || fail "netns a not forgotten: $(tail -3 /tmp/watch.log)"
kill -0 $watcher || fail "watch ended with its namespace"
kill $watcher
wait $watcher
assert_eq "$?" 0 "SIGTERM ends it cleanly"
assert_match "$(tail -1 /tmp/watch.log)" 'watch: signal 15: stopping' "and it says so"
# The instances went with the namespace's devices; gc removes their registrations.
gone() { qdiscctl gc >/dev/null 2>&1 && [ ! -e /sys/fs/bpf/qdiscctl ]; }
wait_until 10 gone || fail "registrations left: $(ls /sys/fs/bpf/qdiscctl)"
assert_clean "at the end"
