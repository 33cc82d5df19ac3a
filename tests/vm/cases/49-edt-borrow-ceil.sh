# edt's ceil changed live, side by side with htb's in the same boot: two
# cgroups "rate 4mbit ceil 20mbit" under 24mbit, both sending; A's ceil
# goes to 8mbit and applies within a second (to packets already queued):
# A gets 8 Mbit/s and B the rest (16). show -s counts the bytes A borrowed
# and its rate. Each share is the expected one within 5 %, and htb's within
# 5 % of edt's.
# vmtest-timeout: 150
# vmtest-seconds: 32
. /tests/borrow-lib.sh

# run CHANGE...: res="A B" bytes/s over 2.5 s from about a second after
# CHANGE ran, the qdisc set up; $after runs at the end of the window.
after=:
run() {
	window 2500ms 5s
	send 9001 bw-a
	send 9002 bw-b
	sleep 1.3
	must "$@"
	shares $after
}
row() { jget "$j" ".[0].cgroups[] | select(.path == \"/bw-a\") | .$1"; }
# rows: j is show -s -j read three times, each 0.3 s after the last (the
# first after the sink ended), and rates="R1 R2 R3" are /bw-a's rates in
# those reads. Each rate is of the last 100 ms, and the emulated CPUs take
# turns on one host thread: the sink's ending, or a host that stops them
# for 20 ms, takes a fifth off one rate.
rows() {
	rates=
	for _i in 1 2 3; do
		sleep 0.3
		j=$(qd -s -j show dev va)
		rates="$rates $(row rate_est)"
	done
}

must qd add dev va root edt rate 24mbit $EDT_BURST cgroup /bw-a rate 4mbit ceil 20mbit \
	cgroup /bw-b rate 4mbit ceil 20mbit
after=rows
run qd change dev va root cgroup /bw-a rate 4mbit ceil 8mbit cgroup /bw-b rate 4mbit ceil 20mbit
edt=$res
# The rows at the end of the window: A sent its 4mbit on its guarantee and
# borrowed the rest (of 20 Mbit/s, then 8), and its rate (the middle one of
# the three reads) is its new ceil.
log "edt row /bw-a: $(row bytes) bytes, $(row borrowed) borrowed, rates$rates B/s"
fcmp "$(row borrowed)" ">" "$(row bytes) / 3" && fcmp "$(row borrowed)" "<" "$(row bytes)" ||
	fail "/bw-a borrowed $(row borrowed) of $(row bytes) bytes"
within "$(echo $rates | tr ' ' '\n' | sort -n | sed -n 2p)" 1000000 10 "/bw-a's rate in show -s"
assert_match "$(qd -s show dev va)" \
	"  cgroup /bw-a: sent [0-9]+ bytes [0-9]+ pkt \(dropped 0\) borrowed [0-9]+ bytes rate [0-9.]+[KM]bit"
must qd del dev va root

htb_setup "rate 4mbit ceil 20mbit" "rate 4mbit ceil 20mbit"
after=:
run in_a tc class change dev va parent 1:1 classid 1:11 htb rate 4mbit ceil 8mbit $HTB_BURST
htb=$res
must in_a tc qdisc del dev va root

set -- $edt $htb
agree "$1" "$3" 1000000 "A after its ceil changed to 8mbit"
agree "$2" "$4" 2000000 "B with A at 8mbit: the rest"
assert_clean
