# qdiscctl sysctl: show/set/apply/restore inside a namespace leave every
# value as it was; bad names and values are refused in one line and change
# nothing; the sysctls only the initial namespace has (or may set) are
# handled inside a namespace; apply twice keeps the first originals; the
# initial namespace's show lists default_qdisc, and a full round trip there
# (wmem_* included) comes back to where it started.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq

MANAGED="core/wmem_default core/wmem_max ipv4/tcp_limit_output_bytes ipv4/tcp_wmem
ipv4/tcp_notsent_lowat ipv4/tcp_ecn"
# snap: every value qdiscctl may write, in the calling namespace, one per line.
snap() {
	for _f in $MANAGED core/default_qdisc core/qdisc_max_burst; do
		[ -e "/proc/sys/net/$_f" ] && echo "$_f $(cat "/proc/sys/net/$_f")"
	done
}
val() { ip netns exec "$1" cat "/proc/sys/net/$2"; }
saved() { ls /run/qdiscctl/sysctl-*.saved 2>/dev/null; }

rm -rf /run/qdiscctl
# apply only tightens: wmem_max's default is 4 MB from 6.18 on, 208 KB
# (already tight) before, so give older kernels 6.18's.
set_sysctl net.core.wmem_max 4194304
netns_pair
# The same inside namespace a, through a script (ip netns exec runs programs).
cat >/tmp/snap.sh <<EOF
for f in $(echo $MANAGED) core/default_qdisc core/qdisc_max_burst; do
	[ -e "/proc/sys/net/\$f" ] && echo "\$f \$(cat "/proc/sys/net/\$f")"
done
EOF
snap_a() { ip netns exec a /bin/sh /tmp/snap.sh; }
a_before=$(snap_a)
init_before=$(snap)
assert_match "$a_before" '^ipv4/tcp_ecn 2$' "a fresh namespace has the kernel's tcp_ecn"

# --- show ---------------------------------------------------------------
out=$(qd sysctl)
for n in net.core.wmem_default net.core.wmem_max net.ipv4.tcp_limit_output_bytes \
	net.ipv4.tcp_wmem net.ipv4.tcp_notsent_lowat net.ipv4.tcp_ecn net.core.default_qdisc \
	net.core.qdisc_max_burst net.ipv4.udp_backpressure_interval; do
	assert_match "$out" "^$n " "show lists $n"
done
assert_match "$out" '^net.core.default_qdisc +not in this network namespace ' "default_qdisc in a"
assert_match "$out" '^net.core.qdisc_max_burst +not in this network namespace ' "qdisc_max_burst in a"
assert_match "$out" '^net.ipv4.udp_backpressure_interval +not available on this kernel ' "RFC sysctl"
assert_match "$out" '^net.core.wmem_max +[0-9]+ \(read-only here\) ' "wmem_max read-only in a"
assert_match "$out" '^net.ipv4.tcp_wmem +4096 16384 [0-9]+ +4096 16384 4194304 ' "tcp_wmem and default"
assert_eq "$(qd sysctl show | head -n 1 | awk '{print $1, $2, $3, $4}')" "NAME VALUE DEFAULT MEANING" "header"

j=$(qd -j sysctl show)
assert_eq "$(jget "$j" '.[] | select(.name == "net.ipv4.tcp_wmem") | .value | length')" 3 "triple in JSON"
assert_eq "$(jget "$j" '.[] | select(.name == "net.ipv4.tcp_ecn") | .value')" 2 "tcp_ecn in JSON"
assert_eq "$(jget "$j" '.[] | select(.name == "net.ipv4.tcp_ecn") | .default')" 2 "tcp_ecn default"
assert_eq "$(jget "$j" '.[] | select(.name == "net.core.default_qdisc") | .available')" false "JSON available"
assert_eq "$(jget "$j" '.[] | select(.name == "net.core.default_qdisc") | .note')" \
	"not in this network namespace" "JSON note"
assert_eq "$(jget "$j" '.[] | select(.name == "net.core.wmem_max") | .writable')" false "JSON writable"
assert_eq "$(jget "$j" '.[] | select(.name == "net.ipv4.tcp_limit_output_bytes") | .default')" 4194304 \
	"7.x tcp_limit_output_bytes default"
