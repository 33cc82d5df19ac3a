# Bad input: one line naming the bad token, the documented exit code, and
# nothing half-installed (no registration or pin without a qdisc).
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl bpftool

netns_pair --neigh

expect_fail 1 'Cannot find device "nosuch"' qd add dev nosuch root fifo
assert_clean "unknown device"
expect_fail 2 'Specified qdisc kind is unknown' qd add dev va root nosuchkind
assert_clean "unknown kind"
expect_fail 255 '"zz:"' qd add dev va root handle zz: fifo
expect_fail 255 '"1:2"' qd add dev va root handle 1:2 fifo
expect_fail 255 '"0"' qd add dev va root fifo limit 0
expect_fail 255 '"-1"' qd add dev va root fifo limit -1
expect_fail 255 '"99999999999"' qd add dev va root fifo limit 99999999999
expect_fail 255 '"1048577"' qd add dev va root fifo limit 1048577
expect_fail 255 '"limit"' qd add dev va root fifo limit
expect_fail 255 '"bogus"' qd add dev va root fifo bogus 1
expect_fail 255 '"dev"' qd add dev va dev vb root fifo
expect_fail 255 'root.*parent' qd add dev va fifo
expect_fail 255 '"nosuchcmd"' qdiscctl nosuchcmd
assert_clean "bad arguments"
if [ -x /usr/bin/setpriv ]; then
	expect_fail 1 'needs root' /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		qdiscctl add dev lo root fifo
	expect_fail 1 'needs root' /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		qdiscctl del dev lo root
	assert_clean "not root"
fi

# A BPF qdisc is refused below a classful qdisc: the kernel says why, and
# the registration this add made is undone.
must in_a tc qdisc add dev va root handle 1: htb
must in_a tc class add dev va parent 1: classid 1:1 htb rate 10mbit
expect_fail 2 'only supported on root or mq' qd add dev va parent 1:1 fifo
assert_clean "refused placement"
must in_a tc qdisc del dev va root

# A second add on the same parent: refused, and the first stays intact.
must qd add dev va root handle 1: fifo limit 7
expect_fail 2 'Exclusivity flag on' qd add dev va root fifo
assert_match "$(qd show dev va)" 'qdiscctl_fifo 1: root .*limit 7p' "first instance kept"
[ -e /sys/fs/bpf/qdiscctl/fifo/link ] || fail "registration lost while an instance lives"
expect_fail 2 '.' qd del dev va parent 5:1
must qd del dev va root
assert_clean "after the last del"
cleanup_netns
