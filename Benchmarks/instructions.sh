#!/bin/bash
# instructions.sh CAT_SERVICE [ROUNDS]: the user-space instructions a request costs the server,
# counted by valgrind's cachegrind: deterministic to within a few hundred instructions run to run,
# where CPU time per request moves by a quarter with the machine's load. So two revisions compare
# without the noise of wrk (Benchmarks/README.md, "Instructions per request").
#
# Each scenario starts the server under cachegrind twice (one worker), sends N requests to one and
# 3N to the other (h2load, 4 connections, after the same warm-up), and divides the difference by 2N:
# what start-up and shutdown cost falls out. The kernel's share (the TCP stack, waking the client)
# is not counted: that is what `make bench` measures. Valgrind 3.19 cannot read Swift 6's DWARF 5,
# so the binary is stripped of its debug information first (its symbols stay).
set -euo pipefail
bin=${1:?usage: instructions.sh CAT_SERVICE [N]}
n=${2:-1000}
port=${INSTRUCTIONS_PORT:-18190}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/cat-service" "$bin"

# count LOAD_ARGS...: instructions for the requests h2load makes with these arguments
count() {
    local totals=()
    for requests in "$n" $((3 * n)); do
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/out.$requests" \
            "$work/cat-service" --host 127.0.0.1 --port "$port" --workers 1 --log-level warning >/dev/null 2>"$work/valgrind.log" &
        local pid=$!
        for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$port/api/emoji" && break; sleep 0.1; done
        h2load -n 200 -c 4 "$@" >/dev/null
        h2load -n "$requests" -c 4 "$@" | grep -q "$requests succeeded" || { echo "instructions: not every request succeeded" >&2; exit 1; }
        kill -INT "$pid"; wait "$pid" || true
        totals+=("$(awk '/^summary:/ { print $2 }' "$work/out.$requests")")
    done
    echo $(( (totals[1] - totals[0]) / (2 * n) ))
}

echo "| request (\`cat-service\`, validation on, one worker) | instructions a request |"
echo "| --- | ---: |"
echo "| \`GET /api/emoji\`, HTTP/1.1 keep-alive | $(count --h1 "http://127.0.0.1:$port/api/emoji") |"
echo "| \`GET /api/emoji?count=3\`, HTTP/1.1 keep-alive | $(count --h1 "http://127.0.0.1:$port/api/emoji?count=3") |"
echo "| \`GET /api/emoji\`, h2c, 4 streams a connection | $(count -m 4 "http://127.0.0.1:$port/api/emoji") |"
