# fq against native sch_fq: with default options and with every option set
# (by add, by change of a default instance and by replace, in tc's words),
# qdiscctl shows the same options as tc shows for sch_fq, and its -s output
# has every statistic tc prints for sch_fq (text labels and JSON keys) plus
# collisions; tc and qdiscctl report the same counters for qdiscctl_fq.
# vmtest-seconds: 50
. /tests/lib.sh
. /tests/qdisc-lib.sh
. /tests/fq-lib.sh
need jq txtime qstat

ALL='limit 5000 flow_limit 50 quantum 4000 initial_quantum 20000 maxrate 2mbit buckets 64
	horizon 9s horizon_cap timer_slack 20us refill_delay 80ms low_rate_threshold 1mbit
	orphan_mask 511 nopacing ce_threshold 2500us offload_horizon 0
	bands 3 priomap 2 2 1 1 0 0 0 0 2 2 1 1 0 0 2 1 weights 65536 32768 16384'
# Bare numbers as tc reads them: timer_slack in ns (get_time64), the other
# times in us (get_time), counts and quanta in C's bases (get_unsigned).
# refill_delay is a whole number of jiffies: sch_fq keeps it in jiffies
# (100us shows as 4ms at HZ=250), qdiscctl's fq in ns.
BARE='limit 010 orphan_mask 0xff initial_quantum 0x10000 quantum 0x1000 timer_slack 100
	refill_delay 80000 horizon 100000 ce_threshold 100'
# (tc's JSON keys for sch_fq's priomap and weights end in a blank, "priomap "
# and "weights ", and so do qdiscctl's for fq.)
# Counters tc prints only when non-zero and that the scenario cannot make
# non-zero on both: ce_mark counts packets that left more than ce_threshold
# after they were due, which here is the guest's timer lateness (0 to 49 of
# the held datagrams from one boot to the next). 55-fq-ce compares the marks.
BY_TIMING='^ce_mark$'

# opts_of: the options of va's root, "NAME VALUE..." (priomap has 16) or a
# lone flag a line, sorted, without "qdisc KIND HANDLE root refcnt N".
opts_of() {
	fq_show | head -n 1 | awk '{
		for (i = 1; i <= NF && $i != "refcnt"; i++);
		for (i += 2; i <= NF; i++) {
			o = $i
			while (i < NF && $(i + 1) ~ /^[0-9]/) o = o " " $(++i)
			print o
		}
	}' | sort
}
# labels: the statistic names of the text output (words followed by a number).
labels() {
	fq_show | sed '1,/^ *backlog /d' | tr '()' '  ' | awk '{ for (i = 1; i < NF; i += 2) print $i }' | sort -u
}

