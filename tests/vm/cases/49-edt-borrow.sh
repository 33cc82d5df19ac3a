# edt as htb's ceil: two cgroups "rate 4mbit ceil 20mbit" under 24mbit,
# side by side with htb classes of the same rates and ceilings in the same
# boot. Alone, a cgroup borrows up to its ceil (20 Mbit/s); together they
# share the link, each its rate and half the rest (12 Mbit/s). Each share
# is the expected one within 5 %, and htb's within 5 % of edt's.
# vmtest-timeout: 150
# vmtest-seconds: 40
. /tests/borrow-lib.sh

# run: res="ALONE_A BOTH_A BOTH_B" bytes/s, the qdisc set up.
run() {
	window 1500ms 4s
	send 9001 bw-a
	shares
	set -- $res
	both
	res="$1 $res"
}

must qd add dev va root edt rate 24mbit $EDT_BURST cgroup /bw-a rate 4mbit ceil 20mbit \
	cgroup /bw-b rate 4mbit ceil 20mbit
assert_match "$(qd show dev va)" \
	"cgroup /bw-a rate 4Mbit ceil 20Mbit cgroup /bw-b rate 4Mbit ceil 20Mbit"
run
edt=$res
must qd del dev va root

htb_setup "rate 4mbit ceil 20mbit" "rate 4mbit ceil 20mbit"
run
htb=$res
must in_a tc qdisc del dev va root

set -- $edt $htb
agree "$1" "$4" 2500000 "A alone, borrowing up to its ceil of 20mbit"
agree "$2" "$5" 1500000 "A with B: its 4mbit and half of the 16mbit spare"
agree "$3" "$6" 1500000 "B with A: its 4mbit and half of the 16mbit spare"
assert_clean
