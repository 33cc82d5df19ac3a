# mq: "add dev va root handle 1: mq KIND OPTIONS" on a 4-queue veth puts
# an mq root with one KIND instance per tx queue; traffic of several flows
# moves several children's counters; show and show -s match tc's tree,
# layout and JSON; change on the root changes every child (fifo, fq, edt); replace of the
# same kind keeps the children; del leaves nothing. Errors leave nothing.
# vmtest-timeout: 240
# vmtest-seconds: 70
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

NTX=4
# mq_pair [TXQ]: a/b joined by va/vb with TXQ (4) tx and rx queues each.
mq_pair() {
	netns_pair --neigh --queues "${1:-$NTX}"
	quiet_ns a b
}

# heads TOOL: "kind handle root|parent X" of every qdisc on va, in order.
heads() {
	case $1 in
	tc) in_a tc qdisc show dev va ;;
	qd) qd show dev va ;;
	esac | awk '$1 == "qdisc" { print $2, $3, $4, $5 }'
}

# no_mq: va has no mq and no qdiscctl instance, and nothing of qdiscctl is left.
no_mq() {
	_q=$(in_a tc qdisc show dev va)
	assert_no_match "$_q" 'qdisc (mq|qdiscctl_)' "$1: nothing installed"
	assert_clean "$1"
}

# traffic: 8 UDP flows (sockets) from a to b, 3000 datagrams.
traffic() {
	KIND=$1 sink_start 9000 -P 8 -i 1s -t 30s -q
	must in_a udpflows -d "$IP_B" -p 9000 -P 8 -k 8 -n 3000 -l 500 -r 3000 >/dev/null
	sink_wait 9000
}

check_kind() {
	kind=$1
	shift
	log "== mq $kind $*"
	mq_pair
	must qd add dev va root handle 1: mq "$kind" "$@"

	# The tree, as tc lists it: the mq root, then one child per queue.
	tch=$(heads tc)
	log "tc: $(echo "$tch" | tr '\n' ';')"
	assert_eq "$(echo "$tch" | head -n 1)" "mq 1: root " "the root"
	assert_eq "$(echo "$tch" | grep -c "^qdiscctl_$kind [0-9a-f]*: parent 1:[1-$NTX]\$")" "$NTX" "$NTX children"
	assert_eq "$(echo "$tch" | awk '$3 == "parent" { print $4 }' | sort | tr '\n' ' ')" "1:1 1:2 1:3 1:4 " "one per class"
	assert_eq "$(heads qd)" "$tch" "show lists the tree as tc does"
	slots=$(qd -d show dev va | grep -o 'slot [0-9]*' | sort -u | wc -l)
	assert_eq "$slots" "$NTX" "every child its own instance"

	traffic "$kind"
	tcj=$(in_a tc -s -j qdisc show dev va)
	qdj=$(qd -s -j show dev va)
	f='[.[] | {kind, handle, parent, root, bytes, packets, drops, overlimits, requeues, backlog, qlen}]'
	assert_eq "$(jget "$qdj" "$f | tojson")" "$(jget "$tcj" "$f | tojson")" "show -s -j = tc's"
	assert_eq "$(jget "$qdj" '[.[] | keys_unsorted[:8]] | tojson')" \
		"$(jget "$tcj" '[.[] | keys_unsorted[:8]] | tojson')" "the same keys in the same order"
	moved=$(jget "$qdj" "[.[1:][] | select(.packets > 0)] | length")
	log "children's packets: $(jget "$qdj" '[.[1:][] | .packets] | tojson'), root $(jget "$qdj" '.[0].packets')"
	[ "$moved" -ge 2 ] || fail "only $moved of $NTX children carried traffic: $qdj"
	assert_eq "$(jget "$qdj" '.[0].packets')" "$(jget "$qdj" '[.[1:][] | .packets] | add')" "mq's total"
	[ "$(jget "$qdj" '.[0].packets')" -ge 3000 ] || fail "not every datagram was counted"
	# The text layout: the same basic statistics lines, in the same places.
	assert_eq "$(qd -s show dev va | grep -E '^ (Sent|backlog)')" \
		"$(in_a tc -s qdisc show dev va | grep -E '^ (Sent|backlog)')" "show -s = tc -s"
}

