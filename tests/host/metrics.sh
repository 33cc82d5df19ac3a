#!/usr/bin/env bash
# metrics on the build machine's own kernel (native qdiscs only), in a
# namespace of its own: promtool accepts the output, a device name with a
# quote and a backslash is escaped as the exposition format says, mq's
# children are there with their parents, --textfile replaces a file whole.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
q=$top/qdiscctl
ns=qdmetrics$$
[ "$(id -u)" = 0 ] || { echo "SKIP metrics: needs root"; exit 77; }
command -v promtool >/dev/null || { echo "SKIP metrics: no promtool (make deps installs prometheus)"; exit 77; }
ip netns add $ns || { echo "SKIP metrics: cannot make a network namespace"; exit 77; }
tmp=$(mktemp -d)
trap 'ip netns del $ns; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL metrics: $*"; fail=1; }
dev='q"a\0'
# No IPv6: nothing but what the test counts leaves.
ip netns exec $ns sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6;
	echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
ip -n $ns link add "$dev" numtxqueues 2 type veth peer name qb0 ||
	{ echo "SKIP metrics: no veth"; exit 77; }
ip -n $ns link set "$dev" up && ip -n $ns link set qb0 up &&
	ip netns exec $ns tc qdisc add dev "$dev" root handle 1: mq || { echo "SKIP metrics: no mq"; exit 77; }

"$q" metrics netns $ns >"$tmp/m" || bad "metrics: exit $?"
out=$(promtool check metrics <"$tmp/m" 2>&1) || bad "promtool: $out"
grep -qxF 'qdiscctl_qdisc_packets_total{netns="'$ns'",dev="q\"a\\0",kind="mq",handle="1:",parent="root"} 0' "$tmp/m" ||
	bad "mq on $dev not escaped as the format says: $(grep 'packets_total{' "$tmp/m")"
[ "$(grep -c '^qdiscctl_qdisc_qlen{.*kind="pfifo_fast",handle="0:",parent="1:[12]"} 0$' "$tmp/m")" = 2 ] ||
	bad "mq's two children: $(grep '^qdiscctl_qdisc_qlen{' "$tmp/m")"
# Every family once, HELP and TYPE before its samples.
[ -z "$(grep '^# TYPE' "$tmp/m" | sort | uniq -d)" ] || bad "a TYPE line twice"

# --textfile over an old file and over a symlink: the link is replaced, its target kept.
echo old >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.prom"
"$q" -n $ns metrics --textfile "$tmp/link.prom" || bad "--textfile: exit $?"
[ ! -L "$tmp/link.prom" ] && [ "$(cat "$tmp/target")" = old ] || bad "--textfile wrote through a symlink"
cmp -s "$tmp/link.prom" "$tmp/m" || bad "--textfile differs from stdout"
[ "$(ls "$tmp")" = $'link.prom\nm\ntarget' ] || bad "left behind: $(ls "$tmp")"
err=$("$q" metrics --textfile "$tmp/no/such/dir.prom" 2>&1) && bad "--textfile into a missing directory: exit 0"
[ "$(wc -l <<<"$err")" = 1 ] || bad "more than one error line: $err"
err=$("$q" metrics bogus 2>&1)
[ $? = 255 ] && [[ $err == *'"bogus"'* ]] || bad "bad word: $err"

# exporter, as qdiscctl-exporter.socket runs it, on the namespace's loopback.
if command -v systemd-socket-activate >/dev/null && command -v curl >/dev/null; then
	ip -n $ns link set lo up
	ip netns exec $ns systemd-socket-activate --inetd -a -l 127.0.0.1:9978 "$q" exporter \
		2>"$tmp/ssa" &
	act=$!
	for _ in $(seq 50); do ip netns exec $ns curl -s -o "$tmp/e" http://127.0.0.1:9978/metrics && break; sleep 0.1; done
	ip netns exec $ns "$q" metrics >"$tmp/m2"
	cmp -s "$tmp/e" "$tmp/m2" || bad "exporter: not what metrics prints: $(diff "$tmp/e" "$tmp/m2" | head -5)"
	code=$(ip netns exec $ns curl -s -o /dev/null -w '%{http_code}' -X PUT http://127.0.0.1:9978/metrics)
	[ "$code" = 405 ] || bad "exporter: PUT got $code"
	kill $act
	wait $act 2>/dev/null
else
	echo "SKIP metrics: exporter (no systemd-socket-activate or curl)"
fi

[ $fail = 0 ] && echo "PASS metrics: promtool, escaping, mq's children, --textfile, exporter"
exit $fail
