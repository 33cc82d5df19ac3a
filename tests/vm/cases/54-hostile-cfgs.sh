# cfgs may hold any value: another program with access to the pinned map
# can write one no option allows. Each kind clamps what it reads where it
# uses it, so an instance keeps passing traffic, and a change back to sane
# options leaves it as it was: fq's quantum 0xffffffff (an s32 credit that
# is never positive would stall it), fifo's and prio's limits beyond their
# rings; edt's rates, burst, horizon, thresholds, timer slack and limits at
# 0 and 2^64-1, and a rate of 1 byte/s for the link or a cgroup, which
# holds traffic as such a rate must, but whose clock a change back to a
# sane rate pulls back at once (not 100 s later, when the ping that went
# at 1 byte/s would have left). The pinned maps are root's: a user cannot
# write them.
# vmtest-timeout: 600
# vmtest-seconds: 210
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl bpftool jq

netns_pair --neigh
quiet_ns a b

# le VALUE BYTES: VALUE's BYTES low bytes, little-endian, as bpftool prints them.
le() {
	_i=0 _out=
	while [ "$_i" -lt "$2" ]; do
		_out="$_out $(printf '%02x' $((($1 >> (8 * _i)) & 255)))"
		_i=$((_i + 1))
	done
	echo "${_out# }"
}

# poke KIND MARKER VALUE [BYTES [MAP]]: in va's instance's cfgs entry, or in
# the only entry of the kind's map MAP, write VALUE over the BYTES (4) bytes
# that hold MARKER (an option value set just before).
poke() {
	_map=/sys/fs/bpf/qdiscctl/$1/${5:-cfgs}
	if [ -n "$5" ]; then
		_key=$(bpftool -j map dump pinned "$_map" | jq -r '.[0].key | join(" ")')
	else
		_slot=$(qd -d -j show dev va | jq '.[0].options.qdiscctl_slot')
		_key="$((_slot & 255)) $(((_slot >> 8) & 255)) $(((_slot >> 16) & 255)) 0"
	fi
	_raw=$(bpftool -j map lookup pinned "$_map" key $_key | jq -r '.value | map(ltrimstr("0x")) | join(" ")')
	_m=$(le "$2" "${4:-4}")
	_v=$(le "$3" "${4:-4}")
	case " $_raw " in *" $_m "*) ;; *) fail "$1: $2 not found in cfgs ($_raw)" ;; esac
	_new=$(echo " $_raw " | sed "s/ $_m / $_v /")
	# shellcheck disable=SC2086
	must bpftool map update pinned "$_map" key $_key value hex $_new
}

# Pings run in this cgroup when it is set (edt's cgroup rates).
ping_cg=
ping_b() {
	if [ -n "$ping_cg" ]; then
		/bin/sh -c "echo \$\$ >$ping_cg/cgroup.procs && exec /usr/sbin/ip netns exec $NS_A \
			/usr/bin/ping $*"
	else
		in_a ping "$@"
	fi
}

