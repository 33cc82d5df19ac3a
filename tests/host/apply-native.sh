#!/usr/bin/env bash
# apply and save with native kinds on the build machine's own kernel (no
# BPF qdisc needed), in a namespace of their own: from nothing, a second
# run unchanged, a glob, a refusal put back, the plan as JSON, save | apply.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
q=$top/qdiscctl
ns=qdapply$$
[ "$(id -u)" = 0 ] || { echo "SKIP apply-native: needs root"; exit 77; }
ip netns add $ns || { echo "SKIP apply-native: cannot make a network namespace"; exit 77; }
tmp=$(mktemp -d)
trap 'ip netns del $ns; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "apply-native: $*"; fail=1; }
ip -n $ns link add qa0 type veth peer name qb0 && ip -n $ns link add qa1 type veth peer name qb1 ||
	{ echo "SKIP apply-native: no veth"; exit 77; }
for d in qa0 qb0 qa1 qb1; do ip -n $ns link set $d up; done
kind() { ip netns exec $ns tc qdisc show dev "$1" root | awk '{ print $2; exit }'; }

printf 'dev qa* root handle 1: pfifo_fast\ndev qb0 root bfifo\n' >"$tmp/c"
out=$("$q" -n $ns apply --dry-run "$tmp/c")
[ "$out" = $'dev qa0 root: add pfifo_fast\ndev qa1 root: add pfifo_fast\ndev qb0 root: add bfifo' ] || bad "plan: $out"
[ "$(kind qa0)" = noqueue ] || bad "--dry-run changed qa0"
"$q" -n $ns apply "$tmp/c" >/dev/null || bad "apply: exit $?"
[ "$(kind qa0) $(kind qa1) $(kind qb0)" = "pfifo_fast pfifo_fast bfifo" ] || bad "applied: $(kind qa0) $(kind qa1) $(kind qb0)"
out=$("$q" -n $ns apply "$tmp/c")
[ "$(grep -vc ': unchanged$' <<<"$out")" = 0 ] || bad "second run: $out"
"$q" -n $ns -j apply "$tmp/c" | jq -e 'length == 3 and all(.action == "unchanged")' >/dev/null || bad "JSON plan"

# Another handle asked for: replace; a refusal after it puts it back.
printf 'dev qa0 root handle 2: pfifo_fast\ndev qa0 parent 2:1 pfifo\n' >"$tmp/r"
out=$("$q" -n $ns apply "$tmp/r" 2>"$tmp/err")
rc=$?
[ $rc = 2 ] || bad "refusal: exit $rc ($out / $(cat "$tmp/err"))"
grep -q 'dev qa0 root: replace pfifo_fast -> pfifo_fast: restored' <<<"$out" || bad "not restored: $out"
ip netns exec $ns tc qdisc show dev qa0 | grep -q 'pfifo_fast 1: root' || bad "qa0 not back: $(ip netns exec $ns tc qdisc show dev qa0)"

# save | apply -: nothing to do.
"$q" -n $ns save >"$tmp/s" || bad "save: exit $?"
grep -q '^dev qb0 root handle [0-9a-f]*: bfifo$' "$tmp/s" || bad "save: $(cat "$tmp/s")"
out=$("$q" -n $ns apply - <"$tmp/s")
[ -n "$out" ] && [ "$(grep -vc ': unchanged$' <<<"$out")" = 0 ] || bad "save | apply: $out"
[ $fail = 0 ] && echo "PASS apply-native: plan, apply, unchanged, JSON, restore, save | apply"
exit $fail
