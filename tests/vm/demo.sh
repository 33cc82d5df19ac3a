# The demo: a BPF fifo as the root qdisc of a veth, traffic through it, its
# statistics next to tc's view, and a delete that leaves nothing behind.
. /tests/lib.sh
. /tests/qdisc-lib.sh

step() { printf '\n$ %s\n' "$*"; "$@"; }

netns_pair --neigh
quiet_ns a b
step qdiscctl --version
step qdiscctl kinds
step qdiscctl -n a add dev va root handle 1: fifo limit 500
step qdiscctl -n a show dev va
step ls /sys/fs/bpf/qdiscctl/fifo
iperf_server b
step ip netns exec a iperf3 -c "$IP_B" -t 2
step qdiscctl -n a -s show dev va
step qdiscctl -n a -s -j -p show dev va
step tc -n a -s qdisc show dev va
step qdiscctl -n a del dev va root
step qdiscctl -n a show dev va
assert_clean
echo "nothing of qdiscctl is left in bpffs or in the kernel"
cleanup_netns
