# Live change: every option of a live fq changes while 1,000 datagrams of
# one flow sit in its queue (paced at maxrate 500kbit, about 23 s worth),
# and not one of them is lost: after each change the option shows its new
# value, nothing was dropped and packets + qlen is still 1,000 (also when
# flow_limit drops below the flow's queue, and when the priomap and the
# weights change under the queued packets). A larger
# maxrate then speeds the queue up (the change takes effect, not only
# shows), and nopacing at last lets the rest out at once; the receiver gets
# all 1,000. Native sch_fq (tc qdisc change) runs the same.
# vmtest-timeout: 150
# vmtest-seconds: 29
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq udpflows udpsink qstat

N=1000

# Each change: the options, then what the options line must show.
CHANGES='limit 5000|limit 5000p
flow_limit 1000|flow_limit 1000p
flow_limit 300|flow_limit 300p
quantum 4000|quantum 4000b
initial_quantum 20000|initial_quantum 20000b
buckets 64|buckets 64
orphan_mask 511|orphan_mask 511
horizon 5s|horizon 5s
horizon_cap|horizon_cap
horizon_drop|horizon_drop
timer_slack 20us|timer_slack 20us
refill_delay 80ms|refill_delay 80ms
low_rate_threshold 1mbit|low_rate_threshold 1Mbit
buckets 16|buckets 16
bands 3 priomap 2 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1|priomap 2 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1
weights 16384 16384 65536|weights 16384 16384 65536
bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1 weights 589824 196608 65536|weights 589824 196608 65536
quantum 3028|quantum 3028b'

# q: "PACKETS QLEN DROPS" of va's root, quickly.
q() { in_a qstat -d va | awk '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1); print v["packets"], v["qlen"], v["drops"] }'; }

scenario() {
	big_sndbuf
	fq_add maxrate 500kbit flow_limit 2000
	sink_start 9000 -t 60s -i 3s
	in_a udpflows -d "$IP_B" -p 9000 -l 1400 -b 4000000 -n $N >"$TMPDIR/tx.out" || kfail "sender failed"
	set -- $(q)
	log "[$KIND] after the burst: packets $1 qlen $2 drops $3"
	[ "$2" -ge $((N - 50)) ] || kfail "the burst is not queued (qlen $2)"
	printf '%s\n' "$CHANGES" | while IFS='|' read -r opts shows; do
		# shellcheck disable=SC2086
		fq_change $opts || kfail "change $opts failed"
		line=$(fq_show | head -n 1)
		# The kernel reads qlen and the packet counter one after the other,
		# not atomically: a dequeue in between makes the sum 1 off. Up to
		# five looks for a consistent one.
		for _ in 1 2 3 4 5; do
			set -- $(q)
			[ $(($1 + $2)) != $N ] || break
		done
		log "[$KIND] $opts: packets $1 qlen $2 drops $3"
		case " $line " in
		*" $shows "*) ;;
		*) kfail "after change $opts the options show: $line" ;;
		esac
		[ "$3" = 0 ] || kfail "change $opts dropped packets (drops $3)"
		[ $(($1 + $2)) = $N ] || kfail "after change $opts packets $1 + qlen $2 != $N"
		[ "$2" -gt 0 ] || kfail "the queue ran empty before the changes were done (after $opts)"
	done || exit 1
	# maxrate: the dequeue rate follows (500 kbit/s is ~43 datagrams/s).
	r1=$(in_a qstat -d va -i 100ms -t 1s -s | kv rate_bps)
	fq_change maxrate 2mbit || kfail "change maxrate failed"
	assert_match "$(fq_show | head -n 1)" ' maxrate 2Mbit ' "[$KIND] maxrate shown"
	r2=$(in_a qstat -d va -i 100ms -t 1s -s | kv rate_bps)
	log "[$KIND] dequeue rate $r1 bit/s at 500kbit, $r2 bit/s at 2mbit"
	fcmp "$r1" '<=' 600000 || kfail "at maxrate 500kbit the queue drained at $r1 bit/s"
	fcmp "$r2" '>=' 1500000 || kfail "after maxrate 2mbit the queue drains at only $r2 bit/s"
	set -- $(q)
	[ "$2" -gt 0 ] || kfail "the queue ran empty before nopacing"
	fq_change nopacing || kfail "change nopacing failed"
	assert_match "$(fq_show | head -n 1)" ' nopacing ' "[$KIND] nopacing shown"
	wait_until 5 drained || kfail "nopacing did not let the queue out: $(q)"
	fq_change pacing || kfail "change pacing failed"
	assert_no_match "$(fq_show | head -n 1)" ' nopacing ' "[$KIND] pacing again"
	set -- $(q)
	assert_eq "$1 $3" "$N 0" "[$KIND] packets and drops at the end"
	sink_wait 9000
	sink_out 9000
	assert_eq "$(sink_field 9000 pkts)" $N "[$KIND] datagrams received"
	assert_eq "$(sink_field 9000 rxdrops)" 0 "[$KIND] receiver drops"
	# (Order is not asserted: veth hands packets sent from different CPUs
	# (the sender's, the watchdog's) to different per-CPU backlogs, which
	# can reorder them after the qdisc; sch_fq shows the same.)
	log "[$KIND] received out of order: $(sink_flows 9000 ooo)"
}

fq_run scenario
fq_done
