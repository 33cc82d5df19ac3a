# Teardown frees every packet: for fifo, fq and edt, a qdisc holding
# packets of local UDP sockets (fq and edt paced far below what is
# offered, fifo in front of a slowed peer) is deleted, replaced (BPF ->
# BPF, BPF -> native, and native -> BPF), reset by the kernel (device
# down, carrier loss; on 7.3 a txqueuelen change no longer resets), its device removed, or its
# network namespace removed. A backlog is shown first, with the senders
# stopped so nothing new arrives; afterwards the senders' socket memory
# (ss's Send-Q of a UDP socket: sk_wmem_alloc, what its packets in flight
# are charged; the test kernel has no udp_diag for ss -m) is back to 0, a
# reset qdisc is empty, and the run's dmesg check (leaks, refcounts,
# warnings) stays clean.
#
# A local socket pins its network namespace until its last packet is
# freed, so a namespace with packets of its own sockets queued goes only
# once they have left at their pace (fq's and edt's senders have smaller
# buffers there, so that this takes seconds): that case checks the instance is then
# destroyed and its slot freed.
#
# vmtest.teardown_kinds=fifo,fq (default fifo,fq,edt) runs some kinds only,
# vmtest.teardown_ways=del,down,netns some of the ways only (del, other,
# pfifo, native, down, carrier, removal, netns; default all of them).
# vmtest-timeout: 900
# vmtest-seconds: 250
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink bpftool

KINDS=$(echo "${VMTEST_TEARDOWN_KINDS:-fifo,fq,edt}" | tr , ' ')
WAYS=${VMTEST_TEARDOWN_WAYS:-del,other,pfifo,native,down,carrier,removal,netns}
for _w in $(echo "$WAYS" | tr , ' '); do
	case $_w in
	del | other | pfifo | native | down | carrier | removal | netns) ;;
	*) fail "vmtest.teardown_ways: no way \"$_w\"" ;;
	esac
done
# way NAME: whether this run tears down the NAME way.
way() { case ,$WAYS, in *,$1,*) return 0 ;; esac; return 1; }
SENDER=

# opts KIND: the options that make KIND hold packets.
opts() {
	case $1 in
	fifo) echo "limit 4000" ;;
	fq) echo "maxrate 100kbit flow_limit 200" ;;
	edt) echo "rate 500kbit" ;;
	esac
}
# other KIND: a BPF kind to replace KIND with.
other() {
	case $1 in
	fifo) echo "fq" ;;
	fq) echo "edt rate 1gbit" ;;
	edt) echo "fifo" ;;
	esac
}

qlen() { in_a tc -s -j qdisc show dev va | jq '[.[] | .qlen] | add // 0'; }
# wmem: the sum of the Send-Q (sk_wmem_alloc) of a's UDP sockets.
wmem() { in_a ss -uan | awk 'NR > 1 { s += $3 } END { print s + 0 }'; }
freed() { [ "$(wmem)" = 0 ]; }
backlogged() { [ "$(qlen)" -ge 20 ]; }
# Slots in use in every registration's slots map.
insts_in_use() {
	for _id in $(bpftool -j map show | jq -r '.[] | select(.name == "slots") | .id'); do
		bpftool -j map dump id "$_id" | jq '[.[] | select(.value[0] != "0x00")] | length'
	done | awk '{ s += $1 } END { print s + 0 }'
}

# Anchors: an instance of each BPF kind the run uses on a dummy device of
# its own for the whole case, so that a scenario's del or replace does not
# unregister the kind and the next one's add register it again (a
# verifier run of seconds under TCG, for up to 24 scenarios).
# Unregistering is 17-kill's.
ANCHORS=$(for _k in $KINDS; do
	echo "$_k"
	! way other || other "$_k" | cut -d' ' -f1
done | sort -u)
for _k in $ANCHORS; do
	must ip link add "anchor-$_k" type dummy
	must qdiscctl add dev "anchor-$_k" root "$_k" $([ "$_k" != edt ] || echo rate 1gbit)
done
# Every instance but the anchors' is gone.
no_insts() { [ "$(insts_in_use)" = "$(echo "$ANCHORS" | wc -l)" ]; }

