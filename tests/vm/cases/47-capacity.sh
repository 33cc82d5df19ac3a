# Capacity from the host: "add ... root mq KIND" on a 128-queue veth works
# for every kind and carries traffic on several children; with "default
# KIND" a 64-queue dummy's mq and a 128-queue ifb coming up get one of our
# instances on every queue and the kernel never falls back to noqueue;
# 1,024 instances of one kind live at once and leave nothing behind; -C
# sets a capacity, and what it cannot hold is refused with one line.
# vmtest-timeout: 600
# vmtest-seconds: 65
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink bpftool

NTX=128
DQ=/proc/sys/net/core/default_qdisc
set_sysctl net.core.default_qdisc "$(cat $DQ)"

pair128() {
	netns_pair --neigh --queues $NTX
	quiet_ns a b
}

# reg_line KIND: what "-d kinds" says of KIND's registrations.
reg_line() { qdiscctl -d kinds | grep "registration qdiscctl_$1[.:]"; }

# children NS DEV KIND: how many qdiscs of KIND (any registration) tc lists on DEV.
children() { ip netns exec "$1" tc qdisc show dev "$2" | grep -c "^qdisc qdiscctl_$3[ .]"; }

mq_kind() {
	kind=$1
	shift
	log "== mq $kind $* on $NTX queues"
	pair128
	must qd add dev va root handle 1: mq "$kind" "$@"
	assert_eq "$(children a va "$kind")" $NTX "one $kind a queue"
	slots=$(qd -d show dev va | grep -o 'slot [0-9]*' | sort -u | wc -l)
	assert_eq "$slots" $NTX "every child its own instance"
	log "$(reg_line "$kind")"
	sink_start 9000 -P 8 -i 1s -t 30s -q
	must in_a udpflows -d "$IP_B" -p 9000 -P 8 -k 8 -n 2000 -l 500 -r 2000 >/dev/null
	sink_wait 9000
	qdj=$(qd -s -j show dev va)
	moved=$(jget "$qdj" '[.[1:][] | select(.packets > 0)] | length')
	[ "$moved" -ge 2 ] || fail "$kind: only $moved of $NTX children carried traffic"
	[ "$(jget "$qdj" '.[0].packets')" -ge 2000 ] || fail "$kind: not every datagram was counted"
	log "$kind: $moved children carried $(jget "$qdj" '.[0].packets') packets"
	must qd del dev va root
	assert_clean "after mq $kind"
}

mq_kind fifo
mq_kind prio
mq_kind fq
mq_kind edt rate 1gbit

# The default qdisc: every child of devices that come up later is ours.
default_kind() {
	kind=$1
	log "== default $kind"
	cleanup_netns
	must ip netns add a
	dmesg -c >/dev/null
	must qdiscctl default "$kind"
	log "$(reg_line "$kind")"
	# A dummy has IFF_NO_QUEUE (noqueue on its own); an mq on it takes its
	# children from the default, as mq on a NIC does.
	must ip -n a link add d64 numtxqueues 64 numrxqueues 64 type dummy
	must ip -n a link set d64 up
	must in_a tc qdisc add dev d64 root handle 1: mq
	assert_eq "$(children a d64 "$kind")" 64 "d64's children: $(in_a tc qdisc show dev d64 | head -n 3)"
	# An ifb has a queue: coming up, it gets mq with default children.
	must ip -n a link add ifb128 numtxqueues 128 numrxqueues 128 type ifb
	must ip -n a link set ifb128 up
	assert_eq "$(children a ifb128 "$kind")" 128 "ifb128's children: $(in_a tc qdisc show dev ifb128 | head -n 3)"
	assert_no_match "$(dmesg)" 'fallback to noqueue' "the kernel never fell back to noqueue"
	assert_no_match "$(in_a tc qdisc show)" 'noqueue' "no device without a qdisc"
	must ip -n a link del ifb128
	must ip -n a link del d64
	must qdiscctl default restore
	assert_clean "after default $kind"
}

default_kind fq
default_kind fifo

# 1,024 instances of one kind at once: eight 128-queue devices under mq.
log "== 1024 instances"
cleanup_netns
must ip netns add a
for i in 0 1 2 3 4 5 6 7; do
	must ip -n a link add d$i numtxqueues 128 numrxqueues 128 type dummy
done
for i in 0 1 2 3 4 5 6 7; do
	must qd add dev d$i root mq fifo
