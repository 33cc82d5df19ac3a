# Shared by the edt borrowing cases (49-edt-borrow*.sh): two UDP senders, A
# in cgroup /bw-a to port 9001 and B in /bw-b to port 9002, each offering
# 28 Mbit/s (above every ceil here) through va's root edt or htb (classes
# 1:11 and 1:12), and what each gets at the receiver. htb classifies by
# port (its cgroup classifier is cgroup v1's); the same senders feed both,
# one after the other in the same boot.
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

cg=/sys/fs/cgroup
for _d in bw-a bw-b; do
	must mkdir -p "$cg/$_d"
done
netns_pair --neigh
quiet_ns a b
big_sndbuf
rm -f /tmp/senders

# window SKIP UNTIL: a sink for both ports counting what arrives from SKIP
# after the first datagram until UNTIL after it starts, bytes as the
# qdisc counts them (+42: Ethernet, IPv4, UDP). Measured at the receiver,
# no tool reads the qdiscs in the window, which an emulated CPU would
# feel.
window() {
	sink_start 9001 -P 2 -H 42 -S "$1" -t "$2"
}

# send PORT CGROUP: a UDP sender in CGROUP with a blocking 1 MB socket
# buffer, so that edt's backpressure blocks it, until shares.
send() {
	/bin/sh -c "echo \$\$ >$cg/$2/cgroup.procs && exec /usr/sbin/ip netns exec a \
		udpflows -d $IP_B -p $1 -k 1 -n 0 -l 1400 -b 1048576 -r 2500 -t 60s" \
		>/tmp/tx.$1 2>&1 &
	echo $! >>/tmp/senders
}

# shares [COMMAND...]: once the window is over, COMMAND (while the senders
# still send), then res="A B": the bytes/s each port got in the window;
# the senders are stopped.
shares() {
	sink_wait 9001
	"$@"
	kill $(cat /tmp/senders) 2>/dev/null
	wait $(cat /tmp/senders) 2>/dev/null
	rm -f /tmp/senders
	res=$(awk '$1 == "flow" { for (i = 3; i < NF; i++) if ($i == "rate_bps") r[$4] = $(i + 1) }
		END { printf "%d %d\n", r[9001] / 8, r[9002] / 8 }' "$TMPDIR/sink.9001")
}

# agree EDT HTB WANT NAME: edt's share is the expected one within 5 %, and
# htb's in the same boot within 5 % of edt's.
agree() {
	log "$4: edt $1 B/s, htb $2 B/s, want $3 B/s"
	within "$1" "$3" 5 "$4 (edt)"
	within "$2" "$1" 5 "$4 (htb against edt)"
}

# htb_setup CLASS_A CLASS_B: htb at 24mbit with classes 1:11 (port 9001)
# and 1:12 (port 9002) given the words CLASS_A and CLASS_B, and a default
# class for anything else. Both qdiscs get bursts of 48 KB (16 ms at
# 24mbit, 1 % of a window's bytes at most): with the defaults (htb: a
# 1000 Hz tick's worth; edt: 1 ms, at least 16 packets) an emulated CPU
# that a busy host leaves waiting for more than a few ms loses that time.
EDT_BURST="burst 48k"
HTB_BURST="burst 48k cburst 48k"
htb_setup() {
	must in_a tc qdisc add dev va root handle 1: htb default 30
	must in_a tc class add dev va parent 1: classid 1:1 htb rate 24mbit $HTB_BURST
	must in_a tc class add dev va parent 1:1 classid 1:11 htb $1 $HTB_BURST
	must in_a tc class add dev va parent 1:1 classid 1:12 htb $2 $HTB_BURST
	must in_a tc class add dev va parent 1:1 classid 1:30 htb rate 100kbit ceil 24mbit
	must in_a tc filter add dev va parent 1: protocol ip u32 \
		match ip dport 9001 0xffff flowid 1:11
	must in_a tc filter add dev va parent 1: protocol ip u32 \
		match ip dport 9002 0xffff flowid 1:12
}

# both: res="A B" bytes/s with both sending, over 2.5 s after 1.5 s.
both() {
	window 1500ms 4s
	send 9001 bw-a
	send 9002 bw-b
	shares
}

# compare EDT_WORDS SHOW CLASS_A CLASS_B: edt="A B" with both sending
# through "edt rate 24mbit $EDT_BURST EDT_WORDS" (whose show must match SHOW), then
# htb="A B" through htb_setup CLASS_A CLASS_B.
compare() {
	must qd add dev va root edt rate 24mbit $EDT_BURST $1
	assert_match "$(qd show dev va)" "$2"
	both
	edt=$res
	must qd del dev va root
	htb_setup "$3" "$4"
	both
	htb=$res
	must in_a tc qdisc del dev va root
}
