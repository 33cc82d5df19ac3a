#!/usr/bin/env bash
# make install's systemd units pass systemd-analyze verify: their syntax,
# the qdiscctl their ExecStart names (installed under a scratch PREFIX, so
# the units point at it) and the man page Documentation= names.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v systemd-analyze >/dev/null || { echo "FAIL systemd: no systemd-analyze (make deps installs systemd)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
make -s -C "$top" install PREFIX="$tmp/usr" >"$tmp/install.log" 2>&1 || { echo "make install failed: $(cat "$tmp/install.log")"; exit 1; }
d=$tmp/usr/lib/systemd/system
units=("$d"/qdiscctl.service "$d"/qdiscctl-watch.service "$d"/qdiscctl-exporter.socket "$d"/qdiscctl-exporter@.service)
for u in "${units[@]}"; do
	[[ $u == *.socket ]] && continue
	[ -f "$u" ] || { echo "not installed: $u"; fail=1; }
	grep -q "^ExecStart=$tmp/usr/sbin/qdiscctl " "$u" || { echo "$u: ExecStart is not the installed qdiscctl"; fail=1; }
done
[ -f "${units[2]}" ] || { echo "not installed: ${units[2]}"; fail=1; }
grep -qx 'Accept=yes' "${units[2]}" && grep -qx 'ListenStream=127.0.0.1:9978' "${units[2]}" ||
	{ echo "${units[2]}: not one process a connection on localhost"; fail=1; }
[ -f "$tmp/usr/share/doc/qdiscctl/qdiscctl.conf.example" ] || { echo "no example config installed"; fail=1; }
out=$(MANPATH="$tmp/usr/share/man" systemd-analyze verify "${units[@]}" 2>&1) || { echo "systemd-analyze verify: $out"; fail=1; }
[ -z "$out" ] || { echo "systemd-analyze verify says: $out"; fail=1; }
[ $fail = 0 ] && echo "PASS systemd: ${#units[@]} units verified"
exit $fail
