# edt's lending among many backlogged cgroups at once, side by side with
# htb in the same boot: 8 cgroups with 500kbit each under 12mbit. Two at
# prio 0 borrow first, up to their ceil of 2500kbit; the 4 Mbit/s left go
# to the six at prio 1 by weight (1, 1, 2, 2, 3, 3; htb: quanta 1,500
# times the weight): 2.5, 2.5, 0.83, 0.83, 1.17, 1.17, 1.5 and 1.5 Mbit/s.
# Every sender offers twice that, so all 8 classes are backlogged and
# dequeue picks among their heaps at every packet: a class out of order
# in one gets a share that is not its own. Each share is the expected one
# within 5 %, and htb's within 5 % of edt's.
# vmtest-timeout: 300
# vmtest-seconds: 60
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

cg=/sys/fs/cgroup/lend
netns_pair --neigh
quiet_ns a b
big_sndbuf
rm -f /tmp/senders

# Sender i (0..7) is in cgroup lend/i and sends to port 9001 + i.
prio_of() { [ "$1" -lt 2 ] && echo 0 || echo 1; }
weight_of() { [ "$1" -lt 2 ] && echo 1 || echo $((($1 - 2) / 2 + 1)); }
ceil_of() { [ "$1" -lt 2 ] && echo 2500 || echo 12000; }
# bytes/s: 500kbit and a share of what is lent
want_of() {
	if [ "$1" -lt 2 ]; then
		echo 312500
	else
		echo $((62500 + 500000 * $(weight_of "$1") / 12))
	fi
}
set --
i=0
while [ "$i" -lt 8 ]; do
	must mkdir -p "$cg/$i"
	set -- "$@" cgroup "/lend/$i" rate 500kbit ceil "$(ceil_of $i)kbit" prio "$(prio_of $i)" \
		weight "$(weight_of $i)"
	i=$((i + 1))
done

senders_up() {
	for _i in 0 1 2 3 4 5 6 7; do
		[ -n "$(cat "$cg/$_i/cgroup.procs")" ] || return 1
	done
}

# window: res="B0 ... B7", the bytes/s (as the qdisc counts them) each
# port got at the receiver over 4 s, with every sender offering twice
# what it should get (blocking on its socket buffer beyond that).
window() {
	_i=0
	while [ "$_i" -lt 8 ]; do
		_pps=$(($(want_of "$_i") * 2 / 1442))
		/bin/sh -c "echo \$\$ >$cg/$_i/cgroup.procs && exec /usr/sbin/ip netns exec a \
			udpflows -d $IP_B -p $((9001 + _i)) -k 1 -n 0 -l 1400 -b 1048576 -r $_pps -t 30s" \
			>/tmp/tx.$_i 2>&1 &
		echo $! >>/tmp/senders
		_i=$((_i + 1))
	done
	wait_until 20 senders_up || fail "senders did not start"
	sleep 2
	sink_start 9001 -P 8 -H 42 -S 1s -W 20 -t 5s
	sink_wait 9001
	kill $(cat /tmp/senders) 2>/dev/null
	wait $(cat /tmp/senders) 2>/dev/null
	rm -f /tmp/senders
	res=$(awk '$1 == "flow" { for (i = 3; i < NF; i++) if ($i == "rate_bps") r[$4] = $(i + 1) }
		END { for (p = 9001; p <= 9008; p++) printf "%d ", r[p] / 8 }' "$TMPDIR/sink.9001")
}

# within GOT WANT PERCENT NAME
within() {
	fcmp "$1" ">=" "$2 * (100 - $3) / 100" && fcmp "$1" "<=" "$2 * (100 + $3) / 100" ||
		fail "$4: $1 bytes/s, expected $2 within $3 %"
}

must qd add dev va root edt rate 12mbit burst 48k "$@"
window
edt=$res
must qd del dev va root

# htb, classified by port: prio and quantum for prio and weight.
must in_a tc qdisc add dev va root handle 1: htb default 30
must in_a tc class add dev va parent 1: classid 1:1 htb rate 12mbit burst 48k cburst 48k \
	quantum 60000
i=0
while [ "$i" -lt 8 ]; do
	must in_a tc class add dev va parent 1:1 classid 1:$((100 + i)) htb rate 500kbit \
		ceil "$(ceil_of $i)kbit" prio "$(prio_of $i)" quantum $((1500 * $(weight_of $i))) \
		burst 48k cburst 48k
	must in_a tc filter add dev va parent 1: protocol ip u32 \
		match ip dport $((9001 + i)) 0xffff flowid 1:$((100 + i))
	i=$((i + 1))
done
must in_a tc class add dev va parent 1:1 classid 1:30 htb rate 100kbit ceil 12mbit
window
htb=$res
must in_a tc qdisc del dev va root

i=0
set -- $htb
for e in $edt; do
	log "cgroup lend/$i (prio $(prio_of $i), weight $(weight_of $i)): edt $e B/s, htb $1 B/s, want $(want_of $i) B/s"
	shift
	i=$((i + 1))
done
i=0
set -- $htb
for e in $edt; do
	within "$e" "$(want_of $i)" 5 "edt, cgroup lend/$i"
	within "$1" "$e" 5 "htb against edt, class 1:$((100 + i))"
	shift
	i=$((i + 1))
done
assert_clean
