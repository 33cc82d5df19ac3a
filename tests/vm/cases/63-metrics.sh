# metrics: Prometheus' text format for every qdisc, root or child, of the
# namespaces asked for. promtool accepts it; every sample equals what
# `-s -j show` reads at the same moment (no traffic between the two);
# --textfile writes the same atomically; the registrations' capacities and
# memory are there.
# vmtest-seconds: 32
# vmtest-tools: promtool
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq udpflows

netns_pair --neigh
quiet_ns a b
# fq at va's root; prio and edt on dummies (no ARP: every ping leaves), a
# native child under an htb class in b.
must qd add dev va root handle 1: fq
for i in 0 1; do
	must ip -n a link add d$i type dummy
	must ip -n a link set d$i up
	must ip -n a addr add 10.1.$i.1/24 dev d$i
done
must qd add dev d0 root handle 2: prio
must qd add dev d1 root handle 3: edt rate 100mbit
must ip -n b link add d2 type dummy
must in_b tc qdisc add dev d2 root handle 5: htb
must in_b tc class add dev d2 parent 5: classid 5:1 htb rate 1mbit
must in_b tc qdisc add dev d2 parent 5:1 handle 6: pfifo
must in_a ping -c 20 -i 0.01 -q "$IP_B" >/dev/null
# send DST PRIO N: N datagrams with SO_PRIORITY PRIO, unconnected (nobody answers).
send() {
	in_a udpflows -U -d "$1" -p 9000 -s 5001 -q "$2" -n "$3" -l 200 -b 4000000 >/dev/null ||
		fail "udpflows to $1 failed"
}
# Priority 6 (TC_PRIO_INTERACTIVE) goes to band 0, 0 to band 1.
send 10.1.0.2 6 10
send 10.1.0.2 0 7
send 10.1.1.2 0 5
sleep 0.2

m=$(qdiscctl metrics --all-netns) || fail "metrics failed"
st=$(qd -s -j show)
if have promtool; then
	out=$(printf '%s\n' "$m" | promtool check metrics 2>&1) || fail "promtool: $out"
	log "promtool check metrics: ok"
else
	log "no promtool in this VM: format not checked here"
fi

# Samples as JSON: {"name":..., "labels":{...}, "value":...}.
samples=$(printf '%s\n' "$m" | awk '
!/^#/ && NF {
	i = index($0, "{"); j = index($0, "} ")
	name = substr($0, 1, i - 1); lab = substr($0, i + 1, j - i - 2); val = substr($0, j + 2)
	n = split(lab, p, "\",")
	out = ""
	for (k = 1; k <= n; k++) {
		e = index(p[k], "=\""); out = out (k > 1 ? "," : "") "\"" substr(p[k], 1, e - 1) "\":\"" substr(p[k], e + 2) "\""
	}
	printf "{\"name\":\"%s\",\"labels\":{%s},\"value\":%s}\n", name, out, val
}' | jq -s -c .) || fail "cannot read the samples: $m"

