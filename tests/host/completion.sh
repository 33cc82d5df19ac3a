#!/usr/bin/env bash
# completions/qdiscctl.bash in real bash with bash-completion's
# _init_completion: each case is a command line (the cursor at its end) and
# the set of words Tab must offer. Words are split as readline splits them
# (':' is a word of its own), and the completion runs under `set -u`.
#
# Devices and handles come from a private network namespace (unshare -n)
# with a dummy device and tc's own qdiscs (the host kernel has no BPF
# qdiscs), plus a named namespace for -n.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bc=/usr/share/bash-completion/bash_completion

if [ ! -r "$bc" ] || [ ! -x "$top/qdiscctl" ]; then
	echo "SKIP completion: needs $bc and a built ./qdiscctl"
	exit 77
fi

# Devices and handles need a namespace of our own: re-run inside one.
if [ -z "${QD_COMP_INNER-}" ]; then
	if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
		QD_COMP_INNER=1 exec unshare -n "$0" "$@"
	fi
	QD_COMP_INNER=0 exec "$0" "$@"
fi

ns=qdcomp
mkdev()
{
	ip link add "$1" type dummy 2>/dev/null || ip link add "$1" type ifb
}
netcases=$QD_COMP_INNER
if [ "$netcases" = 1 ]; then
	trap 'ip netns del "$ns" 2>/dev/null' EXIT
	ip netns del "$ns" 2>/dev/null
	# Kernels without the dummy module (some CI VMs) have ifb: as good here.
	if ! { ip link set lo up && mkdev d0 && ip link set d0 up &&
		tc qdisc add dev d0 root handle 1: htb &&
		tc class add dev d0 parent 1: classid 1:1 htb rate 1mbit &&
		tc qdisc add dev d0 parent 1:1 handle 10: pfifo &&
		ip netns add "$ns" && ip netns exec "$ns" bash -c "$(declare -f mkdev); mkdev n0" &&
		tc -n "$ns" qdisc add dev n0 root handle 5: pfifo; }; then
		echo "cannot set up the test namespaces; device cases skipped"
		netcases=0
	fi
fi

PATH=$top:$PATH
# bash-completion is not written for nounset; only our function runs under it.
# shellcheck source=/dev/null
. "$bc"
# shellcheck source=../../completions/qdiscctl.bash
. "$top/completions/qdiscctl.bash"

pass=0 fail=0

