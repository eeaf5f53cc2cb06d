#!/usr/bin/env bash
# Benchmarks/bench-h2.sh (the HTTP/2 part of `make bench`, which bench.sh runs): the servers of
# bench.sh that speak HTTP/2, side by side: h2c with prior knowledge, and h2 over TLS (ALPN).
#
#   nginx               the HTTP/2 floor (nginx-config.sh h2c / tls; the C floor speaks HTTP/1.1 only)
#   whisker-plain       Whisker's bench server with CAT_LAYER=plain: one closure route, no OpenAPI
#   whisker             ... with WhiskerTransport and the generated handler
#   whisker-validating  ... and CAT_VALIDATION=1
#   cat-service         the demo as `make run` builds it (h2c on --port; TLS only with --no-cleartext)
#   hummingbird         the peer (CAT_H2C=1: plaintextHTTP2(), HTTP/2 only on that port)
#
# For BENCH_ROUNDS rounds, each server in turn runs pinned to one core and h2load (Debian
# nghttp2-client) pinned to the other, `h2load -t1 -c16 -m16` (16 connections x 16 streams) on
# GET /api/emoji: BENCH_WARMUP seconds of warm-up (a run of its own), then the measured run of
# BENCH_DURATION seconds, around which the server's CPU time is read; once over h2c and once over
# TLS with the development certificate in Tests/Certificates. Reports req/s, failed and errored
# requests, and server CPU per request, as medians with the min-max spread, and the ratio
# Whisker/Hummingbird per round (Whisker: cat-service, else the bench server). Vapor is left out:
# swift-openapi-vapor's server does not speak HTTP/2 without more set-up than the others.
#
# Until issue 41 the warm-up was h2load's --warm-up-time inside the measured run: the CPU time of the
# warm-up second was divided by the requests of the 5 s after it, so CPU per request read about 6/5
# of what it is (17.5 µs then is about 14.6 now, for the same work).
#
# Loopback only; every server it starts is stopped on exit. Settings (environment), as bench.sh:
#   BENCH_ROUNDS=3 BENCH_DURATION=5 BENCH_WARMUP=1 BENCH_SERVER_CPU=0 BENCH_CLIENT_CPU=1 BENCH_PORT_BASE=18080
#   BENCH_H2_SERVERS="nginx whisker-plain whisker whisker-validating cat-service hummingbird"
#   (ports: PORT_BASE + 10 + bench.sh's offset: whisker 18091, hummingbird 18092, whisker-validating 18094,
#   nginx 18097, whisker-plain 18098, cat-service 18099)
#   BENCH_H2_RESULTS=DIR    where the results go (bench.sh: its run's folder/h2)
#   BENCH_BUILT="whisker=PATH cat-service=PATH ..."  binaries bench.sh has built already (no rebuild)
# Results: Benchmarks/.results/<UTC time>-h2/ (or BENCH_H2_RESULTS) and Benchmarks/.results/latest-h2.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-5}
WARMUP=${BENCH_WARMUP:-1}
SERVER_CPU=${BENCH_SERVER_CPU:-0}
CLIENT_CPU=${BENCH_CLIENT_CPU:-1}
PORT_BASE=${BENCH_PORT_BASE:-18080}
read -r -a SERVERS <<<"${BENCH_H2_SERVERS:-nginx whisker-plain whisker whisker-validating cat-service hummingbird}"
CERTS=$root/Tests/Certificates
HOST=127.0.0.1

note() { echo "bench-h2: $*" >&2; }
die() { note "$*"; exit 1; }
for tool in h2load curl taskset; do command -v "$tool" >/dev/null || die "$tool is missing (apt-get install nghttp2-client curl util-linux)"; done
if ! command -v swift >/dev/null; then export PATH="$PATH:/opt/swift/usr/bin"; fi
CLK_TCK=$(getconf CLK_TCK)
for v in ROUNDS DURATION WARMUP SERVER_CPU CLIENT_CPU PORT_BASE; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a whole number, got '${!v}'"
done
((ROUNDS >= 1 && DURATION >= 1)) || die "BENCH_ROUNDS and BENCH_DURATION must be at least 1"
declare -A LABEL=([whisker]="Whisker (transport)" [hummingbird]=Hummingbird [nginx]=nginx [whisker-plain]="Whisker, plain route"
    [whisker-validating]="Whisker, validating" [cat-service]="Whisker (cat-service)")
declare -A PORT_OFFSET=([whisker]=11 [hummingbird]=12 [whisker-validating]=14 [nginx]=17 [whisker-plain]=18 [cat-service]=19)
declare -A BUILD=([whisker]=whisker [whisker-validating]=whisker [whisker-plain]=whisker [nginx]=nginx [cat-service]=cat-service [hummingbird]=hummingbird)
for s in "${SERVERS[@]}"; do [[ -n ${PORT_OFFSET[$s]:-} ]] || die "unknown server '$s' (${!PORT_OFFSET[*]})"; done

