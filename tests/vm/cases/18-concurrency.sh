# 16 qdiscctl processes at once: on 16 devices all succeed (with gc running
# among them); on one device exactly one wins and the others fail with one
# line and exit 2; nothing is left afterwards. They serialise on the lock
# on /sys/fs/bpf/qdiscctl.
# vmtest-timeout: 300
# vmtest-seconds: 26
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq

N=16
netns_pair --neigh
quiet_ns a b
i=0
while [ $i -lt $N ]; do
	must ip -n a link add d$i type dummy
	must ip -n a link set d$i up
	i=$((i + 1))
done

# at N CMD... (DEV is replaced by d0..d15 when per_dev=1): start N at once, wait for all.
at() {
	_i=0
	while [ $_i -lt $N ]; do
		_dev=va
		[ "$per_dev" = 1 ] && _dev=d$_i
		(
			eval "set -- $(echo "$*" | sed "s/DEV/$_dev/")"
			qdiscctl -n a "$@" >/tmp/c.$_i.out 2>/tmp/c.$_i.err
			echo $? >/tmp/c.$_i.rc
		) &
		_i=$((_i + 1))
	done
	wait
}
# rcs: the exit codes, sorted and counted ("16 0" or "1 0\n15 2").
rcs() { cat /tmp/c.*.rc | sort | uniq -c | sed 's/^ *//'; }
fifo_count() { qd -j show | jq '[.[] | select(.kind == "qdiscctl_fifo")] | length'; }

# 16 devices: every add succeeds, also with gc running alongside.
per_dev=1
for n in 1 2 3 4; do qdiscctl gc >/dev/null 2>&1 & done
at add dev DEV root fifo limit 30
wait
assert_eq "$(rcs)" "$N 0" "16 adds on 16 devices: $(cat /tmp/c.*.err)"
assert_eq "$(fifo_count)" $N "16 instances"
assert_eq "$(ls /sys/fs/bpf/qdiscctl)" fifo "one registration"
at del dev DEV root
assert_eq "$(rcs)" "$N 0" "16 dels on 16 devices: $(cat /tmp/c.*.err)"
assert_clean "after 16 dels"

# 16 mixed adds and dels on 16 devices, twice: half the devices hold one.
i=0
while [ $i -lt $N ]; do
	[ $((i % 2)) = 0 ] && must qd add dev d$i root fifo
	i=$((i + 1))
done
at replace dev DEV root fifo limit 5
assert_eq "$(rcs)" "$N 0" "16 replaces: $(cat /tmp/c.*.err)"
at del dev DEV root
assert_eq "$(rcs)" "$N 0" "16 dels after replace: $(cat /tmp/c.*.err)"
assert_clean "after mixed"

# One device: exactly one add wins; the others fail cleanly, all alike.
per_dev=0
at add dev DEV root fifo
assert_eq "$(rcs)" "$(printf '1 0\n%d 2' $((N - 1)))" "16 adds on one device"
assert_eq "$(cat /tmp/c.*.out)" "" "nothing on stdout"
for f in /tmp/c.*.err; do
	[ "$(wc -l <"$f")" -le 1 ] || fail "more than one error line: $(cat "$f")"
done
assert_eq "$(cat /tmp/c.*.err | sort -u | wc -l)" 1 "one error, the same for all: $(cat /tmp/c.*.err | sort -u)"
assert_match "$(cat /tmp/c.*.err | sort -u)" '^Error: ' "the kernel's refusal"
assert_eq "$(fifo_count)" 1 "one instance"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
st=$(qd -s -j show dev va)
assert_eq "$(jget "$st" '.[0].packets')" 2 "the winner passes the traffic"
bpftool -j map dump pinned /sys/fs/bpf/qdiscctl/fifo/pending >/tmp/p.json 2>/dev/null &&
	assert_eq "$(jq length /tmp/p.json)" 1 "the losers' options are gone"

# One device: exactly one del wins.
at del dev DEV root
assert_eq "$(rcs)" "$(printf '1 0\n%d 2' $((N - 1)))" "16 dels on one device: $(cat /tmp/c.*.err | sort -u)"
for f in /tmp/c.*.err; do
	[ "$(wc -l <"$f")" -le 1 ] || fail "more than one error line: $(cat "$f")"
done
assert_eq "$(cat /tmp/c.*.err | sort -u | wc -l)" 1 "one error, the same for all: $(cat /tmp/c.*.err | sort -u)"
assert_clean "after the races"
assert_eq "$(qdiscctl -j gc)" "[]" "gc finds nothing"
cleanup_netns
