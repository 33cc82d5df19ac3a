# bpffs mounted without mode= is world-writable: another user may make
# /sys/fs/bpf/qdiscctl first, plant symlinks in it, hold its lock or put a
# symlink in its place. qdiscctl refuses such a directory with one line,
# follows nothing, removes nothing outside its own state and never waits
# on another user's lock; its own directory is root's, mode 0700.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl bpftool flock
[ -x /usr/bin/setpriv ] || skip "no setpriv"
nobody() { /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

netns_pair --neigh
mode=$(stat -c %a /sys/fs/bpf)
must chmod 0777 /sys/fs/bpf
restore() { rm -rf /sys/fs/bpf/victim; chmod "$mode" /sys/fs/bpf; }
trap restore EXIT

# Another application's state, which nothing of qdiscctl may touch.
must mkdir /sys/fs/bpf/victim
must bpftool map create /sys/fs/bpf/victim/m type array key 4 value 4 entries 1 name victim
victim_ok() { [ -e /sys/fs/bpf/victim/m ] || fail "$1: the victim's pin is gone"; }

# A directory of another user's, with a symlink where a registration would be.
must nobody mkdir /sys/fs/bpf/qdiscctl
must nobody ln -s /sys/fs/bpf/victim /sys/fs/bpf/qdiscctl/fifo
expect_fail 1 'qdiscctl is not qdiscctl.s \(owner uid 65534' qdiscctl gc
expect_fail 1 'qdiscctl is not qdiscctl.s' qd add dev va root fifo
expect_fail 1 'qdiscctl is not qdiscctl.s' qd add dev va root handle 1: mq fifo
victim_ok "a planted directory"
assert_eq "$(in_a tc qdisc show dev va | awk '{ print $2; exit }')" noqueue "nothing added"
[ -L /sys/fs/bpf/qdiscctl/fifo ] || fail "the other user's symlink was touched"

# Its lock held by that user: root's commands are refused at once, not held.
nobody flock /sys/fs/bpf/qdiscctl sleep 60 &
holder=$!
sleep 0.5
t0=$(uptime_cs)
expect_fail 1 'qdiscctl is not qdiscctl.s' timeout 20 qdiscctl -n "$NS_A" add dev va root fifo
[ $(($(uptime_cs) - t0)) -lt 1000 ] || fail "root's add waited on another user's lock"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
must rm -rf /sys/fs/bpf/qdiscctl

# A symlink in its place, to the victim or to bpffs' root.
for target in /sys/fs/bpf/victim /sys/fs/bpf; do
	must nobody ln -s "$target" /sys/fs/bpf/qdiscctl
	expect_fail 1 'cannot open /sys/fs/bpf/qdiscctl' qd add dev va root fifo
	expect_fail 1 'cannot open /sys/fs/bpf/qdiscctl' qdiscctl gc
	victim_ok "a symlink to $target"
	must rm /sys/fs/bpf/qdiscctl
done

# qdiscctl's own directory: root's, mode 0700, closed to other users.
must qd add dev va root fifo
assert_eq "$(stat -c '%u %a' /sys/fs/bpf/qdiscctl)" "0 700" "qdiscctl's directory"
nobody ls /sys/fs/bpf/qdiscctl >/dev/null 2>&1 && fail "another user lists qdiscctl's directory"
nobody mv /sys/fs/bpf/qdiscctl/fifo /sys/fs/bpf/qdiscctl/x 2>/dev/null &&
	fail "another user renamed a registration"
must qd change dev va root limit 50
must qd del dev va root
victim_ok "a whole add, change and del"
assert_clean "after the attacks"
