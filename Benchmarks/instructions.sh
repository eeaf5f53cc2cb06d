#!/bin/bash
# instructions.sh CAT_SERVICE [N] [BENCH_SERVER]: the user-space instructions a request costs the
# server, counted by valgrind's cachegrind: deterministic to within a few hundred instructions run to
# run, where CPU time per request moves by a quarter with the machine's load. So two revisions
# compare without the noise of wrk (Benchmarks/README.md, "Instructions per request").
#
# Each cell starts the server under cachegrind twice (one I/O worker), sends N requests to one and
# 3N to the other (h2load, 4 connections, after the same warm-up), and divides the difference by 2N:
# what start-up and shutdown cost falls out. The kernel's share (the TCP stack, waking the client)
# is not counted: that is what `make bench` measures. Valgrind 3.19 cannot read Swift 6's DWARF 5,
# so the binaries are stripped of their debug information first (their symbols stay).
#
# With BENCH_SERVER (Benchmarks/cat-service-whisker's release binary, as Benchmarks/build.sh
# whisker builds it) the table has a row per layer, as `make bench`'s per-layer table in CPU time:
# a plain closure route (CAT_LAYER=plain), + the transport and the generated handler, + validation,
# then cat-service (+ the demo's middlewares and response steps).
set -euo pipefail
bin=${1:?usage: instructions.sh CAT_SERVICE [N] [BENCH_SERVER]}
n=${2:-1000}
bench=${3:-}
port=${INSTRUCTIONS_PORT:-18190}
# The bench server's /api/emoji never reads it, but it loads its clip at start, as bench.sh has it.
export CAT_CLIP=${CAT_CLIP:-$(cd "$(dirname "$0")" && pwd)/Shared/clip-1MiB.mp4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/cat-service" "$bin"
[[ -z $bench ]] || strip --strip-debug -o "$work/bench-server" "$bench"

# serve LAYER: the server of this layer under cachegrind, writing its counts to $work/out. Run in
# the background, it replaces its subshell (exec), so that the caller's SIGINT reaches valgrind.
serve() {
    local run=(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/out")
    case $1 in
        cat-service) exec "${run[@]}" "$work/cat-service" --host 127.0.0.1 --port "$port" --workers 1 --log-level warning ;;
        plain) CAT_LAYER=plain CAT_WORKERS=1 exec "${run[@]}" "$work/bench-server" "$port" ;;
        transport) CAT_WORKERS=1 exec "${run[@]}" "$work/bench-server" "$port" ;;
        validating) CAT_VALIDATION=1 CAT_WORKERS=1 exec "${run[@]}" "$work/bench-server" "$port" ;;
    esac
}

# count LAYER LOAD_ARGS...: instructions a request for the requests h2load makes with these arguments
count() {
    local layer=$1 totals=()
    shift
    for requests in "$n" $((3 * n)); do
        serve "$layer" >/dev/null 2>"$work/valgrind.log" &
        local pid=$!
        for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$port/api/emoji" && break; sleep 0.1; done
        h2load -n 200 -c 4 "$@" >/dev/null
        h2load -n "$requests" -c 4 "$@" | grep -q "$requests succeeded" || { echo "instructions: not every request succeeded ($layer)" >&2; exit 1; }
        kill -INT "$pid"; wait "$pid" || true
        totals+=("$(awk '/^summary:/ { print $2 }' "$work/out")")
    done
    echo $(( (totals[1] - totals[0]) / (2 * n) ))
}

# row LAYER TITLE: the layer's three counts, and with a row above, what this layer adds to it.
previous=()
row() {
    local cells=() counts=(
        "$(count "$1" --h1 "http://127.0.0.1:$port/api/emoji")"
        "$(count "$1" --h1 "http://127.0.0.1:$port/api/emoji?count=3")"
        "$(count "$1" -m 4 "http://127.0.0.1:$port/api/emoji")")
    for i in 0 1 2; do
        [[ ${counts[i]} =~ ^[0-9]+$ ]] || exit 1
        if ((${#previous[@]})); then
            cells+=("${counts[i]} ($(printf '%+d' $((counts[i] - previous[i]))))")
        else
            cells+=("${counts[i]}")
        fi
    done
    [[ -z $bench ]] || previous=("${counts[@]}")
    echo "| $2 | ${cells[0]} | ${cells[1]} | ${cells[2]} |"
}

echo "| user-space instructions a request (one I/O worker) | \`GET /api/emoji\`, HTTP/1.1 keep-alive | \`GET /api/emoji?count=3\`, HTTP/1.1 | \`GET /api/emoji\`, h2c, 4 streams a connection |"
echo "| --- | ---: | ---: | ---: |"
if [[ -n $bench ]]; then
    row plain "Whisker: a plain closure route"
    row transport "+ transport and generated handler"
    row validating "+ validation"
    row cat-service "+ the demo's middlewares and response steps (\`cat-service\`)"
else
    row cat-service "\`cat-service\`, validation on"
fi