# start INSTALL...: a fresh pair, INSTALL run to put the qdisc there, 4
# senders flooding through it until it holds a backlog, then stopped.
start() {
	netns_pair --neigh
	quiet_ns a b
	big_sndbuf
	[ "$KIND" != fifo ] || slow_peer
	"$@" || kfail "install: $*"
	SINK_CPU=0 sink_start 9000 -q
	/usr/sbin/ip netns exec a taskset -c 0 udpflows -d "$IP_B" -p 9000 -k 4 -n 0 -t 300s \
		-l 1400 -b "${SNDBUF:-4000000}" >/dev/null 2>&1 &
	SENDER=$!
	wait_until 20 backlogged || kfail "$SCEN: no backlog formed: $(in_a tc -s qdisc show dev va)"
	kill -STOP "$SENDER"
	q=$(qlen) t=$(wmem)
	[ "$q" -gt 0 ] && [ "$t" -gt 0 ] || kfail "$SCEN: nothing held when stopped (qlen $q, wmem $t)"
	log "[$KIND] $SCEN: qlen $q, senders' wmem $t"
}

# finish: senders' memory back to 0, then everything goes.
finish() {
	wait_until 10 freed || kfail "$SCEN: senders still charged: wmem $(wmem); $(in_a tc -s qdisc show dev va 2>&1)"
	kill -9 "$SENDER" 2>/dev/null
	wait "$SENDER" 2>/dev/null
	sink_stop 9000
	unslow_peer
	qd del dev va root 2>/dev/null
	cleanup_netns
}

# after_reset: the same qdisc is still there, and empty.
after_reset() {
	assert_match "$(in_a tc qdisc show dev va)" "qdisc qdiscctl_$KIND " "[$KIND] $SCEN: the qdisc stays"
	assert_eq "$(qlen)" 0 "[$KIND] $SCEN: empty after the reset"
}

add_kind() { qd add dev va root "$KIND" $(opts "$KIND"); }
add_native() { in_a tc qdisc add dev va root fq maxrate 100kbit; }

for KIND in $KINDS; do
	if way del; then
		SCEN=del
		start add_kind
		must qd del dev va root
		finish
	fi

	if way other; then
		SCEN="replace by $(other "$KIND")"
		start add_kind
		must qd replace dev va root $(other "$KIND")
		finish
	fi

	if way pfifo; then
		SCEN="replace by pfifo"
		start add_kind
		must qd replace dev va root pfifo
		finish
	fi

	if way native; then
		SCEN="native fq replaced by $KIND"
		start add_native
		must qd replace dev va root "$KIND" $(opts "$KIND")
		finish
	fi

	if way down; then
		SCEN="device down"
		start add_kind
		must ip -n a link set va down
		wait_until 10 freed || kfail "$SCEN: senders still charged while down: wmem $(wmem)"
		must ip -n a link set va up
		after_reset
		finish
	fi

	if way carrier; then
		SCEN="carrier loss"
		start add_kind
		must ip -n b link set vb down
		wait_until 10 freed || kfail "$SCEN: senders still charged without carrier: wmem $(wmem)"
		after_reset
		finish
	fi

	if way removal; then
		SCEN="device removal"
		start add_kind
		must ip -n a link del va
		finish
	fi

	if way netns; then
		# The namespace goes only once the queue has left: smaller send
		# buffers for the paced kinds (fifo's peer drains thousands per second).
		SCEN="netns removal"
		[ "$KIND" = fifo ] || SNDBUF=100000
		start add_kind
		unset SNDBUF
		kill -9 "$SENDER"
		wait "$SENDER" 2>/dev/null
		sink_stop 9000
		unslow_peer
		cleanup_netns a
		wait_until 60 no_insts || kfail "$SCEN: $(insts_in_use) instances left"
		cleanup_netns
		log "[$KIND] $SCEN: the instance went"
	fi
done
for _k in $ANCHORS; do
	ip link del "anchor-$_k"
done
# The namespace's removal and the anchors' left the registrations without
# instances; the next qdiscctl run that tidies removes them.
ip link add tidy0 type dummy
must qdiscctl add dev tidy0 root fifo
must qdiscctl del dev tidy0 root
ip link del tidy0
assert_clean
