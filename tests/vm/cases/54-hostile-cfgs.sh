# cfgs may hold any value: another program with access to the pinned map
# can write one no option allows. Each kind clamps what it reads where it
# uses it, so an instance keeps passing traffic, and a change back to sane
# options leaves it as it was: fq's quantum 0xffffffff (an s32 credit that
# is never positive would stall it), fifo's and prio's limits beyond their
# rings.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl bpftool jq

netns_pair --neigh
quiet_ns a b

# poke KIND MARKER VALUE: in va's instance's cfgs entry, write the 32-bit
# VALUE over the 4 bytes that hold MARKER (an option value set just before).
poke() {
	_map=/sys/fs/bpf/qdiscctl/$1/cfgs
	_slot=$(qd -d -j show dev va | jq '.[0].options.qdiscctl_slot')
	_key="$((_slot & 255)) $(((_slot >> 8) & 255)) $(((_slot >> 16) & 255)) 0"
	_raw=$(bpftool -j map lookup pinned "$_map" key $_key | jq -r '.value | map(ltrimstr("0x")) | join(" ")')
	_m=$(printf '%02x %02x %02x %02x' $(($2 & 255)) $((($2 >> 8) & 255)) $((($2 >> 16) & 255)) $((($2 >> 24) & 255)))
	_v=$(printf '%02x %02x %02x %02x' $(($3 & 255)) $((($3 >> 8) & 255)) $((($3 >> 16) & 255)) $((($3 >> 24) & 255)))
	case " $_raw " in *" $_m "*) ;; *) fail "$1: $2 not found in cfgs ($_raw)" ;; esac
	_new=$(echo " $_raw " | sed "s/ $_m / $_v /")
	# shellcheck disable=SC2086
	must bpftool map update pinned "$_map" key $_key value hex $_new
}

# pings KIND WHAT: 100 pings get through (at most 5 lost) and the queue drains.
pings() {
	_got=$(in_a ping -c 100 -i 0.01 -W 2 -q "$IP_B" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	[ "${_got:-0}" -ge 95 ] || fail "$1 $2: $_got of 100 pings answered"
	drained() { [ "$(in_a tc -s -j qdisc show dev va | jq '.[0].qlen')" = 0 ]; }
	wait_until 5 drained || fail "$1 $2: the queue does not drain: $(qd -s show dev va)"
}

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
assert_clean "after the hostile options"
