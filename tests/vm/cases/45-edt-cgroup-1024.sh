# 1,024 cgroup entries on one edt: entries and their classes live in maps
# of the registration, looked up by the socket's cgroup, so an instance
# takes as many as a node has pods. UDP senders in 16 of the 1,024
# cgroups, each with a rate of its own (400 kbit/s to 1.9 Mbit/s, 18.4
# Mbit/s together under an aggregate 24 Mbit/s) and each offering twice
# it, get their rates within 2 %, measured at the receiver; htb classes of
# the same rates in the same boot get theirs within 5 %. A 1,025th entry is
# refused with one line; show -s has a row for every entry.
# vmtest-timeout: 300
# vmtest-seconds: 90
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq bpftool udpflows udpsink

cg=/sys/fs/cgroup/many
must mkdir -p "$cg"
netns_pair --neigh
quiet_ns a b
big_sndbuf

# Sender i (0..15) is in cgroup 64 * i + 7, sends to port 9001 + i, and
# has 400 + 100 * i kbit/s; every other cgroup has 1 Mbit/s.
rate_of() { echo $((400 + 100 * $1)); }
set --
n=0
while [ "$n" -lt 1024 ]; do
	must mkdir -p "$cg/$n"
	r=1000
	[ $((n % 64)) = 7 ] && r=$(rate_of $((n / 64)))
	set -- "$@" cgroup "/many/$n" rate "${r}kbit"
	n=$((n + 1))
done

cgdir_of() { echo "$cg/$((64 * $1 + 7))"; }
# twice sender i's rate
pps_of() { echo $(($(rate_of "$1") * 1000 / 8 * 2 / 1442)); }

must qd add dev va root edt rate 24mbit "$@"
j=$(qd -j show dev va)
[ "$(jget "$j" '.[0].options.cgroup | length')" = 1024 ] || fail "entries: $(jget "$j" '.[0].options.cgroup | length')"
assert_match "$(qd show dev va)" "cgroup /many/7 rate 400Kbit .*cgroup /many/967 rate 1900Kbit"
cg_window 16 cgdir_of pps_of
edt=$res

j=$(qd -s -j show dev va)
[ "$(jget "$j" '.[0].cgroups | length')" = 1024 ] || fail "rows: $(jget "$j" '.[0].cgroups | length')"
[ "$(jget "$j" '[.[0].cgroups[] | select(.packets > 0)] | length')" = 16 ] ||
	fail "rows that sent: $(jget "$j" '[.[0].cgroups[] | select(.packets > 0) | .path]')"

# A 1,025th entry: one line, nothing changed.
before=$(qd show dev va)
must mkdir -p "$cg/extra"
expect_fail 255 'already 1024 cgroups' qd change dev va root cgroup /many/extra rate 1mbit
assert_eq "$(qd show dev va)" "$before"
# A change rewrites the set whole; the old one goes.
must qd change dev va root cgroup /many/1 rate 2mbit
assert_match "$(qd show dev va)" "cgroup /many/1 rate 2Mbit"
[ "$(bpftool -j map show pinned /sys/fs/bpf/qdiscctl/edt/cgroup_list | jq .max_entries)" -ge 1024 ] ||
	fail "cgroup_list too small"
[ "$(bpftool -j map dump pinned /sys/fs/bpf/qdiscctl/edt/cgroup_list | jq length)" = 1024 ] ||
	fail "entries left behind after change"
must qd del dev va root

# htb, classified by port, with the same rates.
htb_words_of() { echo rate "$(rate_of "$1")kbit"; }
htb_by_port 16 24mbit htb_words_of
cg_window 16 cgdir_of pps_of
htb=$res
must in_a tc qdisc del dev va root

i=0
set -- $htb
for e in $edt; do
	want=$(($(rate_of $i) * 1000 / 8))
	log "cgroup $((64 * i + 7)): edt $e B/s, htb $1 B/s, want $want B/s"
	within "$e" "$want" 2 "edt, cgroup $((64 * i + 7)) at $(rate_of $i)kbit"
	# htb is the yardstick, not the subject: within 5 %, as in 49-edt-borrow*.
	within "$1" "$want" 5 "htb, class 1:$((100 + i)) at $(rate_of $i)kbit"
	shift
	i=$((i + 1))
done

# More entries than the registration's pool of them: one line naming the
# capacity, and nothing made (the 4,096-entry registration went with its
# last instance).
set --
n=0
while [ "$n" -lt 65 ]; do
	set -- "$@" cgroup "/many/$n" rate 1mbit
	n=$((n + 1))
done
expect_fail 1 'more than .* has room for \(its capacity cgroups.*-C cgroups=N' \
	qd -C cgroups=64 add dev va root edt rate 24mbit "$@"
assert_clean