# pings KIND WHAT: 100 pings get through (at most 5 lost) and the queue drains.
pings() {
	_got=$(ping_b -c 100 -i 0.01 -W 2 -q "$IP_B" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	[ "${_got:-0}" -ge 95 ] || fail "$1 $2: $_got of 100 pings answered"
	drained() { [ "$(in_a tc -s -j qdisc show dev va | jq '.[0].qlen')" = 0 ]; }
	wait_until 5 drained || fail "$1 $2: the queue does not drain: $(qd -s show dev va)"
}

# NET_TX softirqs so far, on every CPU.
net_tx() { awk '$1 == "NET_TX:" { n = 0; for (i = 2; i <= NF; i++) n += $i; print n }' /proc/softirqs; }

# hostile KIND OPTION MARKER VALUE SANE [OPTIONS]
hostile() {
	kind=$1 opt=$2 marker=$3 value=$4 sane=$5
	shift 5
	# shellcheck disable=SC2086
	must qd add dev va root "$kind" "$opt" "$marker" "$@"
	pings "$kind" "with $opt $marker"
	poke "$kind" "$marker" "$value"
	pings "$kind" "with $opt $value written into cfgs"
	must qd change dev va root "$opt" "$sane"
	pings "$kind" "after change $opt $sane"
	must qd del dev va root
}

# maxrate turns fq's fast slot off: every packet is charged to its flow's credit.
hostile fq quantum 123457 0xffffffff 3028 maxrate 10gbit
hostile fq initial_quantum 123457 0xffffffff 15140 maxrate 10gbit
hostile fifo limit 4093 0xffffffff 1000
hostile prio limit 1021 0xffffffff 1000

# edt: 64-bit values over 64-bit options. hostile8 OPTION AS_WRITTEN MARKER
# VALUE SANE [OPTIONS]: as hostile, with the option written AS_WRITTEN, which
# cfgs holds as MARKER, and VALUE written over its 8 bytes.
hostile8() {
	opt=$1 written=$2 marker=$3 value=$4 sane=$5
	shift 5
	# shellcheck disable=SC2086
	must qd add dev va root edt "$opt" "$written" "$@"
	pings edt "with $opt $marker"
	poke edt "$marker" "$value" 8
	pings edt "with $opt $value written into cfgs"
	must qd change dev va root "$opt" "$sane"
	pings edt "after change $opt $sane"
	must qd del dev va root
}
# Markers no other option's bytes hold: 123457kbps is 123457000 bytes/s,
# 123457us 123457000 ns.
hostile8 rate 123457kbps 123457000 0 1gbit
hostile8 rate 123457kbps 123457000 0xffffffffffffffff 1gbit
hostile8 burst 123457 123457 0xffffffffffffffff 64kb rate 1gbit
hostile8 horizon 123457us 123457000 0 10ms rate 1gbit
hostile8 horizon 123457us 123457000 0xffffffffffffffff 10ms rate 1gbit
hostile8 ce_threshold 123457us 123457000 0xffffffffffffffff 1ms rate 1gbit
# 50kbit is slower than the pings: each waits for the watchdog, and its
# slack decides when that fires.
hostile8 timer_slack 123457 123457 0xffffffffffffffff 10us rate 50kbit
must qd add dev va root edt rate 1gbit limit 123457 min_inflight 999
pings edt "with limit 123457"
poke edt 123457 0xffffffff
poke edt 999 0xffffffff
pings edt "with limit and min_inflight 0xffffffff written into cfgs"
must qd del dev va root

# slow WHAT: at 1 byte/s a burst's worth of pings leaves and the rest wait
# (as many as the socket's buffer lets ping send); no storm of NET_TX
# softirqs while they do.
slow() {
	_tx=$(net_tx)
	ping_b -c 100 -i 0.01 -W 1 -q "$IP_B" >/dev/null
	_tx=$(($(net_tx) - _tx))
	log "$1: $_tx NET_TX softirqs during 100 pings"
	[ "$_tx" -lt 2000 ] || fail "$1: $_tx NET_TX softirqs during 100 pings"
	_q=$(in_a tc -s -j qdisc show dev va | jq '.[0].qlen')
	[ "$_q" -gt 0 ] || fail "$1: nothing queued at 1 byte/s: $(qd -s show dev va)"
}
must qd add dev va root edt rate 123457kbps
poke edt 123457000 1 8
slow "edt rate 1 written into cfgs"
must qd change dev va root rate 1gbit
pings edt "after change rate 1gbit from 1 byte/s"
must qd del dev va root

cg=/sys/fs/cgroup/edt-hostile
must mkdir -p "$cg"
ping_cg=$cg
must qd add dev va root edt rate 1gbit cgroup "$cg" rate 123457kbps
pings edt "in a cgroup of rate 123457kbps"
must qd del dev va root
# The entries are a map of their own, keyed by the options' set and the
# cgroup. Poked before the cgroup's first packet: its class keeps a copy
# of its entry while the options' set stands (qdiscctl writes a new set
# for every change), so it is the copy that the cgroup's packets read.
must qd add dev va root edt rate 1gbit cgroup "$cg" rate 123457kbps
poke edt 123457000 1 8 cgroups
slow "edt cgroup rate 1 written into cfgs"
must qd change dev va root cgroup "$cg" rate 1gbit
pings edt "after change cgroup rate 1gbit from 1 byte/s"
must qd del dev va root
ping_cg=
rmdir "$cg"

# A user cannot write them: the pins are root's, 0600.
if [ -x /usr/bin/setpriv ]; then
	must qd add dev va root edt rate 1gbit
	/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
		bpftool map dump pinned /sys/fs/bpf/qdiscctl/edt/cfgs >/dev/null 2>&1 &&
		fail "user 65534 opened edt's cfgs"
	must qd del dev va root
fi
assert_clean "after the hostile options"
