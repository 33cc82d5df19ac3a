# save: the state of namespace a as an apply file. Applied back it changes
# nothing (every statement unchanged, no qdisc event); after the qdiscs
# and a sysctl are undone by hand it makes them again, and a second save
# is the same file.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq tc

netns_pair --neigh --queues 4
quiet_ns a b
for d in dummy0 dummy1 dummy2; do
	must ip -n a link add $d type dummy
	must ip -n a link set $d up
done
must qd add dev va root handle 1: mq fq maxrate 1gbit flow_limit 50
must qd add dev dummy0 root handle 5: edt rate 100mbit horizon 2ms
must in_a tc qdisc add dev dummy1 root handle 7: pfifo_fast
must qd add dev dummy2 root handle 3: prio bands 4 priomap 3 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
must in_a sysctl -qw net.ipv4.tcp_notsent_lowat=65536
must in_a ping -c 3 -i 0.1 -q "$IP_B"

qd save >/tmp/save.conf || fail "save: exit $?"
log "saved: $(cat /tmp/save.conf)"
lines() { grep -v '^#' /tmp/save.conf | sort; }
assert_match "$(lines)" '^dev va root handle 1: mq fq limit 10000 flow_limit 50 buckets 1024 .*maxrate 1Gbit' "mq fq with every option"
assert_match "$(lines)" 'dev dummy0 root handle 5: edt rate 100Mbit .*horizon 2ms' "edt"
assert_match "$(lines)" 'dev dummy1 root handle 7: pfifo_fast' "a native root by kind"
assert_match "$(lines)" 'dev dummy2 root handle 3: prio bands 4 priomap 3 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1' "prio"
assert_match "$(lines)" 'sysctl net.ipv4.tcp_notsent_lowat 65536' "a sysctl off its default"
assert_no_match "$(lines)" 'tcp_ecn' "a sysctl at its default is left out"
assert_no_match "$(lines)" 'dev lo' "lo's own noqueue is the kernel's"
assert_no_match "$(lines)" 'parent' "mq's children are said by its line"
assert_eq "$(qd save dev dummy0 | grep -vc '^#')" 1 "save dev DEV: that device only"

# Back: nothing to do, nothing sent.
in_a tc monitor >/tmp/monitor.log 2>&1 &
mon=$!
sleep 0.5
out=$(qd apply - </tmp/save.conf) || fail "apply of the saved file: $out"
sleep 0.5
kill $mon
log "apply: $out"
assert_eq "$(printf '%s\n' "$out" | grep -vc ': unchanged$')" 0 "every statement unchanged"
assert_eq "$(printf '%s\n' "$out" | wc -l)" "$(grep -vc '^#' /tmp/save.conf)" "one line a statement"
assert_no_match "$(cat /tmp/monitor.log)" qdisc "no qdisc event"

# Undone by hand, made again.
must qd del dev dummy0 root
must in_a tc qdisc del dev dummy1 root
must qd change dev va root flow_limit 70
must in_a sysctl -qw net.ipv4.tcp_notsent_lowat=4294967295
out=$(qd apply /tmp/save.conf) || fail "apply after the undoing: $out"
log "apply: $out"
assert_match "$out" 'dev dummy0 root: add qdiscctl_edt' "edt back"
assert_match "$out" 'dev dummy1 root: add pfifo_fast' "pfifo_fast back"
assert_match "$out" 'dev va root: change flow_limit 70 -> 50' "the option back"
assert_match "$out" 'sysctl net.ipv4.tcp_notsent_lowat: change 4294967295 -> 65536' "the sysctl back"
must in_a ping -c 3 -i 0.1 -q "$IP_B"
qd save >/tmp/save2.conf || fail "second save"
assert_eq "$(diff /tmp/save.conf /tmp/save2.conf && echo same)" same "the same file again"

for d in va dummy0 dummy2; do must qd del dev $d root; done
cleanup_netns
assert_clean "at the end"
