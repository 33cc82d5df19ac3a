# edt's lending by priority, side by side with htb's prio in the same
# boot: two cgroups with 4mbit each under 24mbit; the prio 0 one borrows
# first, up to its ceil (14 Mbit/s), the prio 1 one gets the rest (10).
# Each share is the expected one within 5 %, and htb's within 5 % of edt's.
# vmtest-timeout: 150
# vmtest-seconds: 33
. /tests/borrow-lib.sh

compare "cgroup /bw-a rate 4mbit ceil 14mbit prio 0 cgroup /bw-b rate 4mbit ceil 20mbit prio 1" \
	"cgroup /bw-a rate 4Mbit ceil 14Mbit cgroup /bw-b rate 4Mbit ceil 20Mbit prio 1" \
	"rate 4mbit ceil 14mbit prio 0" "rate 4mbit ceil 20mbit prio 1"

set -- $edt $htb
agree "$1" "$3" 1750000 "prio 0 borrows first, up to its ceil of 14mbit"
agree "$2" "$4" 1250000 "prio 1 gets what is left"
assert_clean