scenario() {
	fq_add
	opts_of >"$TMPDIR/defaults.$KIND"
	log "[$KIND] defaults: $(echo $(cat "$TMPDIR/defaults.$KIND"))"
	fq_del
	# shellcheck disable=SC2086
	fq_add $ALL
	opts_of >"$TMPDIR/all.$KIND"
	fq_json | jq -c ".options" >"$TMPDIR/jall.$KIND"
	log "[$KIND] every option: $(echo $(cat "$TMPDIR/all.$KIND"))"
	fq_del
	# shellcheck disable=SC2086
	fq_add $BARE
	opts_of >"$TMPDIR/bare.$KIND"
	fq_json | jq -c ".options" >"$TMPDIR/jbare.$KIND"
	log "[$KIND] bare numbers: $(echo $(cat "$TMPDIR/bare.$KIND"))"
	fq_del
	# change takes every option to a live default instance, and replace
	# the bare numbers to another. (Onto an instance with other options
	# they differ: tc's replace of a sch_fq of the same handle is sch_fq's
	# change, which keeps the options not given; qdiscctl's replace sets
	# them to their defaults, see README.)
	fq_add
	# shellcheck disable=SC2086
	fq_change $ALL || kfail "change to every option"
	opts_of >"$TMPDIR/change.$KIND"
	fq_json | jq -c ".options" >"$TMPDIR/jchange.$KIND"
	fq_del
	fq_add
	# shellcheck disable=SC2086
	fq_replace $BARE
	opts_of >"$TMPDIR/replace.$KIND"
	fq_json | jq -c ".options" >"$TMPDIR/jreplace.$KIND"
	fq_del
	# shellcheck disable=SC2086
	fq_add $ALL
	must in_a ping -c 5 -i 0.2 -q "$IP_B"
	# The statistics tc prints only when non-zero: 100 datagrams of one
	# flow held for 1 s (EDT) meet flow_limit 50; 5 stamped 20 s ahead are
	# capped to the 9 s horizon (time for the checks below on a busy host).
	# Deleting the qdisc discards them.
	must in_a txtime -d "$IP_B" -p 9000 -D 1s -n 100 >/dev/null
	must in_a txtime -d "$IP_B" -p 9000 -D 20s -n 5 >/dev/null
	# Once the held ones have left (an unthrottle: "latency" is printed),
	# only the 5 capped ones wait (so "next_packet_delay" is printed).
	only_capped() { [ "$(in_a qstat -d va | kv qlen)" = 5 ]; }
	wait_until 5 only_capped || kfail "the held datagrams did not leave: $(fq_show)"
	labels >"$TMPDIR/labels.$KIND"
	fq_json | jq -r 'keys[]' | sort >"$TMPDIR/keys.$KIND"
	log "[$KIND] text: $(echo $(cat "$TMPDIR/labels.$KIND"))"
	log "[$KIND] JSON: $(echo $(cat "$TMPDIR/keys.$KIND"))"
	st=$(fq_xstats)
	log "[$KIND] $st"
	[ "$(xget "$st" packets)" -ge 5 ] || kfail "pings not counted: $st"
	assert_eq "$(xget "$st" flows_plimit)" 50 "[$KIND] flows_plimit"
	assert_eq "$(xget "$st" drops)" 50 "[$KIND] drops"
	assert_eq "$(xget "$st" horizon_caps)" 5 "[$KIND] horizon_caps"
	assert_eq "$(xget "$st" qlen)" 5 "[$KIND] the capped datagrams wait"
	if [ "$KIND" = fq ]; then
		assert_match "$(in_a tc qdisc show dev va)" '^qdisc qdiscctl_fq 1: root' "tc shows the kind"
		ours=$(qd -s -j show dev va)
		theirs=$(in_a tc -s -j qdisc show dev va)
		assert_eq "$(jget "$ours" "$stats_fields | tojson")" "$(jget "$theirs" "$stats_fields | tojson")" \
			"[fq] qdiscctl and tc counters"
		grep -qx collisions "$TMPDIR/labels.fq" || kfail "no collisions in -s text"
		grep -qx collisions "$TMPDIR/keys.fq" || kfail "no collisions in -s -j"
	fi
}

fq_run scenario
if fq_both; then
	for f in defaults all bare change replace labels keys; do
		missing=$(grep -vxFf "$TMPDIR/$f.fq" "$TMPDIR/$f.native" | grep -Ev "$BY_TIMING" | tr '\n' ' ')
		[ -z "$missing" ] || fail "$f: sch_fq shows '$missing', fq does not (fq: $(cat "$TMPDIR/$f.fq" | tr '\n' ','))"
	done
	for f in jall jbare jchange jreplace; do
		assert_eq "$(cat "$TMPDIR/$f.fq")" "$(cat "$TMPDIR/$f.native")" "$f: the options in JSON"
	done
	for f in defaults all bare change replace; do
		extra=$(grep -vxFf "$TMPDIR/$f.native" "$TMPDIR/$f.fq" | tr '\n' ' ')
		[ -z "$extra" ] || fail "$f: fq shows '$extra' that sch_fq does not"
	done
fi
fq_done