assert_eq "$(qd -j sysctl show net.ipv4.tcp_ecn | jq length)" 1 "show NAME"

# The initial namespace has the host-wide ones.
out=$(qdiscctl sysctl)
assert_match "$out" "^net.core.default_qdisc +$(cat /proc/sys/net/core/default_qdisc) " "default_qdisc at home"
# 6.17 has no qdisc_max_burst yet (6.18 has).
if [ -e /proc/sys/net/core/qdisc_max_burst ]; then
	assert_match "$out" '^net.core.qdisc_max_burst +1000 +1000 ' "qdisc_max_burst at home"
else
	assert_match "$out" '^net.core.qdisc_max_burst +not available on this kernel ' "no qdisc_max_burst"
fi
assert_no_match "$out" 'read-only' "nothing read-only at home"
j=$(qdiscctl -j sysctl)
assert_eq "$(jget "$j" '.[] | select(.name == "net.core.default_qdisc") | .value')" \
	"$(cat /proc/sys/net/core/default_qdisc)" "default_qdisc in JSON"

# --- set ----------------------------------------------------------------
must qd sysctl set net.ipv4.tcp_ecn 1
assert_eq "$(val a ipv4/tcp_ecn)" 1 "set tcp_ecn in a"
assert_eq "$(cat /proc/sys/net/ipv4/tcp_ecn)" 2 "the initial namespace is untouched"
must qd sysctl set net.ipv4.tcp_wmem 4096 32768 4194304
assert_eq "$(val a ipv4/tcp_wmem | tr '\t' ' ')" "4096 32768 4194304" "triple as three words"
must qd sysctl set net.ipv4.tcp_wmem "4096 16384 4194304"
must qd sysctl set net.ipv4.tcp_ecn 2
assert_eq "$(snap_a)" "$a_before" "set and set back"

# Bad names and values: one line naming the token, 255, nothing written.
expect_fail 255 '"net.nosuch"' qd sysctl set net.nosuch 1
expect_fail 255 '"net.core.rmem_max"' qd sysctl set net.core.rmem_max 8192
expect_fail 255 '"6" is outside net.ipv4.tcp_ecn' qd sysctl set net.ipv4.tcp_ecn 6
expect_fail 255 '"-1"' qd sysctl set net.ipv4.tcp_limit_output_bytes -1
expect_fail 255 '"1e6" is not a number' qd sysctl set net.ipv4.tcp_limit_output_bytes 1e6
expect_fail 255 '"4294967296"' qd sysctl set net.ipv4.tcp_notsent_lowat 4294967296
expect_fail 255 '"4000" is outside net.core.wmem_max' qd sysctl set net.core.wmem_max 4000
expect_fail 255 '"4096 16384"' qd sysctl set net.ipv4.tcp_wmem 4096 16384
expect_fail 255 '"0" is outside' qd sysctl set net.ipv4.tcp_wmem 0 16384 4194304
expect_fail 255 'min <= initial <= max' qd sysctl set net.ipv4.tcp_wmem 4096 16384 1000
expect_fail 255 '"fq/x"' qd sysctl set net.core.default_qdisc fq/x
expect_fail 255 'needs NAME and VALUE' qd sysctl set net.ipv4.tcp_ecn
expect_fail 255 '"frob"' qd sysctl frob
expect_fail 255 '"bogus"' qd sysctl apply bogus
expect_fail 255 '"now"' qd sysctl restore now
expect_fail 255 '"net.nosuch"' qd sysctl show net.nosuch
assert_eq "$(snap_a)" "$a_before" "bad input changed nothing in a"
[ -z "$(saved)" ] || fail "bad input left a save file: $(saved)"

# The host-wide ones, inside a namespace: refused in one line, exit 1.
expect_fail 1 'default_qdisc: not in this network namespace' \
	qd sysctl set net.core.default_qdisc fq_codel
expect_fail 1 'wmem_max is read-only in this network namespace' \
	qd sysctl set net.core.wmem_max 1048576
# A value qdiscctl accepts and the kernel does not: exit 2, nothing changed.
expect_fail 2 'kernel refused "nosuchqdisc"' qdiscctl sysctl set net.core.default_qdisc nosuchqdisc
assert_eq "$(snap)" "$init_before" "refused writes changed nothing at home"