done
assert_eq "$(qd -j show | jq '[.[] | select(.kind == "qdiscctl_fifo")] | length')" 1024 "1024 fifo instances"
regs=$(qdiscctl -d -j kinds | jq -c '.[] | select(.name == "fifo") | .registrations')
log "fifo registrations: $regs"
assert_eq "$(jget "$regs" '[.[] | [.used, .instances]] | tojson')" "[[1024,1088]]" \
	"one registration, sized for every queue of the namespace"
for i in 0 1 2 3 4 5 6 7; do
	must qd del dev d$i root
done
assert_clean "after 1024 instances"

# -C: a registration of what it says; what it cannot hold is refused first.
log "== -C"
fifo_regs() { qdiscctl -d -j kinds | jq -c '[.[] | select(.name == "fifo") | .registrations[] | [.id, .instances, .used]]'; }
must ip -n a link add d9 numtxqueues 16 numrxqueues 16 type dummy
must ip -n a link add d8 numtxqueues 100 numrxqueues 100 type dummy
must qd -C instances=100 add dev d9 root mq fifo
assert_eq "$(fifo_regs)" '[["qdiscctl_fifo",100,16]]' "-C instances=100"
# A registration with less than -C asks for is not used: a further one is made.
must qd -C instances=200 add dev d8 root mq fifo
assert_eq "$(fifo_regs)" '[["qdiscctl_fifo",100,16],["qdiscctl_fifo.1",200,100]]' "-C instances=200 beside it"
must qd del dev d8 root
# More than a registration may hold: refused before anything is installed.
expect_fail 1 '100 instances are needed but a registration holds at most 64' \
	qd -C instances=64 add dev d8 root mq fifo
assert_no_match "$(in_a tc qdisc show dev d8)" 'mq|qdiscctl' "nothing on d8"
assert_eq "$(fifo_regs)" '[["qdiscctl_fifo",100,16]]' "nothing registered for it"
# An option beyond a capacity's default: a registration that holds it.
cap_of() { qdiscctl -d -j kinds | jq -c --arg id "$1" '.[] | .registrations[] | select(.id == $id) | .capacity'; }
must ip -n a link add dq type dummy
must qd add dev dq root handle 1: fifo limit 10000
id=$(in_a tc qdisc show dev dq | awk '{ print $2 }')
assert_eq "$(cap_of "$id")" '{"packets":16384}' "limit 10000: a ring of 16384"
assert_eq "$(qd -j show dev dq | jq '.[0].options.limit')" 10000 "the limit"
expect_fail 1 "limit 20000 is more than $id holds \\(packets 16384\\)" qd change dev dq root limit 20000
assert_eq "$(qd -j show dev dq | jq '.[0].options.limit')" 10000 "a refused change changes nothing"
must qd replace dev dq root fifo limit 20000
id2=$(in_a tc qdisc show dev dq | awk '{ print $2 }')
assert_eq "$(cap_of "$id2")" '{"packets":32768}' "replace moved it to a ring of 32768"
must qd del dev dq root
# With no registration that holds it, -C may not ask for less than the options need.
expect_fail 1 'limit needs packets 32768, more than -C packets=4096' qd -C packets=4096 add dev dq root fifo limit 20000
expect_fail 255 'fifo has no capacity "flows"' qd -C flows=10 add dev d9 root fifo
expect_fail 255 'instances "0" is not a number from 1 to 65536' qd -C instances=0 add dev d9 root fifo
must qd del dev d9 root
# tc beyond a registration's slots: the kernel refuses, nothing is leaked.
must ip -n a link add t0 type dummy
must ip -n a link add t1 type dummy
must ip -n a link add t2 type dummy
must qd -C instances=2 add dev t0 root fifo
tid=$(in_a tc qdisc show dev t0 | awk '{ print $2 }')
must in_a tc qdisc add dev t1 root "$tid"
in_a tc qdisc add dev t2 root "$tid" 2>/tmp/tc.err && fail "a third instance in 2 slots"
log "tc: $(cat /tmp/tc.err)"
assert_match "$(cat /tmp/tc.err)" 'No space left on device' "the kernel's refusal"
assert_no_match "$(in_a tc qdisc show dev t2)" qdiscctl "nothing on t2"
assert_eq "$(qdiscctl -d -j kinds | jq -c --arg id "$tid" '.[] | .registrations[] | select(.id == $id) | [.used, .instances]')" "[2,2]" "two slots, both used"
must qd del dev t1 root
must in_a tc qdisc add dev t2 root "$tid"
must qd del dev t2 root
must qd del dev t0 root
assert_clean "after -C"
cleanup_netns
