#!/usr/bin/env bash
# Benchmarks/bench-h2.sh (the HTTP/2 part of `make bench`): the CatService on Whisker and on
# Hummingbird 2 over HTTP/2, side by side: h2c with prior knowledge, and h2 over TLS (ALPN).
#
# For BENCH_ROUNDS rounds, each server in turn (W, HB, W, HB, ...) runs pinned to one core and
# h2load (Debian nghttp2-client) pinned to the other, `h2load -t1 -c16 -m16` (16 connections x 16
# streams) on GET /api/emoji for BENCH_DURATION seconds after 1 s of warm-up, once over h2c and
# once over TLS with the development certificate in Tests/Certificates. Reports req/s, failed and
# errored requests, and server CPU per request, as medians with the min-max spread, and the ratio
# Whisker/Hummingbird per round. Vapor is left out: swift-openapi-vapor's server does not speak
# HTTP/2 without more set-up than the others.
#
# Loopback only; every server it starts is stopped on exit. Settings (environment), as bench.sh:
#   BENCH_ROUNDS=3 BENCH_DURATION=5 BENCH_SERVER_CPU=0 BENCH_CLIENT_CPU=1 BENCH_PORT_BASE=18080
#   BENCH_H2_SERVERS="whisker hummingbird"
# Results: Benchmarks/.results/<UTC time>-h2/ and Benchmarks/.results/latest-h2.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-5}
SERVER_CPU=${BENCH_SERVER_CPU:-0}
CLIENT_CPU=${BENCH_CLIENT_CPU:-1}
PORT_BASE=${BENCH_PORT_BASE:-18080}
read -r -a SERVERS <<<"${BENCH_H2_SERVERS:-whisker hummingbird}"
CERTS=$root/Tests/Certificates
HOST=127.0.0.1

note() { echo "bench-h2: $*" >&2; }
die() { note "$*"; exit 1; }
for tool in h2load curl taskset; do command -v "$tool" >/dev/null || die "$tool is missing (apt-get install nghttp2-client curl util-linux)"; done
if ! command -v swift >/dev/null; then export PATH="$PATH:/opt/swift/usr/bin"; fi
CLK_TCK=$(getconf CLK_TCK)
declare -A LABEL=([whisker]=Whisker [hummingbird]=Hummingbird)
declare -A PORT_OFFSET=([whisker]=11 [hummingbird]=12)

