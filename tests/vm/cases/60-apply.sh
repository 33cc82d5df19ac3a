# apply: a file of statements converges va to what it says. From nothing
# it adds; a second run changes nothing (tc monitor sees no qdisc event,
# handle and counters stay); a changed option is a change (counters go
# on, packets pushed through before and after); a changed kind a replace;
# a bad file changes nothing; a refusal mid-way puts the device back; the
# plan prints as text and JSON; mq KIND converges on every child.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq tc

netns_pair --neigh
quiet_ns a b
conf=/tmp/apply.conf

# apply_ok ARGS...: qd apply ARGS, which must succeed; its stdout in $out.
apply_ok() {
	out=$(qd apply "$@" 2>/tmp/apply.err) || fail "apply $*: exit $? ($(cat /tmp/apply.err)) $out"
	log "apply $*: $out"
}
kind() { jget "$(qd -j show dev va)" '.[0].kind'; }
opt() { jget "$(qd -j show dev va)" ".[0].options.$1"; }
stats() { jget "$(qd -s -j show dev va)" '.[0] | "\(.handle) \(.packets)"'; }

printf '# va, as it should be\ndev va root handle 1: fifo \\\n\tlimit 500\n' >$conf
apply_ok --dry-run $conf
assert_eq "$out" "dev va root: add qdiscctl_fifo" "the plan from nothing"
assert_eq "$(kind)" noqueue "--dry-run changed nothing"
apply_ok $conf
assert_eq "$out" "dev va root: add qdiscctl_fifo" "added"
assert_eq "$(kind)" qdiscctl_fifo "the kind"
assert_eq "$(opt limit)" 500 "the option"
must in_a ping -c 5 -i 0.1 -q "$IP_B"
assert_eq "$(stats)" "1: 5" "packets went through it"

# Again: nothing to do, and nothing reaches the kernel.
in_a tc monitor >/tmp/monitor.log 2>&1 &
mon=$!
sleep 0.5
apply_ok $conf
out=$(qd -j apply $conf) || fail "apply -j: exit $?"
sleep 0.5
kill $mon
assert_eq "$out" '[{"file":"/tmp/apply.conf","line":2,"dev":"va","where":"dev va root","action":"unchanged"}]' "JSON says unchanged"
qd apply $conf >/tmp/apply.out || fail "third apply"
assert_eq "$(cat /tmp/apply.out)" "dev va root: unchanged" "unchanged"
assert_no_match "$(cat /tmp/monitor.log)" qdisc "no qdisc event while nothing changes"
assert_eq "$(stats)" "1: 5" "same handle, same counters"

# A changed option: change, in place.
sed -i 's/limit 500/limit 800/' $conf
apply_ok --dry-run $conf
assert_eq "$out" "dev va root: change limit 500 -> 800" "the plan of a change"
assert_eq "$(opt limit)" 500 "the plan changed nothing"
apply_ok $conf
assert_eq "$out" "dev va root: change limit 500 -> 800" "changed"
assert_eq "$(opt limit)" 800 "the new limit"
must in_a ping -c 3 -i 0.1 -q "$IP_B"
assert_eq "$(stats)" "1: 8" "the same instance counts on"

# A bad line anywhere: nothing changes, every bad line is named.
printf 'dev va root handle 1: fifo limit 100\ndev vb root fifo limit lots\nbogus\n' >/tmp/bad.conf
qd apply /tmp/bad.conf >/tmp/bad.out 2>/tmp/bad.err
assert_eq "$?" 255 "a bad file exits 255"
assert_match "$(cat /tmp/bad.err)" '^/tmp/bad.conf:2: fifo: invalid limit "lots"' "line 2 named"
assert_match "$(cat /tmp/bad.err)" '/tmp/bad.conf:3: unknown statement "bogus"' "line 3 named"
assert_eq "$(opt limit)" 800 "nothing changed"

# A refusal mid-way: what this run changed on the device goes back.
printf 'dev va root handle 1: fifo limit 300\ndev va parent 1:1 fifo\n' >/tmp/refuse.conf
qd apply /tmp/refuse.conf >/tmp/refuse.out 2>/tmp/refuse.err
rc=$?
log "refused: $(cat /tmp/refuse.out) / $(cat /tmp/refuse.err)"
assert_eq "$rc" 2 "the kernel's refusal is exit 2"
assert_match "$(cat /tmp/refuse.out)" 'dev va parent 1:1: add qdiscctl_fifo: refused' "the refused statement"
assert_match "$(cat /tmp/refuse.out)" 'dev va root: change limit 800 -> 300: restored' "the first one put back"
assert_eq "$(opt limit)" 800 "limit as before the run"
assert_eq "$(stats)" "1: 8" "the same instance"

# Another kind: replace; a native kind by its name alone.
printf 'dev va root fq flow_limit 50\n' >$conf
apply_ok $conf
assert_eq "$out" "dev va root: replace qdiscctl_fifo -> qdiscctl_fq" "another kind"
assert_eq "$(kind) $(opt flow_limit)" "qdiscctl_fq 50" "fq with its option"
apply_ok $conf
assert_eq "$out" "dev va root: unchanged" "fq's resolved quanta match auto"
printf 'dev v* root pfifo_fast\n' >$conf
apply_ok $conf
assert_eq "$out" "dev va root: replace qdiscctl_fq -> pfifo_fast" "a glob, a native kind"
apply_ok $conf
assert_eq "$out" "dev va root: unchanged" "the native kind matches"
must in_a ping -c 2 -i 0.1 -q "$IP_B"
printf 'dev nosuch* root fifo\n' >$conf
apply_ok $conf
assert_eq "$out" "dev nosuch* root: absent (no device matches)" "a glob matching nothing"
must qd del dev va root
assert_clean "after the single-queue steps"

# mq KIND: every child converges; then one option changes on all of them.
netns_pair --neigh --queues 4
quiet_ns a b
printf 'dev va root mq fq maxrate 1gbit\n' >$conf
apply_ok $conf
assert_eq "$out" "dev va root: add mq qdiscctl_fq" "mq from the kernel's own"
assert_eq "$(jget "$(qd -j show dev va)" '[.[] | select(.kind == "qdiscctl_fq")] | length')" 4 "four children"
apply_ok $conf
assert_eq "$out" "dev va root: unchanged" "mq unchanged"
must in_a ping -c 4 -i 0.1 -q "$IP_B"
sed -i 's/1gbit/2gbit/' $conf
apply_ok $conf
assert_eq "$out" "dev va root: change maxrate 1Gbit -> 2Gbit" "one change for every child"
assert_eq "$(jget "$(qd -j show dev va)" '[.[] | select(.kind == "qdiscctl_fq") | .options.maxrate] | unique | tojson')" "[250000000]" "on every child"
assert_eq "$(jget "$(qd -s -j show dev va)" '[.[] | select(.kind == "qdiscctl_fq") | .packets] | add')" 4 "children count on"
must qd del dev va root
cleanup_netns
assert_clean "at the end"
