# /run/qdiscctl world-writable below: another user's directory, a planted
# save file or a symlink in its place is refused with one line; nothing is
# written through a symlink and no planted value is applied; qdiscctl's own
# directory and save files are root's and closed to others.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl
[ -x /usr/bin/setpriv ] || skip "no setpriv"
nobody() { /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
DQ=/proc/sys/net/core/default_qdisc
WM=/proc/sys/net/core/wmem_max
set_sysctl net.core.default_qdisc "$(cat $DQ)"
set_sysctl net.core.wmem_max "$(cat $WM)"

mode=$(stat -c %a /run)
must chmod 1777 /run
rm -rf /run/qdiscctl
must sh -c 'echo secret >/root-only' && chmod 600 /root-only
restore() { rm -rf /run/qdiscctl; rm -f /root-only; chmod "$mode" /run; }
trap restore EXIT
dq=$(cat $DQ) wm=$(cat $WM)

# Another user's directory with planted save files.
must nobody mkdir /run/qdiscctl
must nobody sh -c 'echo pfifo >/run/qdiscctl/default_qdisc.saved'
expect_fail 1 '/run/qdiscctl is not qdiscctl.s \(owner uid 65534' qdiscctl sysctl apply backpressure
expect_fail 1 'default_qdisc.saved is not qdiscctl.s' qdiscctl default restore
expect_fail 1 '/run/qdiscctl is not qdiscctl.s' qdiscctl default fifo
assert_eq "$(cat $DQ)" "$dq" "default_qdisc untouched"
assert_eq "$(cat $WM)" "$wm" "wmem_max untouched"
must rm -rf /run/qdiscctl

# A symlink in its place, and root's own directory with a symlink planted
# in it before (only root can write there after).
must nobody ln -s / /run/qdiscctl
expect_fail 1 'cannot open /run/qdiscctl' qdiscctl sysctl apply backpressure
assert_eq "$(cat $WM)" "$wm" "wmem_max untouched behind a symlinked directory"
must rm /run/qdiscctl
must mkdir -m 0700 /run/qdiscctl
must ln -s /root-only /run/qdiscctl/default_qdisc.saved
expect_fail 1 'default_qdisc.saved is not qdiscctl.s' qdiscctl default restore
assert_eq "$(cat /root-only)" secret "a file behind a planted symlink"
must rm -rf /run/qdiscctl

# qdiscctl's own: root's, 0700, files 0600; save and restore work.
must qdiscctl sysctl apply backpressure
assert_eq "$(stat -c '%u %a' /run/qdiscctl)" "0 700" "the state directory"
for f in /run/qdiscctl/*.saved; do
	assert_eq "$(stat -c '%u %a' "$f")" "0 600" "$f"
done
nobody ls /run/qdiscctl >/dev/null 2>&1 && fail "another user lists the state directory"
must qdiscctl sysctl restore
assert_eq "$(cat $WM)" "$wm" "wmem_max restored"
must qdiscctl default fifo
assert_eq "$(stat -c '%u %a' /run/qdiscctl/default_qdisc.saved)" "0 600" "default's save file"
must qdiscctl default restore
assert_eq "$(cat $DQ)" "$dq" "default_qdisc restored"
assert_clean "after default restore"