started=()
cleanup() { local pid; for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'note "interrupted; stopping the servers"; exit 130' INT TERM HUP

declare -A BIN
for s in "${SERVERS[@]}"; do
    bin=$(bash "$here/build.sh" "$s" | tail -n 1) || die "${LABEL[$s]} failed to build"
    BIN[$s]=$bin
done

run_id=$(date -u +%Y%m%dT%H%M%SZ)-h2
out=$here/.results/$run_id
mkdir -p "$out"
csv=$out/results.csv
echo "round,server,mode,metric,value" >"$csv"
problems=()

# start SERVER MODE PORT LOG: MODE h2c or tls; waits until it answers; sets pid.
start() {
    local s=$1 mode=$2 port=$3 log=$4 url env=(CAT_H2C=1 CAT_CLIP="$here/Shared/clip-1MiB.mp4")
    if [[ $mode == tls ]]; then env=(CAT_TLS_CERT="$CERTS/localhost.pem" CAT_TLS_KEY="$CERTS/localhost-key.pem" CAT_CLIP="$here/Shared/clip-1MiB.mp4"); fi
    env "${env[@]}" taskset -c "$SERVER_CPU" "${BIN[$s]}" "$port" >"$log" 2>&1 &
    pid=$!
    started+=("$pid")
    url=$([[ $mode == tls ]] && echo "https://localhost:$port" || echo "http://$HOST:$port")
    # Hummingbird's h2c port speaks only HTTP/2, so the probe uses HTTP/2 too.
    local http2=$([[ $mode == tls ]] && echo --http2 || echo --http2-prior-knowledge)
    local deadline=$((SECONDS + 30))
    until curl -fs -o /dev/null --max-time 1 --cacert "$CERTS/ca.pem" "$http2" "$url/api/emoji"; do
        kill -0 "$pid" 2>/dev/null || { note "${LABEL[$s]} ($mode) exited (see $log)"; return 1; }
        ((SECONDS < deadline)) || { note "${LABEL[$s]} ($mode) did not answer in 30 s (see $log)"; return 1; }
        sleep 0.1
    done
    # The protocol must really be HTTP/2.
    local version
    version=$(curl -s -o /dev/null --max-time 5 --cacert "$CERTS/ca.pem" -w '%{http_version}' "$http2" "$url/api/emoji")
    [[ $version == 2 ]] || { note "${LABEL[$s]} ($mode) answered HTTP/$version, not HTTP/2"; return 1; }
}

stop() {
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    local kept=() p
    for p in "${started[@]}"; do [[ $p == "$pid" ]] || kept+=("$p"); done
    started=("${kept[@]}")
}

ticks() { local stat rest; stat=$(<"/proc/$1/stat"); rest=${stat##*") "}; read -r -a f <<<"$rest"; echo $((f[11] + f[12])); }

for ((round = 1; round <= ROUNDS; round++)); do
    for mode in h2c tls; do
        for s in "${SERVERS[@]}"; do
            port=$((PORT_BASE + PORT_OFFSET[$s]))
            log=$out/server-$s-$mode-r$round.log
            tag="round $round/$ROUNDS, ${LABEL[$s]}, $mode"
            if ! start "$s" "$mode" "$port" "$log"; then problems+=("$tag: did not start"); stop; continue; fi
            url=$([[ $mode == tls ]] && echo "https://127.0.0.1:$port" || echo "http://$HOST:$port")
            before=$(ticks "$pid")
            result=$out/h2load-$s-$mode-r$round.txt
            timeout -k 5 $((DURATION + 30)) taskset -c "$CLIENT_CPU" \
                h2load -t1 -c16 -m16 -D "$DURATION" --warm-up-time=1 "$url/api/emoji" >"$result" 2>&1 || true
            after=$(ticks "$pid")
            stop
            finished=$(grep -E '^finished in' "$result" || true)
            requests=$(grep -E '^requests:' "$result" || true)
            if [[ ! $finished =~ ([0-9.]+)\ req/s ]] || [[ ! $requests =~ ([0-9]+)\ succeeded,\ ([0-9]+)\ failed,\ ([0-9]+)\ errored ]]; then
                problems+=("$tag: h2load gave no result (see $result)"); continue
            fi
            [[ $finished =~ ([0-9.]+)\ req/s ]]; rps=${BASH_REMATCH[1]}
            [[ $requests =~ ([0-9]+)\ succeeded,\ ([0-9]+)\ failed,\ ([0-9]+)\ errored ]]
            ok=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]} errored=${BASH_REMATCH[3]}
            ((failed + errored == 0)) || problems+=("$tag: $failed failed, $errored errored requests")
            cpu=$(awk -v t=$((after - before)) -v hz="$CLK_TCK" -v n="$ok" 'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')
            { echo "$round,$s,$mode,rps,$rps"; echo "$round,$s,$mode,failed,$((failed + errored))"; echo "$round,$s,$mode,cpu_us_per_req,$cpu"; } >>"$csv"
            note "$tag: $rps req/s, $ok succeeded, $failed failed, $errored errored, $cpu us CPU/request"
        done
    done
done

table=$out/table.md
{
    echo "## CatService over HTTP/2: Whisker vs Hummingbird 2 ($run_id)"
    echo
    echo "Whisker $(git -C "$root" rev-parse --short HEAD), $(h2load --version 2>&1 | head -n 1), $(nproc) cores." \
        "Rounds: $ROUNDS, \`h2load -t1 -c16 -m16 -D $DURATION --warm-up-time=1\` on GET /api/emoji, server on core $SERVER_CPU, h2load on core $CLIENT_CPU, 127.0.0.1." \
        "Cells: median (min–max) over the rounds; the ratio is Whisker/Hummingbird per round. CPU per request counts the warm-up second too (for both servers)."
    echo
    awk -F, '
        function isort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
        function stats(a, n, d,   m) {
            if (n == 0) return "–"
            isort(a, n); m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            return n == 1 ? sprintf("%." d "f", m) : sprintf("%." d "f (%." d "f–%." d "f)", m, a[1], a[n])
        }
        NR > 1 { v[$2, $3, $4, $1] = $5; if ($1 > maxr) maxr = $1 }
        function cell(s, mode, m, d,   a, n, r) { n = 0; for (r = 1; r <= maxr; r++) if ((s, mode, m, r) in v) a[++n] = v[s, mode, m, r]; return stats(a, n, d) }
        function ratio(mode, m,   a, n, r) {
            n = 0
            for (r = 1; r <= maxr; r++) if (("whisker", mode, m, r) in v && ("hummingbird", mode, m, r) in v && v["hummingbird", mode, m, r] > 0)
                a[++n] = v["whisker", mode, m, r] / v["hummingbird", mode, m, r]
            return stats(a, n, 2)
        }
        END {
            print "| | Whisker | Hummingbird | Whisker/Hummingbird |"
            print "|---|---:|---:|---:|"
            split("h2c tls", modes, " ")
            for (i = 1; i <= 2; i++) {
                mode = modes[i]; name = (mode == "h2c" ? "h2c (prior knowledge)" : "h2 over TLS (ALPN)")
                print "| " name " 16x16: req/s | " cell("whisker", mode, "rps", 0) " | " cell("hummingbird", mode, "rps", 0) " | " ratio(mode, "rps") " |"
                print "| … server CPU per request (µs) | " cell("whisker", mode, "cpu_us_per_req", 1) " | " cell("hummingbird", mode, "cpu_us_per_req", 1) " | " ratio(mode, "cpu_us_per_req") " |"
                print "| … failed + errored requests | " cell("whisker", mode, "failed", 0) " | " cell("hummingbird", mode, "failed", 0) " | – |"
            }
        }' "$csv"
    if ((${#problems[@]})); then echo; echo "Problems:"; for p in "${problems[@]}"; do echo "- $p"; done; fi
} >"$table"
cp "$table" "$here/.results/latest-h2.md"
cat "$table"
