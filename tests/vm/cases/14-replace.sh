# replace: options of a live fifo change in place; fifo -> native -> fifo.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq

netns_pair --neigh
quiet_ns a b
must qd replace dev va root handle 1: fifo limit 100
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must qd replace dev va root fifo limit 50
st=$(qd -s -j show dev va)
assert_eq "$(jget "$st" '.[0].options.limit')" 50 "limit changed"
assert_eq "$(jget "$st" '.[0].handle')" "1:" "same instance"
assert_eq "$(jget "$st" '.[0].packets')" 2 "counters kept: it is the same instance"

must qd replace dev va root pfifo
assert_match "$(in_a tc qdisc show dev va)" 'qdisc pfifo' "native qdisc in place"
assert_clean "after fifo -> pfifo"
must qd replace dev va root fifo limit 20
assert_eq "$(jget "$(qd -j show dev va)" '.[0].options.limit')" 20 "fifo again"
must in_a ping -c 2 -i 0.2 -q "$IP_B"
must qd del dev va root
assert_clean
cleanup_netns
