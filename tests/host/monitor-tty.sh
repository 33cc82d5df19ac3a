#!/usr/bin/env bash
# monitor's terminal view, in tmux on the build machine's own kernel
# (native qdiscs), with ping across a veth pair between two namespaces:
# the header and a row a qdisc, mq's children with their parents and
# rates, a key that sorts, q that quits with status 0 and gives the
# screen back.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
q=$top/qdiscctl
a=qdmona$$ b=qdmonb$$ s=qdmon$$
[ "$(id -u)" = 0 ] || { echo "SKIP monitor-tty: needs root"; exit 77; }
command -v tmux >/dev/null || { echo "SKIP monitor-tty: no tmux (make deps installs it)"; exit 77; }
ip netns add $a && ip netns add $b || { echo "SKIP monitor-tty: cannot make network namespaces"; exit 77; }
tmp=$(mktemp -d)
trap 'tmux kill-session -t $s 2>/dev/null; ip netns del $a; ip netns del $b; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL monitor-tty: $*"; fail=1; }
ip -n $a link add qa numtxqueues 2 type veth peer name qb netns $b ||
	{ echo "SKIP monitor-tty: no veth"; exit 77; }
ip -n $a addr add 10.9.0.1/24 dev qa && ip -n $b addr add 10.9.0.2/24 dev qb &&
	ip -n $a link set qa up && ip -n $b link set qb up &&
	ip netns exec $a tc qdisc add dev qa root handle 1: mq || { echo "SKIP monitor-tty: no mq"; exit 77; }
ip netns exec $a ping -c 200 -i 0.02 -q 10.9.0.2 >/dev/null 2>&1 &
pinger=$!

tmux new-session -d -s $s -x 150 -y 20 "$q -n $a monitor -i 0.2; echo \$? >$tmp/rc; sleep 30"
# screen: what the pane shows now.
screen() { tmux capture-pane -p -t $s; }
shows() { screen | grep -Eq -- "$1"; }
# within PATTERN: the pane shows it within 5 s.
within() {
	for _ in $(seq 50); do shows "$1" && return 0; sleep 0.1; done
	return 1
}
within '^DEV +KIND +HANDLE +PARENT +BIT/S +PKT/S +DROP/S +BACKLOG +QLEN' || bad "no header: $(screen)"
within '^qa +mq +1: +root +[0-9.]+[KM]?bit +[1-9][0-9]* ' || bad "no rate on qa's mq: $(screen)"
shows '^qa +pfifo_fast +0: +1:1 ' && shows '^qa +pfifo_fast +0: +1:2 ' || bad "mq's children: $(screen)"
shows 'sorted by dump order' || bad "default order: $(screen | head -1)"
tmux send-keys -t $s p
within 'sorted by pkt/s' || bad "p does not sort by packets: $(screen | head -1)"
# Sorted by packets: the PKT/S column never goes up (mq, the sum, first).
screen | awk 'NR > 2 && NF { if (n++ && $6 > last) bad = 1; last = $6; if (n == 1 && $2 != "mq") bad = 1 }
	END { exit bad || n != 3 }' || bad "not sorted by packets: $(screen)"
tmux send-keys -t $s q
for _ in $(seq 50); do [ -s "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || bad "q: exit $(cat "$tmp/rc" 2>/dev/null)"
shows 'qdiscctl monitor' && bad "the view stayed on the screen after q: $(screen)"
kill $pinger 2>/dev/null
wait $pinger 2>/dev/null

[ $fail = 0 ] && echo "PASS monitor-tty: header, rows, rates, sort key, q"
exit $fail
