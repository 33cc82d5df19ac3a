# fq's memory: the maps of one registration, as the kernel charges them
# (bpftool's bytes_memlock), summed over every map its programs use and its
# struct_ops map. With the registration's instance slots N and default
# capacities: flow slots cost at most 256 bytes each (the flow and its
# entry in the pool of free ones), packet slots at most 32 (the slot and
# its entry in the pool), and the whole registration fits the budget of its
# size: at most 32 MiB up to 320 instances, 256 MiB up to 1,024. Prints
# every map and the totals.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need jq bpftool qdiscctl

must ip link add d0 type dummy
must ip link set d0 up
must qdiscctl add dev d0 root fq

maps=$(bpftool prog show -j | jq -c '[.[] | select(.name | startswith("fq_")) | .map_ids[]?] | unique')
all=$(bpftool map show -j | jq -c --argjson ids "$maps" \
	'[.[] | select((.id as $i | $ids | index($i)) or .type == "struct_ops")]')
echo "$all" | jq -r '.[] | "\(.name) \(.type) entries \(.max_entries) value \(.bytes_value) memlock \(.bytes_memlock)"'
mem() { echo "$all" | jq "[.[] | select(.name == \"$1\") | .bytes_memlock] | add // 0"; }
entries() { echo "$all" | jq "[.[] | select(.name == \"$1\") | .max_entries] | add // 0"; }

total=$(echo "$all" | jq '[.[].bytes_memlock] | add')
inst=$(entries insts)
flows=$(entries flow_pool)
pkts=$(entries pkt_pool)
per_flow=$((($(mem flows) + $(mem flow_pool)) / flows))
per_pkt=$((($(mem pkts) + $(mem pkt_pool)) / pkts))
log "instances $inst: $total bytes ($((total / 1048576)) MiB) in $(echo "$all" | jq length) maps;" \
	"$flows flow slots at $per_flow bytes, $pkts packet slots at $per_pkt bytes"
[ "$per_flow" -le 256 ] || fail "a flow slot costs $per_flow bytes"
[ "$per_pkt" -le 32 ] || fail "a packet slot costs $per_pkt bytes"
if [ "$inst" -le 320 ]; then
	[ "$total" -le $((32 * 1048576)) ] || fail "$inst instances take $total bytes, more than 32 MiB"
else
	[ "$total" -le $((256 * 1048576)) ] || fail "$inst instances take $total bytes, more than 256 MiB"
fi
must qdiscctl del dev d0 root