# Every sample of namespace a next to the key of -s -j show it stands for.
cmp=$(jq -n -c --argjson m "$samples" --argjson s "$st" '
def basic: {bytes_total: "bytes", packets_total: "packets", drops_total: "drops",
	overlimits_total: "overlimits", requeues_total: "requeues", backlog_bytes: "backlog",
	qlen: "qlen"};
def keyof($o; $r):
	[[$r, 1], [($r | rtrimstr("_total")), 1], [($r | rtrimstr("_seconds")), 1e9],
	 [($r | rtrimstr("_bytes_per_second")), 1], [($r | rtrimstr("_bytes")), 1]]
	| map(select(.[0] as $k | $o | has($k))) | first // null;
[$m[] | select(.labels.netns == "a" and .name != "qdiscctl_fq_throttled_flows")
 | . as $x | .labels as $l
 | [$s[] | select(.dev == $l.dev and .handle == $l.handle and
	(if $l.parent == "root" then .root == true else .parent == $l.parent end))] as $q
 | if ($q | length) != 1 then {bad: $x, why: "qdiscs that match: \($q | length)"}
   elif ($x.name | startswith("qdiscctl_qdisc_")) then
	{name: $x.name, want: $q[0][basic[$x.name | ltrimstr("qdiscctl_qdisc_")]], got: $x.value}
   else
	($l.kind | ltrimstr("qdiscctl_")) as $k
	| ($x.name | ltrimstr("qdiscctl_\($k)_")) as $r0
	| (if $l.band then [$q[0].bands[] | select(.band == ($l.band | tonumber))][0]
	   else $q[0] end) as $o
	| ($r0 | if $l.band then ltrimstr("band_") else . end) as $r
	| keyof($o; $r) as $key
	| if $key == null and $x.value == 0 then {quiet: $x.name}
	  elif $key == null then {bad: $x, why: "no key for it"}
	  else {name: $x.name, band: $l.band, want: $o[$key[0]],
		got: (($x.value * $key[1]) | round)} end
   end]')
log "$(jget "$cmp" '[.[] | select(.quiet | not)] | length') samples of namespace a compared"
# show leaves quiet counters out while they are 0; everything else is compared.
log "left out by show while 0: $(jget "$cmp" '[.[] | .quiet // empty] | unique | join(" ")')"
bad=$(jget "$cmp" '[.[] | select(.quiet | not) | select(.bad or .want != .got)] | tojson')
assert_eq "$bad" "[]" "samples equal to show -s -j"
names=$(jget "$cmp" '[.[] | .name // empty] | unique | .[]')
for f in qdiscctl_qdisc_bytes_total qdiscctl_fq_flows qdiscctl_fq_gc_total \
	qdiscctl_prio_band_packets_total qdiscctl_prio_band_qlen \
	qdiscctl_edt_rate_est_bytes_per_second qdiscctl_edt_cn_signals_total; do
	assert_match "$names" "^$f\$" "$f is compared"
done
# fq's throttled flows share show's key "throttled" with its throttle events.
tf=$(jget "$samples" '.[] | select(.name == "qdiscctl_fq_throttled_flows" and .labels.netns == "a") | .value')
assert_match "$(qd -s show dev va)" "throttled $tf\\)" "fq's throttled flows as show prints them"
assert_eq "$(jget "$cmp" '[.[] | select(.name == "qdiscctl_prio_band_packets_total") | {(.band): .got}] | add | tojson')" \
	'{"0":10,"1":7,"2":0}' "prio's packets by band"

# Namespace b (--all-netns) and the native child with its parent.
assert_match "$m" '^qdiscctl_qdisc_packets_total\{netns="b",dev="d2",kind="pfifo",handle="6:",parent="5:1"\} 0$' \
	"namespace b's child qdisc"
assert_no_match "$(qdiscctl metrics netns a)" 'netns="b"' "netns a: only a"
# The registrations: each kind in use has one, with its instances and memory.
for k in fq prio edt; do
	assert_match "$m" "^qdiscctl_registration_instances\\{kind=\"$k\",registration=\"qdiscctl_$k\"\\} 1\$" \
		"$k's registration: one instance"
	assert_match "$m" "^qdiscctl_registration_memory_bytes\\{kind=\"$k\",registration=\"qdiscctl_$k\"\\} [1-9]" \
		"$k's registration: its memory"
	assert_match "$m" "^qdiscctl_registration_capacity\\{kind=\"$k\",registration=\"qdiscctl_$k\",capacity=\"instances\"\\} [1-9]" \
		"$k's registration: its instance slots"
done

# --textfile: the same text, mode 0644, nothing left beside it.
mkdir /tmp/prom
must qdiscctl metrics --all-netns --textfile /tmp/prom/qdisc.prom
assert_eq "$(cat /tmp/prom/qdisc.prom)" "$m" "--textfile writes what stdout gets"
assert_eq "$(ls /tmp/prom)" qdisc.prom "no temporary file left"
assert_eq "$(stat -c %a /tmp/prom/qdisc.prom)" 644 "readable by node_exporter"
# Written again over the old one; a directory that does not exist is one line.
must qdiscctl metrics --textfile /tmp/prom/qdisc.prom
assert_no_match "$(cat /tmp/prom/qdisc.prom)" 'netns="b"' "rewritten whole"
err=$(qdiscctl metrics --textfile /nonexistent/x.prom 2>&1) && fail "metrics into a missing directory succeeded"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "one error line: $err"
err=$(qdiscctl -j metrics 2>&1) && fail "metrics -j succeeded"
err=$(qdiscctl metrics netns nosuchns 2>&1) && fail "metrics netns nosuchns succeeded"
assert_match "$err" 'nosuchns' "the bad namespace is named"
log "ok"
