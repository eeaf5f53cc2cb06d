#!/usr/bin/env bash
# Benchmarks/bench-idle.sh (third part of `make bench`): memory per idle keep-alive connection.
#
# For each server (BENCH_SERVERS, default "whisker hummingbird"; built by build.sh as bench.sh
# builds them), BENCH_ROUNDS times: start it pinned to BENCH_SERVER_CPU, read VmRSS, open
# BENCH_IDLE_CONNECTIONS (5000) connections to 127.0.0.1 that each make one request and then stay
# open and idle, read VmRSS again once every response has arrived, and report
# (after - before) / connections in KiB, the median (min-max) over the rounds. The client is
# Python's standard library (selectors), bounded in time; everything it opens is closed on exit.
# Results go to Benchmarks/.results/<UTC time>-idle/table.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
CONNECTIONS=${BENCH_IDLE_CONNECTIONS:-5000}
read -r -a SERVERS <<<"${BENCH_SERVERS:-whisker hummingbird}"
SERVER_CPU=${BENCH_SERVER_CPU:-0}
PORT=${BENCH_PORT_BASE:-18080}
out=$here/.results/$(date -u +%Y%m%dT%H%M%SZ)-idle
mkdir -p "$out"
# Room for the connections on both sides (a root shell may raise the hard limit too).
ulimit -n $((CONNECTIONS * 2 + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"

server_pid=
cleanup() { if [[ -n $server_pid ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# open_idle PORT COUNT: opens COUNT keep-alive connections, one request on each, and waits (up to
# 60 s) until every response has arrived; then prints "ready", waits for a line on stdin, and exits.
open_idle() {
    python3 - "$1" "$2" <<'PY'
import selectors, socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
request = b"GET /api/emoji HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
selector = selectors.DefaultSelector()
sockets, waiting = [], 0
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request)
    s.setblocking(False)
    selector.register(s, selectors.EVENT_READ)
    sockets.append(s)
    waiting += 1
deadline = time.monotonic() + 60
received = {}
while waiting and time.monotonic() < deadline:
    for key, _ in selector.select(timeout=1):
        data = key.fileobj.recv(65536)
        got = received.get(key.fd, b"") + data
        received[key.fd] = got
        if not data or (b"\r\n\r\n" in got and got.startswith(b"HTTP/1.1 200")):
            selector.unregister(key.fileobj)
            waiting -= 1
print("ready" if waiting == 0 else "incomplete %d" % waiting, flush=True)
sys.stdin.readline()
PY
}

declare -A BIN
for s in "${SERVERS[@]}"; do BIN[$s]=$(bash "$here/build.sh" "$s" | tail -n 1); done
# Other binaries to compare (an earlier build, say): BENCH_IDLE_EXTRA="name=/path/to/binary ...";
# each takes the port as its only argument, as the benchmark servers do.
for extra in ${BENCH_IDLE_EXTRA:-}; do SERVERS+=("${extra%%=*}"); BIN[${extra%%=*}]=${extra#*=}; done

csv=$out/results.csv
echo "round,server,kib_per_connection" >"$csv"
for ((round = 1; round <= ROUNDS; round++)); do
    for s in "${SERVERS[@]}"; do
        bin=${BIN[$s]}
        CAT_CLIP=$here/Shared/clip-1MiB.mp4 taskset -c "$SERVER_CPU" "$bin" "$PORT" >"$out/server-$s-r$round.log" 2>&1 &
        server_pid=$!
        for _ in $(seq 300); do curl -fs -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/api/emoji" && break; sleep 0.1; done
        sleep 1
        before=$(rss_kb "$server_pid")
        coproc CLIENT { open_idle "$PORT" "$CONNECTIONS"; }
        read -r -t 90 state <&"${CLIENT[0]}" || state=timeout
        after=$(rss_kb "$server_pid")
        echo >&"${CLIENT[1]}"
        wait "$CLIENT_PID" 2>/dev/null || true
        cleanup
        server_pid=
        if [[ $state != ready ]]; then echo "bench-idle: $s round $round: $state" >&2; continue; fi
        per=$(awk -v a="$after" -v b="$before" -v n="$CONNECTIONS" 'BEGIN { printf "%.2f", (a - b) / n }')
        echo "$round,$s,$per" >>"$csv"
        echo "bench-idle: round $round, $s: VmRSS $before -> $after kB, $per KiB per idle connection" >&2
    done
done

{
    echo "## Memory per idle keep-alive connection ($CONNECTIONS connections, $ROUNDS rounds)"
    echo
    echo "| server | KiB per idle connection, median (min–max) |"
    echo "|---|---:|"
    for s in "${SERVERS[@]}"; do
        awk -F, -v s="$s" '$2 == s { v[++n] = $3 } END {
            if (n == 0) { print "| " s " | – |"; exit }
            for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
            m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "| %s | %.2f (%.2f–%.2f) |\n", s, m, v[1], v[n] }' "$csv"
    done
} | tee "$out/table.md"
