# The command line around the commands: version, help, -n, -b batches.
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl jq

netns_pair --neigh
assert_match "$(qdiscctl --version)" '^qdiscctl [0-9.]+ \(libbpf v?1\.[5-9]' "--version names libbpf"
must qdiscctl help >/dev/null
must qdiscctl help fifo >/dev/null
must qdiscctl help del >/dev/null
expect_fail 255 '"nosuch"' qdiscctl help nosuch
expect_fail 1 '"nosuchns"' qdiscctl -n nosuchns show
assert_eq "$(qdiscctl -j kinds | jq -r '.[] | select(.name == "fifo") | .options[0].default')" 1000 "kinds -j"

# A batch: comments, blank lines, quoting, continuation; every line runs in netns a.
cat >/tmp/ok.batch <<'B'
# set up
add dev va root handle 1: \
    fifo limit 42

show dev "va"
del dev va root   # and tear down
B
must qdiscctl -n a -b /tmp/ok.batch >/tmp/out
assert_match "$(cat /tmp/out)" 'qdiscctl_fifo 1: root .*limit 42p' "batch output"
assert_clean "after the batch"

# The first failure stops the batch, names FILE:LINE and sets the exit code.
printf 'add dev va root fifo\nadd dev va root fifo limit 0\ndel dev va root\n' >/tmp/bad.batch
qdiscctl -n a -b /tmp/bad.batch 2>/tmp/err
assert_eq "$?" 255 "batch exit code"
assert_match "$(cat /tmp/err)" '^/tmp/bad.batch:2: .*"0"' "FILE:LINE"
assert_match "$(qd show dev va)" 'qdiscctl_fifo' "line 3 did not run"
# --force goes on: line 3 deletes the fifo, and the exit code is line 2's.
must qd del dev va root
qdiscctl -n a --force -b /tmp/bad.batch 2>/dev/null
assert_eq "$?" 255 "--force keeps the first failure's code"
assert_match "$(qd show dev va)" 'noqueue' "line 3 ran under --force"
assert_clean "after --force"
printf 'show dev va\n' | qdiscctl -n a -b - >/dev/null || fail "-b - reads stdin"

# -j: every command prints JSON on stdout, errors too (bpftool's shape),
# stderr stays empty and the exit codes are the text mode's.
assert_eq "$(qd -j add dev va root fifo 2>/tmp/err)" null "-j add prints null"
assert_eq "$(qd -j add dev va root fifo 2>>/tmp/err | jq -r .errno_name)" EEXIST "-j kernel error"
assert_eq "$(qd -j add dev va root fifo limit 0 2>>/tmp/err; echo $?)" '{"error":"fifo: limit \"0\" is out of range 1..1048576"}
255' "-j usage error and exit code"
assert_eq "$(qd -j del dev va root 2>>/tmp/err)" null "-j del prints null"
assert_eq "$(cat /tmp/err)" "" "-j leaves stderr empty"
qdiscctl -n a -j --force -b /tmp/bad.batch >/tmp/out 2>/tmp/err
assert_eq "$?" 255 "-j batch exit code"
assert_eq "$(jq -c 'select(.error) | [.file, .line]' </tmp/out)" '["/tmp/bad.batch",2]' "-j batch FILE:LINE"
assert_eq "$(cat /tmp/err)" "" "-j batch leaves stderr empty"
assert_clean "after -j"
cleanup_netns
