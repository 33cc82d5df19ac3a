# exporter: one HTTP request a process on stdin and stdout, as
# qdiscctl-exporter.socket hands connections over (systemd-socket-activate
# does what its Accept=yes does). curl gets what metrics prints, which
# promtool accepts; 1,000 malformed requests are refused one by one and
# leave no process and no memory behind; a client that sends nothing is
# dropped after 5 s; it still answers afterwards.
# vmtest-seconds: 44
# vmtest-tools: curl systemd-socket-activate promtool
. /tests/lib.sh
. /tests/qdisc-lib.sh
need qdiscctl curl systemd-socket-activate httpbad

netns_pair --neigh
quiet_ns a b
must qd add dev va root handle 1: fq
must in_a ping -c 5 -i 0.01 -q "$IP_B" >/dev/null
# The same command line as qdiscctl-exporter@.service's.
systemd-socket-activate --inetd -a -l 127.0.0.1:9978 qdiscctl exporter --all-netns 2>/tmp/ssa.log &
act=$!
up() { ss -ltn | grep -q '127.0.0.1:9978 '; }
wait_until 5 up || fail "no listener: $(cat /tmp/ssa.log)"

out=$(curl -s -S -D /tmp/h -o /tmp/body http://127.0.0.1:9978/metrics 2>&1) || fail "curl: $out"
assert_match "$(cat /tmp/h)" '^HTTP/1.1 200 OK' "status"
assert_match "$(cat /tmp/h)" '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "Prometheus' content type"
assert_match "$(cat /tmp/body)" '^qdiscctl_qdisc_packets_total\{netns="a",dev="va",kind="qdiscctl_fq",handle="1:",parent="root"\} 5$' \
	"va's fq in namespace a"
assert_eq "$(md5sum </tmp/body)" "$(qdiscctl metrics --all-netns | md5sum)" "what metrics prints"
if have promtool; then
	out=$(promtool check metrics </tmp/body 2>&1) || fail "promtool: $out"
fi
assert_match "$(curl -s -o /dev/null -w '%{http_code}' -X POST http://127.0.0.1:9978/metrics)" '^405$' "POST"
assert_match "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9978/)" '^404$' "another path"

# A client that sends nothing holds one process for 5 s, not more.
t0=$(uptime_cs)
idle=$(httpbad -a 127.0.0.1 -p 9978 -n 0 -s 2>&1) || fail "idle client: $idle"
dt=$(($(uptime_cs) - t0))
log "idle client: $idle after ${dt}0 ms"
assert_match "$idle" ' 408=1 ' "an idle client gets 408"
[ "$dt" -ge 450 ] && [ "$dt" -le 800 ] || fail "an idle client was dropped after ${dt}0 ms, not 5 s"

mem() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
rss() { awk '/^VmRSS:/ { print $2 }' /proc/$act/status; }
m0=$(mem) r0=$(rss) t0=$(uptime_cs)
res=$(httpbad -a 127.0.0.1 -p 9978 -n 1000) || fail "httpbad: $res"
dt=$(($(uptime_cs) - t0))
sleep 0.5
m1=$(mem) r1=$(rss)
log "1000 malformed requests in ${dt}0 ms: $res; MemAvailable $m0 -> $m1 kB, listener RSS $r0 -> $r1 kB"
assert_match "$res" '^sent 1000 status 400=[0-9]+ 404=[0-9]+ 405=[0-9]+ 431=[0-9]+ closed 0$' "every one refused with a status"
left=$(ps | grep '[q]discctl exporter' | grep -vc socket-activate)
assert_eq "$left" 0 "exporters left running"
# No process stays, so nothing can grow: what is gone from the machine is
# page cache and slab noise, well under 1 MB a hundred requests.
[ $((m0 - m1)) -lt 10240 ] || fail "MemAvailable fell by $((m0 - m1)) kB"
[ "$r1" -le $((r0 + 64)) ] || fail "the listener grew from $r0 to $r1 kB"
assert_match "$(curl -s http://127.0.0.1:9978/metrics)" '^qdiscctl_qdisc_bytes_total\{' "answers after them"
kill $act
wait $act 2>/dev/null
log "ok"