started=()
cleanup() { local pid; for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'note "interrupted; stopping the servers"; exit 130' INT TERM HUP

declare -A BIN BUILT
for kv in ${BENCH_BUILT:-}; do BUILT[${kv%%=*}]=${kv#*=}; done
for s in "${SERVERS[@]}"; do
    b=${BUILD[$s]}
    if [[ -z ${BUILT[$b]:-} ]]; then BUILT[$b]=$(bash "$here/build.sh" "$b" | tail -n 1) || die "${LABEL[$s]} failed to build"; fi
    BIN[$s]=${BUILT[$b]}
done

run_id=$(date -u +%Y%m%dT%H%M%SZ)-h2
out=${BENCH_H2_RESULTS:-$here/.results/$run_id}
mkdir -p "$out"
csv=$out/results.csv
echo "round,server,mode,metric,value" >"$csv"
problems=()

# start SERVER MODE PORT LOG: MODE h2c or tls; waits until it answers; sets pid.
start() {
    local s=$1 mode=$2 port=$3 log=$4 url env=(CAT_H2C=1 CAT_CLIP="$here/Shared/clip-1MiB.mp4")
    if [[ $mode == tls ]]; then env=(CAT_TLS_CERT="$CERTS/localhost.pem" CAT_TLS_KEY="$CERTS/localhost-key.pem" CAT_CLIP="$here/Shared/clip-1MiB.mp4"); fi
    env+=(CAT_LAYER="$([[ $s == whisker-plain ]] && echo plain || echo transport)" CAT_VALIDATION="$([[ $s == whisker-validating ]] && echo 1 || echo 0)")
    local command=("${BIN[$s]}" "$port")
    case $s in
        nginx) command=(nginx -p "$out" -c "$(bash "$here/nginx-config.sh" "$mode" "$port" "$out")") ;;
        cat-service)
            command=("${BIN[$s]}" --host "$HOST" --log-level warning)
            if [[ $mode == tls ]]; then
                command+=(--no-cleartext --tls-port "$port" --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem")
            else
                command+=(--port "$port")
            fi ;;
    esac
    env "${env[@]}" taskset -c "$SERVER_CPU" "${command[@]}" >"$log" 2>&1 &
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
            result=$out/h2load-$s-$mode-r$round.txt
            if ((WARMUP > 0)); then
                timeout -k 5 $((WARMUP + 30)) taskset -c "$CLIENT_CPU" \
                    h2load -t1 -c16 -m16 -D "$WARMUP" "$url/api/emoji" >"$out/warmup-$s-$mode-r$round.txt" 2>&1 || true
            fi
            before=$(ticks "$pid")
            timeout -k 5 $((DURATION + 30)) taskset -c "$CLIENT_CPU" \
                h2load -t1 -c16 -m16 -D "$DURATION" "$url/api/emoji" >"$result" 2>&1 || true
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
    echo "## CatService over HTTP/2 ($run_id)"
    echo
    echo "Whisker $(git -C "$root" rev-parse --short HEAD), $(h2load --version 2>&1 | head -n 1), $(nproc) cores." \
        "Rounds: $ROUNDS, \`h2load -t1 -c16 -m16 -D $DURATION\` on GET /api/emoji after ${WARMUP}s of warm-up (a run of its own), server on core $SERVER_CPU, h2load on core $CLIENT_CPU, 127.0.0.1." \
        "Cells: median (min–max) over the rounds; the ratio is Whisker/Hummingbird per round, Whisker being $(if [[ " ${SERVERS[*]} " == *" cat-service "* ]]; then echo "cat-service"; else echo "the bench server"; fi)."
    echo
    awk -F, -v servers="${SERVERS[*]}" '
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
            for (r = 1; r <= maxr; r++) if ((w, mode, m, r) in v && ("hummingbird", mode, m, r) in v && v["hummingbird", mode, m, r] > 0)
                a[++n] = v[w, mode, m, r] / v["hummingbird", mode, m, r]
            return stats(a, n, 2)
        }
        function row(label, mode, m, d, withRatio,   line, i) {
            line = "| " label
            for (i = 1; i <= ns; i++) line = line " | " cell(srv[i], mode, m, d)
            if (haveRatio) line = line " | " (withRatio ? ratio(mode, m) : "–")
            print line " |"
        }
        END {
            ns = split(servers, srv, " ")
            label["nginx"] = "nginx"; label["whisker-plain"] = "Whisker, plain route"; label["whisker"] = "Whisker (transport)"
            label["whisker-validating"] = "Whisker, validating"; label["cat-service"] = "Whisker (cat-service)"; label["hummingbird"] = "Hummingbird"
            for (i = 1; i <= ns; i++) inrun[srv[i]] = 1
            w = ("cat-service" in inrun) ? "cat-service" : "whisker"
            haveRatio = (w in inrun) && ("hummingbird" in inrun)
            head = "| |"; rule = "|---|"
            for (i = 1; i <= ns; i++) { head = head " " label[srv[i]] " |"; rule = rule "---:|" }
            if (haveRatio) { head = head " Whisker/Hummingbird |"; rule = rule "---:|" }
            print head; print rule
            split("h2c tls", modes, " ")
            for (k = 1; k <= 2; k++) {
                mode = modes[k]; name = (mode == "h2c" ? "h2c (prior knowledge)" : "h2 over TLS (ALPN)")
                row(name " 16x16: req/s", mode, "rps", 0, 1)
                row("… server CPU per request (µs)", mode, "cpu_us_per_req", 1, 1)
                row("… failed + errored requests", mode, "failed", 0, 0)
            }
        }' "$csv"
    if ((${#problems[@]})); then echo; echo "Problems:"; for p in "${problems[@]}"; do echo "- $p"; done; fi
} >"$table"
cp "$table" "$here/.results/latest-h2.md"
# Run by bench.sh (BENCH_H2_RESULTS set), the table is part of bench.sh's report.
[[ -n ${BENCH_H2_RESULTS:-} ]] || cat "$table"
