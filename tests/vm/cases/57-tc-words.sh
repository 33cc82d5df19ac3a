# fifo and prio in tc's words: every option, given to add, to change of a
# default instance and to replace of one, shows (text and JSON, field by
# field) what tc shows for pfifo and prio given the same words, and del
# with the kind's name takes the instance away. (fq against sch_fq:
# 20-fq-fields; del's kinds: 51-del-kind.)
# vmtest-seconds: 45
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq

netns_pair --neigh
# Instances on two dummies keep each kind registered, so that a del of the
# last instance on va does not unregister it and the next add load it again.
for d in d0:fifo d1:prio; do
	must ip -n "$NS_A" link add "${d%:*}" type dummy
	must ip -n "$NS_A" link set "${d%:*}" up
	must qd add dev "${d%:*}" root "${d#*:}"
done

# The options of va's root, as tc and as qdiscctl show them: the text after
# "refcnt N", and the JSON object.
tc_text() { in_a tc qdisc show dev va | sed -n '1{s/.*refcnt [0-9]* //; s/ *$//; p}'; }
qd_text() { qd show dev va | sed -n '1{s/.*refcnt [0-9]* //; s/ *$//; p}'; }
# tc's JSON for sch_prio has "multiqueue":false, the mode (bands on tx
# queues) qdiscctl's prio does not have: a BPF qdisc cannot pick the tx
# queue, and "multiqueue" is refused as an unknown option.
tc_json() { in_a tc -j qdisc show dev va | jq -c '.[0].options | if .multiqueue == false then del(.multiqueue) else . end'; }
qd_json() { qd -j show dev va | jq -c '.[0].options'; }
kind_at() { in_a tc qdisc show dev va | awk '{ print $2; exit }'; }

# same OURS NATIVE HOW WORDS: after HOW (add, change, replace) with WORDS,
# qdiscctl's OURS shows what tc's NATIVE does.
same() {
	ours=$1 native=$2 how=$3 words=$4
	# shellcheck disable=SC2086
	case $how in
	add) must in_a tc qdisc add dev va root handle 1: $native $words ;;
	change)
		must in_a tc qdisc add dev va root handle 1: $native
		must in_a tc qdisc change dev va root $native $words
		;;
	replace)
		must in_a tc qdisc add dev va root handle 1: $native
		must in_a tc qdisc replace dev va root handle 1: $native $words
		;;
	esac
	text=$(tc_text) json=$(tc_json)
	must in_a tc qdisc del dev va root $native
	# shellcheck disable=SC2086
	case $how in
	add) must qd add dev va root handle 1: $ours $words ;;
	change)
		must qd add dev va root handle 1: $ours
		must qd change dev va root $ours $words
		;;
	replace)
		must qd add dev va root handle 1: $ours
		must qd replace dev va root handle 1: $ours $words
		;;
	esac
	assert_eq "$(kind_at)" "qdiscctl_$ours" "$how $ours $words: the kind"
	assert_eq "$(qd_text)" "$text" "$how $ours $words: text as tc's $native"
	assert_eq "$(qd_json)" "$json" "$how $ours $words: JSON as tc's $native"
	must qd del dev va root $ours
	assert_eq "$(kind_at)" noqueue "del ... $ours after $how"
	log "$how $ours $words: as tc's $native"
}

# The defaults (a change needs something to change).
for k in fifo:pfifo prio:prio; do
	same "${k%:*}" "${k#*:}" add ''
	same "${k%:*}" "${k#*:}" replace ''
done
# pfifo's limit, in hex: tc reads it in C's bases (get_u32(..., 0)).
for how in add change replace; do
	same fifo pfifo $how 'limit 0x40'
done
# prio's bands and priomap (qdiscctl's prio also has limit, which tc's prio
# does not; 50-prio covers it and pfifo_fast's defaults).
for how in add change replace; do
	same prio prio $how 'bands 4 priomap 3 2 2 0 1 2 0 0 1 1 1 1 1 1 1 3'
	same prio prio $how 'bands 2 priomap 1 1 1 1 0 0 0 0 1 1 1 1 1 1 1 1'
done
expect_fail 255 'unknown option "multiqueue"' qd add dev va root prio multiqueue
must qd del dev d0 root fifo
must qd del dev d1 root prio
assert_clean "after fifo and prio"
