# default: a qdiscctl kind as net.core.default_qdisc. mq children on a
# 4-queue veth and a new 4-queue ifb get it, with the options given, and pass
# traffic; the registration stays while it is the default although no
# instance uses it; restore puts the old value back and it goes.
# vmtest-timeout: 180
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq iperf3

DQ=/proc/sys/net/core/default_qdisc
set_sysctl net.core.default_qdisc "$(cat $DQ)"
orig=$(cat $DQ)
cleanup_netns
must ip netns add a
must ip netns add b
# Host-wide: a namespace has no default_qdisc of its own.
in_a test -e $DQ && fail "default_qdisc exists in a namespace: document it"

expect_fail 255 '"nope" is not one of' qdiscctl default nope
expect_fail 255 'rate' qdiscctl default edt
expect_fail 1 'nothing saved' qdiscctl default restore
assert_eq "$(qdiscctl -j default | jq -r .default_qdisc)" "$orig" "show before"

must qdiscctl default fifo limit 33
assert_eq "$(cat $DQ)" qdiscctl_fifo "the sysctl"
st=$(qdiscctl -j default)
assert_eq "$(jget "$st" .kind)" fifo "show: kind"
assert_eq "$(jget "$st" .options.limit)" 33 "show: the options"
assert_eq "$(jget "$st" .saved)" "$orig" "show: the value restore puts back"
assert_match "$(qdiscctl default)" "^qdiscctl_fifo limit 33p .*$orig" "show: text"
# Kept while it is the default, though nothing uses it yet.
assert_eq "$(qdiscctl -j gc)" "[]" "gc keeps the default's registration"
assert_eq "$(ls /sys/fs/bpf/qdiscctl)" fifo "registered"

# mq on a 4-queue veth: its children are made with the default's ops.
must ip link add va netns a numtxqueues 4 numrxqueues 4 address "$MAC_A" type veth \
	peer name vb netns b numtxqueues 4 numrxqueues 4 address "$MAC_B"
must ip -n a addr add "$IP_A/24" dev va
must ip -n b addr add "$IP_B/24" dev vb
for ns in a b; do must ip -n $ns link set lo up; done
must ip -n a link set va up
must ip -n b link set vb up
quiet_ns a b
assert_match "$(in_a tc qdisc show dev va)" noqueue "veth (IFF_NO_QUEUE) gets noqueue, not the default"
must in_a tc qdisc add dev va root handle 1: mq
kids=$(qd -j show dev va | jq '[.[] | select(.parent != null and .kind == "qdiscctl_fifo")]')
assert_eq "$(jget "$kids" length)" 4 "four fifo children: $(in_a tc qdisc show dev va)"
assert_eq "$(jget "$kids" '[.[].options.limit] | unique | .[]')" 33 "the default's options"
must in_a ping -c 3 -i 0.2 -q "$IP_B"
iperf_server b
must in_a iperf3 -c "$IP_B" -P 8 -t 2 >/dev/null
busy=$(qd -s -j show dev va | jq '[.[] | select(.kind == "qdiscctl_fifo" and .packets > 0)] | length')
[ "$busy" -ge 2 ] || fail "traffic went through $busy children: $(qd -s show dev va)"
assert_eq "$(qd -s -j show dev va | jq '[.[] | select(.kind == "qdiscctl_fifo") | .drops] | add')" 0 "no drops"

# A new device without IFF_NO_QUEUE gets mq with default children at once.
must ip -n a link add ifb0 numtxqueues 4 type ifb
must ip -n a link set ifb0 up
assert_eq "$(qd -j show dev ifb0 | jq '[.[] | select(.kind == "qdiscctl_fifo")] | length')" 4 \
	"ifb's children: $(in_a tc qdisc show dev ifb0)"

# Another kind as the default: the first original stays saved.
must qdiscctl default fq
assert_eq "$(cat $DQ)" qdiscctl_fq "fq now"
assert_eq "$(qdiscctl -j default | jq -r .saved)" "$orig" "first original kept"
# fifo's registration stays while its mq children live.
assert_eq "$(ls /sys/fs/bpf/qdiscctl | tr '\n' ' ')" "fifo fq " "both registered"

must qdiscctl default restore
assert_eq "$(cat $DQ)" "$orig" "restored"
assert_eq "$(qdiscctl -j default | jq -r '.saved // "none"')" none "nothing saved any more"
assert_eq "$(ls /sys/fs/bpf/qdiscctl)" fifo "fq went with the default; fifo stays for its instances"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must ip -n a link del ifb0
# The mq root is not qdiscctl's, but its children were: the registration goes.
must qd del dev va root
assert_clean "after restore"
cleanup_netns
