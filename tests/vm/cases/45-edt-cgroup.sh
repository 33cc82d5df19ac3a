# edt's per-cgroup rates (HBM's unit of control): UDP senders in three
# cgroups, two of them given a rate, share an aggregate rate. Each limited
# cgroup (a socket in a child cgroup counts for its parent's entry) gets its
# own rate, whatever the third offers; the rest of the link goes to it; a rate changed live takes effect
# at once, nocgroup returns a cgroup to the common pool, and the per-cgroup
# counters of show -s add up with the qdisc's. Bad entries are refused
# with one line and change nothing.
# vmtest-timeout: 150
# vmtest-seconds: 33
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

cg=/sys/fs/cgroup
for d in edt-slow edt-slow/child edt-fast edt-other edt-gone; do
	must mkdir -p "$cg/$d"
done
netns_pair --neigh
quiet_ns a b
big_sndbuf

# send PORT CGROUP: a UDP sender in CGROUP offering 40 Mbit/s, far above
# every rate here, with a blocking 1 MB socket buffer, until stop_senders.
send() {
	sink_start "$1" -t 100s
	/bin/sh -c "echo \$\$ >$cg/$2/cgroup.procs && exec /usr/sbin/ip netns exec a \
		udpflows -d $IP_B -p $1 -k 1 -n 0 -l 1400 -b 1048576 -r 3500 -t 90s" \
		>/tmp/tx.$1 2>&1 &
	echo $! >>/tmp/senders
}
stop_senders() {
	kill $(cat /tmp/senders)
	wait $(cat /tmp/senders)
	for _p in 9001 9002 9003; do
		sink_stop $_p
	done
}

# rates SECONDS: bytes/s of /edt-slow, /edt-fast and of the whole qdisc over
# SECONDS of the run, from two readings of qdiscctl -s -j show, each timed
# at the middle of the qdiscctl run (a loaded emulated CPU makes it slow).
reading() {
	_t=$(uptime_cs)
	_j=$(qd -s -j show dev va)
	_t=$((($(uptime_cs) + _t) / 2))
	echo "$_t" $(printf '%s' "$_j" | jq -r '.[0] | [
		([.cgroups[] | select(.path == "/edt-slow") | .bytes] | add // 0),
		([.cgroups[] | select(.path == "/edt-fast") | .bytes] | add // 0),
		.bytes] | @sh')
}
rates() {
	_r0=$(reading)
	sleep "$1"
	set -- $_r0 $(reading)
	_dt=$(($5 - $1))
	echo $((($6 - $2) * 100 / _dt)) $((($7 - $3) * 100 / _dt)) $((($8 - $4) * 100 / _dt))
}

# aggregate GOT NAME: the aggregate rate (3000000 B/s) is never exceeded;
# below it only by what an emulated CPU shared by three senders fails to
# offer (40-edt measures its precision alone).
aggregate() {
	fcmp "$1" ">=" 2700000 && fcmp "$1" "<=" 3090000 ||
		fail "$2: $1 bytes/s, expected at most 3000000 (+3 %) and at least 2700000"
}

must qd add dev va root edt rate 24mbit cgroup /edt-slow rate 4mbit cgroup "$cg/edt-fast" rate 8mbit
show=$(qd show dev va)
assert_match "$show" "cgroup /edt-slow rate 4Mbit cgroup /edt-fast rate 8Mbit"

rm -f /tmp/senders
send 9001 edt-slow/child
send 9002 edt-fast
send 9003 edt-other
sleep 2
set -- $(rates 5)
log "slow $1 B/s, fast $2 B/s, all $3 B/s (want 500000, 1000000, 3000000)"
within "$1" 500000 5 "/edt-slow (its child's socket) at 4mbit"
within "$2" 1000000 5 "/edt-fast at 8mbit"
aggregate "$3" "the aggregate at 24mbit"

# Live: /edt-slow doubles; the others keep theirs and the aggregate holds.
must qd change dev va root cgroup /edt-slow rate 8mbit
assert_match "$(qd show dev va)" "cgroup /edt-slow rate 8Mbit cgroup /edt-fast rate 8Mbit"
sleep 1
set -- $(rates 5)
log "after change: slow $1 B/s, fast $2 B/s, all $3 B/s (want 1000000, 1000000, 3000000)"
within "$1" 1000000 5 "/edt-slow changed to 8mbit"
within "$2" 1000000 5 "/edt-fast still at 8mbit"
aggregate "$3" "the aggregate still at 24mbit"

# nocgroup: /edt-fast's sender joins the common pool and its row goes.
must qd change dev va root nocgroup /edt-fast
j=$(qd -s -j show dev va)
[ "$(jget "$j" '.[0].cgroups | length')" = 1 ] || fail "rows after nocgroup: $(jget "$j" '.[0].cgroups')"
[ "$(jget "$j" '.[0].options.cgroup | length')" = 1 ] || fail "entries after nocgroup: $j"
stop_senders

# The rows add up: no drops under backpressure, sent = bytes of the qdisc's
# packets in those cgroups; text shows them as lines of their own.
j=$(qd -s -j show dev va)
[ "$(jget "$j" '.[0].drops')" = 0 ] || fail "drops under backpressure: $j"
[ "$(jget "$j" '.[0].cgroups[0].drops')" = 0 ] || fail "row drops: $j"
[ "$(jget "$j" '.[0].cgroups[0].packets')" -gt 1000 ] || fail "row packets: $j"
assert_match "$(qd -s show dev va)" "  cgroup /edt-slow: sent [0-9]+ bytes [0-9]+ pkt \(dropped 0\)"

# Bad entries: one line naming the token; the instance keeps its entries.
before=$(qd show dev va)
expect_fail 255 '"/edt-none"' qd change dev va root cgroup /edt-none rate 1mbit
expect_fail 255 'expected "rate" after cgroup /edt-fast, not "speed"' \
	qd change dev va root cgroup /edt-fast speed 1mbit
expect_fail 255 'invalid cgroup rate "quick"' qd change dev va root cgroup /edt-fast rate quick
expect_fail 255 '"/edt-fast": no such cgroup here' qd change dev va root nocgroup /edt-fast
assert_eq "$(qd show dev va)" "$before"

# A cgroup removed while it has an entry is shown by its id.
must qd change dev va root cgroup /edt-gone rate 1mbit
id=$(stat -c %i "$cg/edt-gone")
must rmdir "$cg/edt-gone"
assert_match "$(qd show dev va)" "cgroup \(removed, id $id\) rate 1Mbit"
[ "$(jget "$(qd -j show dev va)" '.[0].options.cgroup[1].path')" = null ] || fail "removed cgroup's path"

must qd del dev va root
assert_clean
