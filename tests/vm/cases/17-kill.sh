# kill -9 at every step qdiscctl exposes (QDISCCTL_TEST_KILL_AT): the lock is
# released, gc reports exactly what the killed run left and removes it, the
# next add cleans it up by itself, and nothing of qdiscctl stays behind.
# vmtest-timeout: 900
# vmtest-seconds: 330
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq bpftool flock
# The test build (make testbin): the shipped qdiscctl has no kill hook.
have qdiscctl-test || fail "no qdiscctl-test in the VM: make testbin"
qdiscctl() { qdiscctl-test "$@"; }

PIN=/sys/fs/bpf/qdiscctl
# default may be killed half-way: the runner puts the sysctl back whatever happens.
set_sysctl net.core.default_qdisc "$(cat /proc/sys/net/core/default_qdisc)"
orig_default=$(cat /proc/sys/net/core/default_qdisc)

netns_pair --neigh
quiet_ns a b
must ip -n a link add d0 type dummy
must ip -n a link set d0 up

# The lock is real: while another process holds it, qdiscctl waits.
must qd add dev d0 root fifo
flock "$PIN" sleep 3 &
holder=$!
sleep 0.5
timeout 1 qdiscctl gc >/dev/null 2>&1 && fail "gc ran while the lock was held"
wait $holder
must qd del dev d0 root
assert_clean "after the lock check"

steps=$(qdiscctl __kill-steps | cut -f1)
[ "$(echo "$steps" | wc -l)" -ge 11 ] || fail "too few kill steps: $steps"

# run STEP CMD...: CMD with the kill hook at STEP; "killed", "ok", or fails the case.
run() {
	_step=$1
	shift
	export QDISCCTL_TEST_KILL_AT="$_step"
	"$@" >/tmp/run.out 2>&1
	_rc=$?
	unset QDISCCTL_TEST_KILL_AT
	case $_rc in
	137) echo killed ;;
	0) echo ok ;;
	*) fail "$* (kill at $_step not reached): $(cat /tmp/run.out)" ;;
	esac
}

# kind_of STEP: the kind a step adds and deletes. edt for the steps of its
# egress link (only a kind with a tcx egress program has one), prio for
# the others: a registration is a verifier run of seconds under TCG, the
# case makes some thirty, and prio's programs verify in a third of edt's
# time. default's kind is fifo, which must differ from both.
kind_of() {
	case $1 in
	egress | deleted) echo edt ;;
	*) echo prio ;;
	esac
}
# The options of kind_of's kinds on an add.
kind_opts() { [ "$1" != edt ] || echo rate 10mbit; }

# scenario STEP: add, del, default fifo, default restore, until one is killed at STEP.
scenario() {
	for _cmd in "qd add dev va root $K $(kind_opts $K)" "qd del dev va root" \
		"qdiscctl default fifo limit 77" "qdiscctl default restore"; do
		[ "$(run "$1" $_cmd)" = killed ] && { echo "$_cmd"; return; }
	done
	fail "no command reached kill step $1"
}

# What gc must report after a kill at STEP in VARIANT, as sorted "what:registration".
expected() {
	case $1:$2 in
	*:lock | *:registering | *:created) ;;
	fresh:pinning | fresh:pinned | fresh:unpinning) echo "registration:$K" ;;
	fresh:registered | fresh:pending | fresh:egress | fresh:deleted) echo "registration:$K" ;;
	*:default) echo "registration:fifo" ;;
	survivor:pinning | survivor:pinned | survivor:registered | survivor:unpinning)
		echo "registration:fifo" ;;
	survivor:pending) echo "pending:$K" ;;
	survivor:egress) printf 'egress:%s\npending:%s\n' "$K" "$K" ;;
	survivor:deleted) echo "egress:$K" ;;
	*) fail "no expectation for step $2 ($1): add one to this case" ;;
	esac
}

pending_entries() { bpftool -j map dump pinned "$PIN/$K/pending" | jq length; }

for variant in fresh survivor next; do
	for step in $steps; do
		K=$(kind_of "$step")
		[ "$variant" = fresh ] || must qd add dev d0 root $K $(kind_opts $K)
		cmd=$(scenario "$step")
		log "$variant $step: killed in '$cmd'; left: $(ls -R $PIN 2>/dev/null | tr '\n' ' ')"
		# The kernel dropped the dead process's lock.
		[ ! -e "$PIN" ] || flock -n "$PIN" true || fail "$step: the lock outlived the process"
		if [ "$variant" = next ]; then
			# The next run cleans up by itself: gc then finds nothing.
			must qd replace dev va root $K $(kind_opts $K)
			[ ! -e /run/qdiscctl/default_qdisc.saved ] || must qdiscctl default restore
			gc=$(qdiscctl -j gc) || fail "gc failed"
			assert_eq "$gc" "[]" "$step: the run after the kill cleaned up"
		else
			gc=$(qdiscctl -j gc) || fail "gc failed"
			got=$(jget "$gc" '.[] | "\(.removed):\(.registration)"' | sort)
			assert_eq "$got" "$(expected $variant $step | sort)" "$step ($variant): gc removed"
			text=$(qdiscctl gc)
			assert_eq "$text" "" "$step: a second gc finds nothing"
			[ -z "$got" ] || assert_match "$(jget "$gc" '.[0].detail')" . "gc says why"
			# A kill in default leaves the old value saved; restoring it is harmless.
			[ ! -e /run/qdiscctl/default_qdisc.saved ] || must qdiscctl default restore
		fi
		assert_eq "$(cat /proc/sys/net/core/default_qdisc)" "$orig_default" "$step: default_qdisc"
		if [ "$variant" != fresh ]; then
			assert_eq "$(ls $PIN)" "$K" "$step: only the survivor's registration"
			# edt attaches one egress link per root instance; the survivor is one.
			want=0
			[ "$K" != edt ] || want=1
			! qd show dev va | grep -q "qdiscctl_$K" || [ "$K" != edt ] || want=2
			assert_eq "$(ls $PIN/$K | grep -c '^egress-')" $want "$step: egress links"
			assert_eq "$(pending_entries)" 1 "$step: only the defaults in pending"
		fi
		# A qdisc that the kernel made is a working one.
		if qd show dev va | grep -q "qdiscctl_$K"; then
			must in_a ping -c 1 -W 2 -q "$IP_B"
			must qd del dev va root
		fi
		[ "$variant" = fresh ] || must qd del dev d0 root
		assert_clean "$variant $step"
		assert_no_match "$(in_a tc qdisc show)" qdiscctl "$step: no qdisc left"
	done
done
cleanup_netns
