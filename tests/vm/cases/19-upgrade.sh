# Upgrades: a qdiscctl whose fifo program differs (make alt) registers its
# own version beside the one running, as qdiscctl_fifo.1, and uses it for new
# instances; the old instances keep their program and options; show presents
# both as qdiscctl_fifo and -d says which version each runs; the old
# registration goes with its last instance.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl qdiscctl-alt jq bpftool

PIN=/sys/fs/bpf/qdiscctl
netns_pair --neigh
quiet_ns a b
for d in d0 d1; do
	must ip -n a link add $d type dummy
	must ip -n a link set $d up
done
alt() { qdiscctl-alt -n a "$@"; }
fifo_tags() { bpftool -j prog show | jq -r '.[] | select(.name == "fifo_init") | .tag' | sort -u | wc -l; }

# The older qdiscctl installed this one.
must alt add dev va root handle 1: fifo limit 100
must in_a ping -c 2 -i 0.2 -q "$IP_B"
old=$(qd -d -j show dev va)
assert_eq "$(jget "$old" '.[0].kind')" qdiscctl_fifo "kind"
assert_eq "$(jget "$old" '.[0].options.qdiscctl_version')" qdiscctl_fifo "the first version"
assert_eq "$(jget "$old" '.[0].options.qdiscctl_current')" false "not this qdiscctl's program"
assert_eq "$(jget "$(alt -d -j show dev va)" '.[0].options.qdiscctl_current')" true "the older qdiscctl's"

# This one neither reuses that program nor touches it: it registers its own.
must qd add dev d0 root fifo limit 200
new=$(qd -d -j show dev d0)
assert_eq "$(jget "$new" '.[0].kind')" qdiscctl_fifo "shown as the kind"
assert_eq "$(jget "$new" '.[0].options.qdiscctl_version')" qdiscctl_fifo.1 "a second version"
assert_eq "$(jget "$new" '.[0].options.qdiscctl_current')" true "this qdiscctl's program"
[ "$(jget "$new" '.[0].options.qdiscctl_elf')" != "$(jget "$old" '.[0].options.qdiscctl_elf')" ] ||
	fail "the two versions have one fingerprint"
assert_match "$(in_a tc qdisc show dev d0)" 'qdisc qdiscctl_fifo.1 ' "the kernel's id"
assert_match "$(in_a tc qdisc show dev va)" 'qdisc qdiscctl_fifo 1:' "the old one's id"
assert_eq "$(ls $PIN | tr '\n' ' ')" "fifo fifo-1 " "two registrations"
assert_eq "$(fifo_tags)" 2 "two programs with different tags"
assert_match "$(qd -d show dev d0)" 'version qdiscctl_fifo.1 elf [0-9a-f]{16} ' "text -d"
assert_match "$(qd -d show dev va)" "not this qdiscctl's" "text -d: an older version"

# The old instance runs on, with its options; change reaches it.
must in_a ping -c 2 -i 0.2 -q "$IP_B"
st=$(qd -s -j show dev va)
assert_eq "$(jget "$st" '.[0].packets')" 4 "the old instance passes traffic"
assert_eq "$(jget "$st" '.[0].options.limit')" 100 "its options"
must qd change dev va root limit 50
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 50 "change on the old version"
assert_eq "$(jget "$(qd -j show dev d0)" '.[0].options.limit')" 200 "the new one untouched"

# A replace by this qdiscctl moves the place to its version; the old
# registration goes with its last instance.
must qd replace dev va root fifo limit 60
assert_eq "$(jget "$(qd -d -j show dev va)" '.[0].options.qdiscctl_version')" qdiscctl_fifo.1 "replaced"
assert_eq "$(ls $PIN | tr '\n' ' ')" "fifo-1 " "the old registration went"
wait_until 5 sh -c '[ "$(bpftool struct_ops show | grep -c Qdisc_ops)" = 1 ]' ||
	fail "old version still registered: $(bpftool struct_ops show)"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
assert_eq "$(jget "$(qd -s -j show dev va)" '.[0].packets')" 2 "the new instance passes traffic"

# The older qdiscctl, run again, registers its own again (the free first id).
must alt add dev d1 root fifo
assert_eq "$(jget "$(alt -d -j show dev d1)" '.[0].options.qdiscctl_version')" qdiscctl_fifo "old again"
must alt del dev d1 root
assert_eq "$(ls $PIN | tr '\n' ' ')" "fifo-1 " "gone with its instance"

must qd del dev va root
must qd del dev d0 root
assert_clean
assert_eq "$(qdiscctl -j gc)" "[]" "gc finds nothing"
cleanup_netns
