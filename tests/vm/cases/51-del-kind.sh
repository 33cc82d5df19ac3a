# del with a KIND, as tc: qdiscctl's kind names and the ids tc shows are
# taken where they match the qdisc there (whichever registration holds it),
# native kinds pass through, and a KIND that is not what is there is refused
# with the kernel's own answer, leaving the qdisc in place.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl

netns_pair --neigh
# The root qdisc's kind on va (single queue: the only qdisc tc lists).
kind_at() { in_a tc qdisc show dev va | awk '{ print $2; exit }'; }

for k in fifo prio fq; do
	must qd add dev va root handle 1: $k
	expect_fail 2 'must match existing qdisc' qd del dev va root pfifo
	assert_eq "$(kind_at)" "qdiscctl_$k" "$k stays after a del naming pfifo"
	must qd del dev va root handle 1: $k
	assert_eq "$(kind_at)" noqueue "del ... $k"
	must qd add dev va root $k
	must qd del dev va root qdiscctl_$k
	assert_eq "$(kind_at)" noqueue "del ... qdiscctl_$k"
done
assert_clean "after the kinds"

# Another kind's name, ours or not, is refused as tc refuses it.
must qd add dev va root fifo
expect_fail 2 'must match existing qdisc' qd del dev va root prio
expect_fail 2 'must match existing qdisc' qd del dev va root qdiscctl_prio
assert_eq "$(kind_at)" qdiscctl_fifo "fifo stays after a del naming prio"

# A further registration (more packet slots than the first has): the kind
# name finds it, the first registration's id does not, as with tc.
must qdiscctl -n "$NS_B" -C packets=8192 add dev vb root fifo
b_kind=$(ip netns exec "$NS_B" tc qdisc show dev vb | awk '{ print $2; exit }')
assert_eq "$b_kind" qdiscctl_fifo.1 "a second registration for more packet slots"
expect_fail 2 'must match existing qdisc' qdiscctl -n "$NS_B" del dev vb root qdiscctl_fifo
must qdiscctl -n "$NS_B" del dev vb root fifo
must qd del dev va root fifo
assert_clean "after the second registration"

# Native kinds: tc's words, tc's answers.
must in_a tc qdisc add dev va root handle 1: pfifo limit 10
expect_fail 2 'must match existing qdisc' qd del dev va root fifo
must qd del dev va root handle 1: pfifo
assert_eq "$(kind_at)" noqueue "del ... pfifo"
must in_a tc qdisc add dev va root fq
must qd del dev va root fq
assert_eq "$(kind_at)" noqueue "del ... fq of a native fq"
assert_clean "native kinds"
