# edt's lending by weight within a prio, side by side with htb's quantum
# in the same boot: two cgroups with 4mbit each under 24mbit, weights 3
# and 1 (htb: quanta 30000 and 10000), split the 16 Mbit/s spare 12:4 (16
# and 8 Mbit/s). Each share is the expected one within 5 %, and htb's
# within 5 % of edt's.
# vmtest-timeout: 150
# vmtest-seconds: 33
. /tests/borrow-lib.sh

compare "cgroup /bw-a rate 4mbit ceil 24mbit weight 3 cgroup /bw-b rate 4mbit ceil 24mbit weight 1" \
	"cgroup /bw-a rate 4Mbit ceil 24Mbit weight 3 cgroup /bw-b rate 4Mbit ceil 24Mbit " \
	"rate 4mbit ceil 24mbit quantum 30000" "rate 4mbit ceil 24mbit quantum 10000"

set -- $edt $htb
agree "$1" "$3" 2000000 "weight 3: its 4mbit and 3/4 of the spare"
agree "$2" "$4" 1000000 "weight 1: its 4mbit and 1/4 of the spare"
assert_clean