check_kind fifo limit 200
assert_eq "$(jget "$(qd -j show dev va)" '[.[1:][] | .options.limit] | unique | tojson')" "[200]" "every child has the options"
# change on the root: every child, queue and counters kept.
before=$(jget "$(qd -s -j show dev va)" '[.[1:][] | .handle + " " + (.packets | tostring)] | tojson')
must qd change dev va root limit 300
after=$(qd -s -j show dev va)
assert_eq "$(jget "$after" '[.[1:][] | .options.limit] | unique | tojson')" "[300]" "change reached every child"
assert_eq "$(jget "$after" '[.[1:][] | .handle + " " + (.packets | tostring)] | tojson')" "$before" "same instances"
# replace with the same kind: in place, every child.
must qd replace dev va root mq fifo limit 50
after=$(qd -s -j show dev va)
assert_eq "$(jget "$after" '[.[1:][] | .options.limit] | unique | tojson')" "[50]" "replace reached every child"
assert_eq "$(jget "$after" '[.[1:][] | .handle + " " + (.packets | tostring)] | tojson')" "$before" "replace kept them"
# replace with another kind: new children under the same root.
must qd replace dev va root mq fq flow_limit 20
assert_eq "$(heads qd | grep -c '^qdiscctl_fq ')" "$NTX" "fq children"
assert_eq "$(bpftool struct_ops show | grep -c qdiscctl_fifo)" 0 "fifo's registration went with its last child"
must qd del dev va root
no_mq "del after replace"

check_kind fq flow_limit 50 quantum 3028
qdj=$(qd -j show dev va)
assert_eq "$(jget "$qdj" '[.[1:][] | .options.flow_limit] | unique | tojson')" "[50]" "fq options"
must qd change dev va root fq flow_limit 70
qdj=$(qd -j show dev va)
assert_eq "$(jget "$qdj" '[.[1:][] | .options.flow_limit] | unique | tojson')" "[70]" "fq change"
assert_eq "$(jget "$qdj" '[.[1:][] | .options.quantum] | unique | tojson')" "[3028]" "others kept"
expect_fail 255 'flow_limit' qd change dev va root flow_limit 0
assert_eq "$(jget "$(qd -j show dev va)" '[.[1:][] | .options.flow_limit] | unique | tojson')" "[70]" "a refused change changes no child"
must qd del dev va root
no_mq "del fq"

# edt: a child a queue, each with the whole rate; no tcx program, which
# serves a root edt only.
mq_pair
must qd add dev va root mq edt rate 10mbit
assert_eq "$(heads qd | grep -c '^qdiscctl_edt ')" "$NTX" "edt children"
assert_no_match "$(ip netns exec a bpftool net show dev va)" 'edt_ce_mark' "no tcx program under mq"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must qd change dev va root edt rate 20mbit
assert_eq "$(qd show dev va | grep -c '^qdisc qdiscctl_edt .* rate 20Mbit')" "$NTX" "edt change reached every child"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must qd del dev va root
no_mq "del edt"

# Errors: one line, nothing installed.
mq_pair
expect_fail 255 '"0"|limit' qd add dev va root mq fifo limit 0
no_mq "bad option"
expect_fail 255 'pfifo' qd add dev va root mq pfifo
expect_fail 255 'root' qd add dev va parent 1:1 mq fifo
expect_fail 255 'rate' qd add dev va root mq edt
no_mq "refused words"
must ip -n a link add d1 type dummy
expect_fail 1 'one tx queue' qd add dev d1 root mq fifo
no_mq "single queue"
# A registration of 8 slots (-C) with 4 in use: a 5-queue device gets a
# further registration of its own, all its children in it, and va is not
# touched.
must qd -C instances=8 add dev va root mq fq
must ip -n a link add vx numtxqueues 5 numrxqueues 5 type veth peer name vy
must qd -C instances=8 add dev vx root mq fq
assert_eq "$(in_a tc qdisc show dev vx | grep -c '^qdisc qdiscctl_fq\.1 ')" 5 "vx's children: $(in_a tc qdisc show dev vx)"
assert_eq "$(heads qd | grep -c '^qdiscctl_fq ')" "$NTX" "va untouched"
assert_eq "$(ls /sys/fs/bpf/qdiscctl | tr '\n' ' ')" "fq fq-1 " "two registrations"
# replace with the same kind rewrites the children where they are.
before=$(in_a tc qdisc show dev vx | awk '$2 == "qdiscctl_fq.1" { print $3 }' | sort | tr '\n' ' ')
must qd replace dev vx root mq fq flow_limit 33
assert_eq "$(in_a tc qdisc show dev vx | awk '$2 == "qdiscctl_fq.1" { print $3 }' | sort | tr '\n' ' ')" "$before" "the same children"
assert_eq "$(qd -j show dev vx | jq -c '[.[1:][] | .options.flow_limit] | unique')" "[33]" "with the new options"
assert_eq "$(ls /sys/fs/bpf/qdiscctl | tr '\n' ' ')" "fq fq-1 " "no registration left over"
must qd del dev vx root
assert_eq "$(ls /sys/fs/bpf/qdiscctl)" fq "the further one goes with its last instance"
# 9 queues never fit a registration of 8 slots: refused before anything.
must ip -n a link add vz numtxqueues 9 numrxqueues 9 type dummy
must qd del dev va root
expect_fail 1 '9 instances are needed but a registration holds at most 8' qd -C instances=8 add dev vz root mq fq
no_mq "too many queues"
# Exclusive add onto an existing root; del of the whole tree.
must qd add dev va root handle 1: mq fifo
expect_fail 2 '' qd add dev va root mq fifo
must qd del dev va root
no_mq "final del"
cleanup_netns