# --- apply, restore in namespace a ----------------------------------------
out=$(qd sysctl apply backpressure)
assert_match "$out" '^net.ipv4.tcp_limit_output_bytes 4194304 -> 1048576$' "apply: TSQ"
assert_match "$out" '^net.ipv4.tcp_notsent_lowat 4294967295 -> 131072$' "apply: notsent_lowat"
assert_match "$out" '^net.ipv4.tcp_ecn 2 -> 1$' "apply: ecn"
assert_match "$out" '^net.core.wmem_max [0-9]+ \(skipped: read-only in this network namespace' "apply: wmem_max"
assert_match "$out" '^previous values saved in /run/qdiscctl/sysctl-[0-9]+\.saved' "apply: where"
assert_eq "$(val a ipv4/tcp_limit_output_bytes)" 1048576 "applied TSQ"
assert_eq "$(val a ipv4/tcp_notsent_lowat)" 131072 "applied notsent_lowat"
assert_eq "$(val a ipv4/tcp_ecn)" 1 "applied ecn"
assert_eq "$(snap)" "$init_before" "apply in a left the initial namespace alone"
[ "$(saved | wc -l)" = 1 ] || fail "one save file expected: $(saved)"
file=$(saved)
assert_match "$(cat "$file")" '^net.ipv4.tcp_ecn 2$' "save file holds the old tcp_ecn"
assert_no_match "$(cat "$file")" 'wmem' "nothing saved that was not changed"
cp "$file" /tmp/saved.first

# Twice: nothing to change, originals kept.
j=$(qd -j sysctl apply backpressure)
assert_eq "$(jget "$j" '[.steps[] | select(.action == "set")] | length')" 0 "second apply changes nothing"
assert_eq "$(jget "$j" '.steps | length')" 5 "five profile steps"
cmp -s "$file" /tmp/saved.first || fail "a second apply rewrote the save file"
# Someone loosens a value; applying again sets it and still keeps the original.
must qd sysctl set net.ipv4.tcp_ecn 0
out=$(qd sysctl apply backpressure)
assert_match "$out" '^net.ipv4.tcp_ecn 0 -> 1$' "third apply"
cmp -s "$file" /tmp/saved.first || fail "apply over a loosened value lost the original"

# Namespace b has its own (empty) state: restore there refuses, a's stays.
expect_fail 1 'nothing saved for this network namespace' qdiscctl -n b sysctl restore
[ -e "$file" ] || fail "restore in b touched a's save file"

out=$(qd sysctl restore)
assert_match "$out" '^net.ipv4.tcp_ecn 1 -> 2$' "restore: ecn"
assert_match "$out" "^removed $file\$" "restore: file removed"
assert_eq "$(snap_a)" "$a_before" "apply + restore left every value of a as it was"
[ -z "$(saved)" ] || fail "restore left $(saved)"
expect_fail 1 'nothing saved for this network namespace' qd sysctl restore

# --- the initial namespace: the whole profile, wmem_* included ----------------
# Let the runner put these back even if the case dies before restore.
for f in $MANAGED; do
	set_sysctl "net.$(echo "$f" | tr / .)" "$(cat "/proc/sys/net/$f")"
done
out=$(qdiscctl sysctl apply backpressure)
assert_match "$out" '^net.core.wmem_default 212992 -> 131072$' "apply at home: wmem_default"
assert_match "$out" '^net.core.wmem_max 4194304 -> 1048576$' "apply at home: wmem_max"
assert_eq "$(cat /proc/sys/net/core/wmem_max)" 1048576 "wmem_max applied"
# A namespace's wmem_* are read-only views of the initial namespace's (7.x);
# its own sysctls are untouched.
assert_eq "$(val a core/wmem_max)" 1048576 "a sees the initial namespace's wmem_max"
assert_eq "$(snap_a | grep ipv4/)" "$(echo "$a_before" | grep ipv4/)" "apply at home left a's own alone"
must qdiscctl sysctl restore >/dev/null
assert_eq "$(snap)" "$init_before" "apply + restore at home left every value as it was"
[ -z "$(saved)" ] || fail "restore at home left $(saved)"

rm -rf /run/qdiscctl
cleanup_netns