# complete LINE: print the sorted, unique candidates for the end of LINE.
complete_line()
{
	local line=$1 tok
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_WORDS=()
	for tok in $line; do
		# readline makes each ':' (in COMP_WORDBREAKS) a word of its own.
		while [[ $tok == *:* ]]; do
			[[ -n ${tok%%:*} ]] && COMP_WORDS+=("${tok%%:*}")
			COMP_WORDS+=(:)
			tok=${tok#*:}
		done
		[[ -n $tok ]] && COMP_WORDS+=("$tok")
	done
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	(
		set -u
		_qdiscctl qdiscctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || true
		[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}"
	) 2>&1 | sed "s/^\$/''/" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# check LINE WANT [contains]: exact set, or WANT's words among the candidates.
check()
{
	local got want w ok=1
	got=$(complete_line "$1")
	want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//')
	if [ "${3-}" = contains ]; then
		for w in $want; do
			[[ " $got " == *" $w "* ]] || ok=0
		done
	else
		[ "$got" = "$want" ] || ok=0
	fi
	if [ $ok = 1 ]; then
		echo "PASS completion: '$1' -> $want"
		pass=$((pass + 1))
	else
		echo "FAIL completion: '$1'"
		echo "      want: $want"
		echo "       got: $got"
		fail=$((fail + 1))
	fi
}

q()
{
	qdiscctl __complete "$@" | tr '\n' ' '
}

# Pure cases: everything the binary knows without a network.
check "qdiscctl " "add replace change del show monitor metrics exporter kinds sysctl default apply save watch help gc"
check "qdiscctl re" "replace"
check "qdiscctl -s --" "$(q options | tr ' ' '\n' | grep '^--')"
check "qdiscctl --js" "--json"
check "qdiscctl -j sh" "show"
check "qdiscctl -s -j show fl" "flows"
check "qdiscctl show flows " "dev handle root parent sort"
check "qdiscctl show dev lo flows sort " "$(q columns)"
check "qdiscctl show flows sort b" "backlog bytes"
check "qdiscctl help " "add replace change del show monitor metrics exporter kinds sysctl default apply save watch help gc $(q kinds)"
check "qdiscctl help f" "fifo fq"
check "qdiscctl add dev lo root " "handle $(q kinds)"
check "qdiscctl add dev lo root fq " "$(q kind-options fq)"
check "qdiscctl add dev lo root mq " "$(q kinds)"
check "qdiscctl replace dev lo root handle 1: mq fq " "$(q kind-options fq)"
check "qdiscctl add dev lo root fq limit 10 hor" "horizon horizon_cap horizon_drop"
check "qdiscctl add dev lo root fq limit 10 l" "low_rate_threshold"
check "qdiscctl add dev lo root fq horizon_" "horizon_cap horizon_drop"
check "qdiscctl add dev lo root fq quantum " "auto"
check "qdiscctl add dev lo root fq buckets 1" "1 16 128 1024 16384 131072"
check "qdiscctl add dev lo root fq maxrate " "unlimited"
check "qdiscctl replace dev lo root fq limit " ""
check "qdiscctl change dev lo root fifo " "limit"
check "qdiscctl add dev lo root edt no" "nobackpressure nocgroup"
# cgroup PATH: the cgroups under the cgroup2 mount (its root is "/"), then options.
check "qdiscctl add dev lo root edt rate 1mbit cgroup " "$(q kind-values edt cgroup)"
check "qdiscctl add dev lo root edt cgroup / r" "rate"
check "qdiscctl add dev lo root prio " "bands priomap limit"
check "qdiscctl add dev lo root prio priomap 1 2 " ""
check "qdiscctl add dev lo root prio priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 " "bands limit"
check "qdiscctl change dev lo root prio bands 4 limit " "txqueuelen"
check "qdiscctl add dev lo root pfifo " ""
check "qdiscctl del dev lo " "handle root parent $(q kinds)"
check "qdiscctl sysctl " "show set apply restore"
check "qdiscctl sysctl show " "$(q sysctls)"
check "qdiscctl sysctl show net.core.wmem_default net.core.w" "net.core.wmem_max"
check "qdiscctl sysctl set net.ipv4.tcp_e" "net.ipv4.tcp_ecn"
check "qdiscctl sysctl set net.ipv4.tcp_ecn " ""
check "qdiscctl sysctl apply " "backpressure"
check "qdiscctl kinds " ""
check "qdiscctl default " "restore $(q kinds)"
check "qdiscctl default fifo " "limit"
check "qdiscctl default fq quantum " "auto"
check "qdiscctl default restore " ""
check "qdiscctl gc " ""
check "qdiscctl monitor " "events dev flows -i -c"
check "qdiscctl monitor events " ""
check "qdiscctl monitor -i 2 " "dev flows -c"
check "qdiscctl metrics " "netns --all-netns --textfile"
check "qdiscctl metrics --all-netns " "netns --textfile"
check "qdiscctl exporter " "netns --all-netns"
check "qdiscctl -n " "" contains

if [ "$netcases" = 1 ]; then
	check "qdiscctl add dev " "lo d0"
	check "qdiscctl -s show dev d" "d0"
	check "qdiscctl add dev d0 parent " "1: 1:1 10:"
	# readline completes after the ':' (a word break): what is left of "1:"
	# and "1:1" once "1:" is typed.
	check "qdiscctl add dev d0 parent 1:" "'' 1"
	check "qdiscctl replace dev d0 root handle " "1: 1:1 10:"
	check "qdiscctl del handle 1 dev d0 parent 1:1 " "$(q kinds)"
	check "qdiscctl -n $ns add dev " "lo n0"
	check "qdiscctl --netns $ns del dev n0 parent " "5:"
	check "qdiscctl --netns=$ns show dev n" "n0"
	check "qdiscctl -n " "$ns" contains
else
	echo "SKIP completion: device and namespace cases need root and unshare -n"
fi

echo "completion: $pass passed, $fail failed"
[ $fail = 0 ]
