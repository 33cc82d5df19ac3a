# edt's lending among many backlogged cgroups at once, side by side with
# htb in the same boot: 8 cgroups with 500kbit each under 12mbit. Two at
# prio 0 borrow first, up to their ceil of 2500kbit; the 4 Mbit/s left go
# to the six at prio 1 by weight (1, 1, 2, 2, 3, 3; htb: quanta 1,500
# times the weight): 2.5, 2.5, 0.83, 0.83, 1.17, 1.17, 1.5 and 1.5 Mbit/s.
# Every sender offers twice that, so all 8 classes are backlogged and
# dequeue picks among their heaps at every packet: a class out of order
# in one gets a share that is not its own. Each share is the expected one
# within 5 %, and htb's within 5 % of edt's.
# vmtest-timeout: 300
# vmtest-seconds: 60
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need qdiscctl jq udpflows udpsink

cg=/sys/fs/cgroup/lend
netns_pair --neigh
quiet_ns a b
big_sndbuf

# Sender i (0..7) is in cgroup lend/i and sends to port 9001 + i.
prio_of() { [ "$1" -lt 2 ] && echo 0 || echo 1; }
weight_of() { [ "$1" -lt 2 ] && echo 1 || echo $((($1 - 2) / 2 + 1)); }
ceil_of() { [ "$1" -lt 2 ] && echo 2500 || echo 12000; }
# bytes/s: 500kbit and a share of what is lent
want_of() {
	if [ "$1" -lt 2 ]; then
		echo 312500
	else
		echo $((62500 + 500000 * $(weight_of "$1") / 12))
	fi
}
set --
i=0
while [ "$i" -lt 8 ]; do
	must mkdir -p "$cg/$i"
	set -- "$@" cgroup "/lend/$i" rate 500kbit ceil "$(ceil_of $i)kbit" prio "$(prio_of $i)" \
		weight "$(weight_of $i)"
	i=$((i + 1))
done

cgdir_of() { echo "$cg/$1"; }
# twice what sender i should get
pps_of() { echo $(($(want_of "$1") * 2 / 1442)); }

must qd add dev va root edt rate 12mbit burst 48k "$@"
cg_window 8 cgdir_of pps_of
edt=$res
must qd del dev va root

# htb, classified by port: prio and quantum for prio and weight.
htb_words_of() {
	echo rate 500kbit ceil "$(ceil_of "$1")kbit" prio "$(prio_of "$1")" \
		quantum $((1500 * $(weight_of "$1"))) burst 48k cburst 48k
}
htb_by_port 8 12mbit htb_words_of burst 48k cburst 48k quantum 60000
cg_window 8 cgdir_of pps_of
htb=$res
must in_a tc qdisc del dev va root

i=0
set -- $htb
for e in $edt; do
	log "cgroup lend/$i (prio $(prio_of $i), weight $(weight_of $i)): edt $e B/s, htb $1 B/s, want $(want_of $i) B/s"
	shift
	i=$((i + 1))
done
i=0
set -- $htb
for e in $edt; do
	within "$e" "$(want_of $i)" 5 "edt, cgroup lend/$i"
	within "$1" "$e" 5 "htb against edt, class 1:$((100 + i))"
	shift
	i=$((i + 1))
done
assert_clean
