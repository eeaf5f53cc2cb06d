#!/usr/bin/env bash
# Benchmarks/bench.sh (`make bench`): where each microsecond of a request goes, layer by layer, and
# the CatService on Whisker (the demo, cat-service), Hummingbird 2 and Vapor 4, side by side.
#
# Builds what is missing (Benchmarks/build.sh: the peers once per machine, 5 to 12 minutes each;
# Whisker's bench server and cat-service incrementally every time, since their sources move), then,
# for BENCH_ROUNDS rounds, runs each server in turn on 127.0.0.1, pinned to one core, with wrk
# pinned to the other. The servers (BENCH_SERVERS):
#
#   floor               Benchmarks/Floor/floor.c: epoll + read + write, the same 148-byte answer to every head
#   nginx               Debian's nginx, a fixed cat for /api/emoji, the clip by sendfile (nginx-config.sh)
#   whisker-plain       Whisker's bench server with CAT_LAYER=plain: one closure route, no OpenAPI
#   whisker             the same binary with WhiskerTransport and the generated handler
#   whisker-validating  ... and CAT_VALIDATION=1: each request checked against the document
#   cat-service         the demo as `make run` builds it (validation on, its middlewares and response steps)
#   hummingbird, vapor  the peers (Benchmarks/cat-service-hummingbird, -vapor)
#   whisker-dispatch    (not by default) Whisker's bench server on the Dispatch-source I/O backend
#
# The first six are the rows of the per-layer table and run, by default, only its three HTTP/1.1
# scenarios (emoji-c64 emoji3-c64 emoji-c1; floor and whisker-plain answer nothing else, nginx not
# ?count=100); cat-service and the peers run all eight:
#
#   emoji-c64   GET /api/emoji, keep-alive, 64 connections      req/s, p50, p99, server CPU and thread switches/request
#   emoji-c1    GET /api/emoji, keep-alive, 1 connection        req/s, p50, p99, server CPU and thread switches/request
#   emoji3-c64  GET /api/emoji?count=3, keep-alive, 64 conns    req/s, p50, p99
#   clip-c8     GET /api/clip (1 MiB), keep-alive, 8 conns      MiB/s, p99, server CPU/request
#   churn-c64   GET /api/emoji with Connection: close, 64 conns req/s, errors, non-2xx, CPU/request
#   emoji100-c64       GET /api/emoji?count=100 (400 bytes of text), 64 conns, identity     req/s, CPU/request, bytes/response
#   emoji100-gzip-c64  the same with Accept-Encoding: gzip (Whisker and Vapor compress; Hummingbird has no compression here)
#   emoji100-br-c64    the same with Accept-Encoding: br (Whisker only)
#   emoji100-zstd-c64  the same with Accept-Encoding: zstd (Whisker only)
#
# Then bench-h2.sh (unless BENCH_H2=0) measures the same servers where they speak HTTP/2 (all but
# the floor and Vapor), into this run's folder; and the report: the per-layer table (layers-table.sh:
# server CPU per request and req/s of each layer in each scenario, what each layer adds, the
# distance from the floor), then the peers' table: medians with the min-max spread over the rounds,
# and the ratios Whisker/Hummingbird and Whisker/Vapor (Whisker: cat-service, or Whisker's bench
# server when cat-service is not in the run), computed per round and reported as median (min-max); also
# idle RSS (VmRSS once the server answers), peak RSS (VmHWM after the load), clean release build
# time and stripped binary size. Raw results (CSV), wrk's and the servers' output and the table go
# to Benchmarks/.results/<UTC time>/ (git-ignored); Benchmarks/.results/latest.md is the last table.
#
# Every server it starts is stopped (SIGTERM, SIGKILL after 5 s) on exit, error or Ctrl-C. All
# traffic is to 127.0.0.1. Settings (environment):
#   BENCH_ROUNDS=3          rounds (each server once per round)
#   BENCH_DURATION=5        seconds of load per scenario
#   BENCH_WARMUP=1          seconds of warm-up load before each scenario (0: none)
#   BENCH_SERVERS="floor nginx whisker-plain whisker whisker-validating cat-service hummingbird vapor"
#   BENCH_SCENARIOS="emoji-c64 emoji-c1 emoji3-c64 clip-c8 churn-c64 emoji100-c64 emoji100-gzip-c64 emoji100-br-c64 emoji100-zstd-c64"
#                           (set: every server runs these, where it can; unset: the layer rows run three)
#   BENCH_H2=1              0: no HTTP/2 part (bench-h2.sh), so no h2 columns in the layer table
#   BENCH_SERVER_CPU=0 BENCH_CLIENT_CPU=1   the cores for the server and for wrk
#   BENCH_PORT_BASE=18080   whisker +1, hummingbird +2, vapor +3, whisker-validating +4, whisker-dispatch +5,
#                           floor +6, nginx +7, whisker-plain +8, cat-service +9 (HTTP/2: the same +10)
#   BENCH_START_TIMEOUT=30  seconds a server has to answer its first request
#   BENCH_CLEAN_WHISKER=1   clean-build Whisker's server first (for a fresh clean build time)
#   CAT_CLIP=PATH           the /api/clip body (default Benchmarks/Shared/clip-1MiB.mp4)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

ROUNDS=${BENCH_ROUNDS:-3}
DURATION=${BENCH_DURATION:-5}
WARMUP=${BENCH_WARMUP:-1}
read -r -a SERVERS <<<"${BENCH_SERVERS:-floor nginx whisker-plain whisker whisker-validating cat-service hummingbird vapor}"
read -r -a SCENARIO_NAMES <<<"${BENCH_SCENARIOS:-emoji-c64 emoji-c1 emoji3-c64 clip-c8 churn-c64 emoji100-c64 emoji100-gzip-c64 emoji100-br-c64 emoji100-zstd-c64}"
# The per-layer table's HTTP/1.1 scenarios: what its rows run when BENCH_SCENARIOS is not set.
LAYER_SCENARIOS="emoji-c64 emoji3-c64 emoji-c1"
H2=${BENCH_H2:-1}
SERVER_CPU=${BENCH_SERVER_CPU:-0}
CLIENT_CPU=${BENCH_CLIENT_CPU:-1}
PORT_BASE=${BENCH_PORT_BASE:-18080}
START_TIMEOUT=${BENCH_START_TIMEOUT:-30}
CLIP=${CAT_CLIP:-$here/Shared/clip-1MiB.mp4}
RESULTS=$here/.results
HOST=127.0.0.1
STOP_GRACE=5

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

for v in ROUNDS DURATION WARMUP SERVER_CPU CLIENT_CPU PORT_BASE START_TIMEOUT; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a whole number, got '${!v}'"
done
((ROUNDS >= 1 && DURATION >= 1)) || die "BENCH_ROUNDS and BENCH_DURATION must be at least 1"
for tool in wrk curl taskset strip sha256sum timeout cc; do
    command -v "$tool" >/dev/null || die "$tool is missing (make bench installs wrk; curl, taskset: apt-get install curl util-linux)"
done
[[ -r $CLIP ]] || die "the clip $CLIP is missing"
if ! command -v swift >/dev/null; then export PATH="$PATH:/opt/swift/usr/bin"; fi
CLK_TCK=$(getconf CLK_TCK)

# name -> "connections|path|extra header"
declare -A SCENARIO=(
    [emoji-c64]="64|/api/emoji|"
    [emoji-c1]="1|/api/emoji|"
    [emoji3-c64]="64|/api/emoji?count=3|"
    [clip-c8]="8|/api/clip|"
    [churn-c64]="64|/api/emoji|Connection: close"
    [emoji100-c64]="64|/api/emoji?count=100|"
    [emoji100-gzip-c64]="64|/api/emoji?count=100|Accept-Encoding: gzip"
    [emoji100-br-c64]="64|/api/emoji?count=100|Accept-Encoding: br"
    [emoji100-zstd-c64]="64|/api/emoji?count=100|Accept-Encoding: zstd"
)
for s in "${SCENARIO_NAMES[@]}"; do [[ -n ${SCENARIO[$s]:-} ]] || die "unknown scenario '$s'"; done
declare -A PORT_OFFSET=([whisker]=1 [hummingbird]=2 [vapor]=3 [whisker-validating]=4 [whisker-dispatch]=5
    [floor]=6 [nginx]=7 [whisker-plain]=8 [cat-service]=9)
declare -A LABEL=([whisker]="Whisker (transport)" [hummingbird]=Hummingbird [vapor]=Vapor [whisker-validating]="Whisker, validating"
    [whisker-dispatch]="Whisker, Dispatch sources" [floor]=floor [nginx]=nginx [whisker-plain]="Whisker, plain route" [cat-service]="Whisker (cat-service)")
# What build.sh builds for each (whisker-*: one binary, the layer chosen by the environment).
declare -A BUILD=([whisker]=whisker [whisker-validating]=whisker [whisker-dispatch]=whisker [whisker-plain]=whisker
    [floor]=floor [nginx]=nginx [cat-service]=cat-service [hummingbird]=hummingbird [vapor]=vapor)
# The scenarios a server can answer at all (the others serve all eight): the floor answers every head
# with the same cat, the plain route has only /api/emoji, nginx answers ?count=N with one cat.
declare -A SERVES=([floor]="emoji-c64 emoji-c1 emoji3-c64" [whisker-plain]="emoji-c64 emoji-c1 emoji3-c64"
    [nginx]="emoji-c64 emoji-c1 emoji3-c64 clip-c8 churn-c64")
# The rows of the per-layer table: without BENCH_SCENARIOS they run only its scenarios.
declare -A LAYER_ROW=([floor]=1 [nginx]=1 [whisker-plain]=1 [whisker]=1 [whisker-validating]=1 [whisker-dispatch]=1)
for s in "${SERVERS[@]}"; do [[ -n ${PORT_OFFSET[$s]:-} ]] || die "unknown server '$s' (${!PORT_OFFSET[*]})"; done
# scenarios_of SERVER: the scenarios SERVER runs in this run, in BENCH_SCENARIOS' order.
scenarios_of() {
    local sc wanted=" ${SCENARIO_NAMES[*]} "
    if [[ -z ${BENCH_SCENARIOS:-} && -n ${LAYER_ROW[$1]:-} ]]; then wanted=" $LAYER_SCENARIOS "; fi
    for sc in "${SCENARIO_NAMES[@]}"; do
        [[ $wanted == *" $sc "* ]] || continue
        [[ -z ${SERVES[$1]:-} || " ${SERVES[$1]} " == *" $sc "* ]] || continue
        echo "$sc"
    done
}

# --- Stopping what we start ------------------------------------------------------------------------

started=()  # PIDs of the servers (and the wrk) this script started and has not yet reaped
wrk_pid=

stop_pid() {
    local pid=$1 waited=0
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null && ((waited < STOP_GRACE * 10)); do sleep 0.1; waited=$((waited + 1)); done
        if kill -0 "$pid" 2>/dev/null; then
            note "PID $pid did not stop within ${STOP_GRACE}s of SIGTERM; SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || true
    local kept=() p
    for p in "${started[@]}"; do [[ $p == "$pid" ]] || kept+=("$p"); done
    started=("${kept[@]}")
}

cleanup() {
    local pid
    if [[ -n $wrk_pid ]]; then stop_pid "$wrk_pid"; fi
    for pid in "${started[@]}"; do stop_pid "$pid"; done
}
trap cleanup EXIT
trap 'note "interrupted; stopping the servers"; exit 130' INT TERM HUP

# --- Builds ----------------------------------------------------------------------------------------

run_id=$(date -u +%Y%m%dT%H%M%SZ)
out=$RESULTS/$run_id
mkdir -p "$out"

missing_peers=0 runs=0
for s in "${SERVERS[@]}"; do
    if [[ $s == hummingbird || $s == vapor ]] && [[ ! -x $here/cat-service-$s/.build-release/release/cat-service-$s ]]; then missing_peers=$((missing_peers + 1)); fi
    n=$(scenarios_of "$s" | wc -l); runs=$((runs + n))
done
# A server start takes about 3 s (cat-service about 5), each scenario its warm-up, its run and a second.
# HTTP/2: each server that speaks it, twice (h2c, TLS) a round, started each time.
h2_count=0
for s in "${SERVERS[@]}"; do case $s in nginx | whisker-plain | whisker | whisker-validating | cat-service | hummingbird) h2_count=$((h2_count + 1)) ;; esac; done
estimate=$(( ROUNDS * (runs * (DURATION + WARMUP + 1) + ${#SERVERS[@]} * 4) + (H2 ? ROUNDS * h2_count * 2 * (DURATION + WARMUP + 3) : 0) ))
note "$ROUNDS round(s) of ${#SERVERS[@]} server(s), $runs server-scenario pair(s) a round, ${DURATION}s each (+${WARMUP}s warm-up)$( ((H2)) && echo ", then $h2_count over HTTP/2"):" \
    "about $((estimate / 60)) min $((estimate % 60)) s of measurement$( ((missing_peers)) && echo ", after building $missing_peers peer(s) (5 to 12 min each)")"

declare -A BIN
declare -A BUILT
for s in "${SERVERS[@]}"; do
    # whisker-plain, -validating and -dispatch are Whisker's bench server with CAT_LAYER=plain,
    # CAT_VALIDATION=1 or WHISKER_IO_BACKEND=dispatch: one binary, built once.
    b=${BUILD[$s]}
    if [[ -z ${BUILT[$b]+set} ]]; then
        BUILT[$b]=$(bash "$here/build.sh" "$b" | tail -n 1) || BUILT[$b]=""
    fi
    if [[ -n ${BUILT[$b]} && -x ${BUILT[$b]} ]]; then
        BIN[$s]=${BUILT[$b]}
    else
        note "${LABEL[$s]} failed to build; it is left out of this run"
    fi
done

# --- Measuring -------------------------------------------------------------------------------------

csv=$out/results.csv
echo "round,server,scenario,metric,value" >"$csv"
record() { echo "$1,$2,$3,$4,$5" >>"$csv"; }  # round server scenario metric value

clip_sha=$(sha256sum <"$CLIP" | cut -d' ' -f1)
DEMO_CLIP=$root/Demo/CatService/Sources/CatServiceCore/Resources/cat.mp4
demo_clip_sha=$(sha256sum <"$DEMO_CLIP" | cut -d' ' -f1)
clip_size=$(stat -c %s "$CLIP")
problems=()
notes=()

cpu_ticks() {  # utime + stime of PID, in clock ticks
    local stat rest
    stat=$(<"/proc/$1/stat") || return 1
    rest=${stat##*") "}  # the fields after "(comm) ", from field 3 (state) on
    read -r -a f <<<"$rest"
    echo $((f[11] + f[12]))
}
context_switches() {  # voluntary + involuntary switches of every thread of PID, so far
    # A thread may end between the glob and cat (Dispatch's pool threads come and go): cat then
    # fails, which under pipefail and set -e would end the whole run without a word.
    { cat /proc/"$1"/task/*/status 2>/dev/null || true; } | awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }  # PID field

# start_server SERVER PORT LOG: starts it pinned, waits until it answers; sets server_pid.
start_server() {
    local s=$1 port=$2 log=$3
    if curl -s -o /dev/null --max-time 1 "http://$HOST:$port/"; then
        note "something already answers on $HOST:$port; not starting ${LABEL[$s]}"; return 1
    fi
    local command=("${BIN[$s]}" "$port")
    case $s in
        # One process that serves (master_process off), so /proc/PID counts its CPU.
        nginx) command=(nginx -p "$out" -c "$(bash "$here/nginx-config.sh" h1 "$port" "$out")") ;;
        # As `make run` starts it, on this port, logging warnings only (it logs no request at any level
        # without --access-log); its clip is its own bundled one (check_server).
        cat-service) command=("${BIN[$s]}" --host "$HOST" --port "$port" --log-level warning) ;;
    esac
    CAT_CLIP=$CLIP CAT_VALIDATION=$([[ $s == whisker-validating ]] && echo 1 || echo 0) \
        CAT_LAYER=$([[ $s == whisker-plain ]] && echo plain || echo transport) \
        WHISKER_IO_BACKEND=$([[ $s == whisker-dispatch ]] && echo dispatch || echo epoll) taskset -c "$SERVER_CPU" "${command[@]}" >"$log" 2>&1 &
    server_pid=$!
    started+=("$server_pid")
    local deadline=$((SECONDS + START_TIMEOUT))
    until curl -fs -o /dev/null --max-time 1 "http://$HOST:$port/api/emoji"; do
        if ! kill -0 "$server_pid" 2>/dev/null; then
            note "${LABEL[$s]} exited before answering (see $log)"; stop_pid "$server_pid"; return 1
        fi
        if ((SECONDS >= deadline)); then
            note "${LABEL[$s]} did not answer within ${START_TIMEOUT}s (see $log)"; stop_pid "$server_pid"; return 1
        fi
        sleep 0.1
    done
}

# check_server SERVER PORT: the responses the load relies on are right (same clip bytes everywhere).
check_server() {
    local s=$1 port=$2 got runs=" $(scenarios_of "$1" | tr '\n' ' ') "
    got=$(curl -sS -o /dev/null -w '%{http_code} %{size_download}' --max-time 5 "http://$HOST:$port/api/emoji") || got=error
    [[ $got == "200 4" ]] || problems+=("${LABEL[$s]}: /api/emoji answered $got, not 200 and one 4-byte cat")
    # The fixed answers (floor, nginx, the plain route) have nothing more to check.
    [[ $s == floor || $s == nginx || $s == whisker-plain ]] && [[ $runs != *" clip-c8 "* ]] && return 0
    if [[ $s == cat-service ]]; then
        # The demo serves its bundled clip, not the 1 MiB one (it has no setting for it): its clip-c8
        # figures are for that clip, so compare MiB/s, not CPU per request.
        got=$(curl -fsS --max-time 5 "http://$HOST:$port/api/clip" | sha256sum | cut -d' ' -f1) || got=error
        [[ $got == "$demo_clip_sha" ]] || problems+=("${LABEL[$s]}: /api/clip is not its bundled clip (sha256 $got)")
        [[ $runs != *" clip-c8 "* ]] || notes+=("${LABEL[$s]} serves its bundled $(stat -c %s "$DEMO_CLIP")-byte clip in clip-c8, not the $clip_size-byte one: compare its MiB/s, not its CPU per request")
    else
        got=$(curl -fsS --max-time 5 "http://$HOST:$port/api/clip" | sha256sum | cut -d' ' -f1) || got=error
        [[ $got == "$clip_sha" ]] || problems+=("${LABEL[$s]}: /api/clip is not the $clip_size-byte clip (sha256 $got)")
    fi
    [[ $s == nginx ]] && return 0
    got=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://$HOST:$port/api/emoji?count=3") || got=error
    [[ $got == 200 ]] || problems+=("${LABEL[$s]}: /api/emoji?count=3 answered $got")
    got=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://$HOST:$port/api/emoji?count=0") || got=error
    [[ $got == 400 ]] || problems+=("${LABEL[$s]}: /api/emoji?count=0 answered $got, not 400")
    [[ $runs == *" churn-c64 "* ]] || return 0
    # wrk reuses a connection unless the response says `Connection: close`: a server that closes
    # without saying so costs wrk a failed read (counted as a read error) and a reconnection for
    # every request of the churn scenario.
    if ! curl -sS -D - -o /dev/null --max-time 5 -H 'Connection: close' "http://$HOST:$port/api/emoji" |
        grep -qi '^connection:.*close'; then
        notes+=("${LABEL[$s]} closes the connection after a \`Connection: close\` request without sending \`Connection: close\` itself, so wrk counts a read error for each churn request (and then reconnects)")
    fi
    [[ $runs == *" emoji100-"* ]] || return 0
    # Which codings the compression scenarios get from this server (the table is only fair read with this).
    local coding codings=""
    for coding in gzip br zstd; do
        got=$(curl -sS -D - -o /dev/null --max-time 5 -H "Accept-Encoding: $coding" "http://$HOST:$port/api/emoji?count=100" |
            tr -d '\r' | awk -F': ' 'tolower($1) == "content-encoding" { print $2 }')
        codings+=" $coding: ${got:-identity};"
    done
    notes+=("${LABEL[$s]} answers /api/emoji?count=100 asked for$codings")
}

# run_wrk PORT SCENARIO SECONDS LOG: wrk pinned to the client core; bounded by timeout.
run_wrk() {
    local port=$1 conns path header rc=0
    IFS='|' read -r conns path header <<<"${SCENARIO[$2]}"
    local args=(-t1 "-c$conns" "-d${3}s" --latency --timeout 5s -s "$here/wrk-report.lua")
    [[ -z $header ]] || args+=(-H "$header")
    timeout -k 5 $(($3 + 30)) taskset -c "$CLIENT_CPU" wrk "${args[@]}" "http://$HOST:$port$path" >"$4" 2>&1 &
    wrk_pid=$!
    wait "$wrk_pid" || rc=$?
    wrk_pid=
    return "$rc"
}

for ((round = 1; round <= ROUNDS; round++)); do
    for s in "${SERVERS[@]}"; do
        [[ -n ${BIN[$s]:-} ]] || continue
        port=$((PORT_BASE + PORT_OFFSET[$s]))
        tag="round $round/$ROUNDS, ${LABEL[$s]}"
        if ! start_server "$s" "$port" "$out/server-$s-r$round.log"; then
            problems+=("$tag: did not start"); continue
        fi
        pid=$server_pid
        sleep 1
        record "$round" "$s" server idle_rss_mb "$(awk -v kb="$(status_kb "$pid" VmRSS)" 'BEGIN { printf "%.2f", kb / 1024 }')"
        ((round > 1)) || check_server "$s" "$port"
        for sc in $(scenarios_of "$s"); do
            log=$out/wrk-$s-$sc-r$round.txt
            if ((WARMUP > 0)); then run_wrk "$port" "$sc" "$WARMUP" "$out/warmup-$s-$sc-r$round.txt" || true; fi
            before=$(cpu_ticks "$pid") || { problems+=("$tag: server gone before $sc"); break; }
            switches_before=$(context_switches "$pid")
            rc=0; run_wrk "$port" "$sc" "$DURATION" "$log" || rc=$?
            after=$(cpu_ticks "$pid") || { problems+=("$tag: server died during $sc"); break; }
            switches=$(($(context_switches "$pid") - switches_before))
            line=$(grep '^WRK-RESULT ' "$log" || true)
            if ((rc != 0)) || [[ -z $line ]]; then problems+=("$tag, $sc: wrk failed (exit $rc, see $log)"); continue; fi
            declare -A r=()
            for kv in ${line#WRK-RESULT }; do r[${kv%%=*}]=${kv#*=}; done
            awk -v round="$round" -v s="$s" -v sc="$sc" -v req="${r[requests]}" -v us="${r[duration_us]}" \
                -v bytes="${r[bytes]}" -v p50="${r[p50_us]}" -v p99="${r[p99_us]}" -v mean="${r[mean_us]}" \
                -v ticks=$((after - before)) -v hz="$CLK_TCK" -v switches="$switches" \
                -v sockerr=$((r[connect] + r[read] + r[write] + r[timeout])) -v non2xx="${r[status]}" '
                BEGIN {
                    sec = us / 1e6; cpu = ticks / hz
                    printf "%s,%s,%s,rps,%.1f\n", round, s, sc, req / sec
                    printf "%s,%s,%s,p50_us,%d\n", round, s, sc, p50
                    printf "%s,%s,%s,p99_us,%d\n", round, s, sc, p99
                    printf "%s,%s,%s,mean_us,%.1f\n", round, s, sc, mean
                    printf "%s,%s,%s,mibps,%.1f\n", round, s, sc, bytes / sec / 1048576
                    printf "%s,%s,%s,bytes_per_req,%.1f\n", round, s, sc, (req > 0 ? bytes / req : 0)
                    printf "%s,%s,%s,cpu_us_per_req,%.2f\n", round, s, sc, (req > 0 ? cpu * 1e6 / req : 0)
                    printf "%s,%s,%s,cpu_pct,%.1f\n", round, s, sc, 100 * cpu / sec
                    printf "%s,%s,%s,switches_per_req,%.3f\n", round, s, sc, (req > 0 ? switches / req : 0)
                    printf "%s,%s,%s,requests,%d\n", round, s, sc, req
                    printf "%s,%s,%s,socket_errors,%d\n", round, s, sc, sockerr
                    printf "%s,%s,%s,non2xx,%d\n", round, s, sc, non2xx
                }' >>"$csv"
            errs=$((r[connect] + r[read] + r[write] + r[timeout]))
            if ((errs > 0 || r[status] > 0)); then
                problems+=("$tag, $sc: ${errs} socket errors (connect ${r[connect]}, read ${r[read]}, write ${r[write]}, timeout ${r[timeout]}), ${r[status]} non-2xx")
            fi
            note "$tag, $sc: $(awk -v q="${r[requests]}" -v us="${r[duration_us]}" 'BEGIN { printf "%.0f req/s", q / (us / 1e6) }'), p99 ${r[p99_us]} us"
            unset r
        done
        if kill -0 "$pid" 2>/dev/null; then
            record "$round" "$s" server peak_rss_mb "$(awk -v kb="$(status_kb "$pid" VmHWM)" 'BEGIN { printf "%.2f", kb / 1024 }')"
        fi
        stop_pid "$pid"
    done
done

# --- Build facts -----------------------------------------------------------------------------------

for s in "${SERVERS[@]}"; do
    [[ -n ${BIN[$s]:-} ]] || continue
    bin=${BIN[$s]}
    if [[ -r $bin.build-seconds ]]; then record 0 "$s" build clean_build_s "$(<"$bin.build-seconds")"; fi
    strip -o "$out/stripped-$s" "$bin"
    record 0 "$s" build stripped_mb "$(awk -v b="$(stat -c %s "$out/stripped-$s")" 'BEGIN { printf "%.2f", b / 1e6 }')"
    record 0 "$s" build unstripped_mb "$(awk -v b="$(stat -c %s "$bin")" 'BEGIN { printf "%.2f", b / 1e6 }')"
    rm -f "$out/stripped-$s"
done

# --- HTTP/2 (bench-h2.sh, into this run's folder) -------------------------------------------------

h2_csv=/dev/null
if ((H2)); then
    h2_servers=() built=()
    for s in "${SERVERS[@]}"; do
        case $s in nginx | whisker-plain | whisker | whisker-validating | cat-service | hummingbird) [[ -z ${BIN[$s]:-} ]] || h2_servers+=("$s") ;; esac
    done
    for b in "${!BUILT[@]}"; do [[ -z ${BUILT[$b]} ]] || built+=("$b=${BUILT[$b]}"); done
    if ((${#h2_servers[@]})); then
        note "the HTTP/2 part: ${h2_servers[*]}"
        if BENCH_H2_SERVERS="${h2_servers[*]}" BENCH_H2_RESULTS=$out/h2 BENCH_BUILT="${built[*]}" bash "$here/bench-h2.sh" >&2; then
            h2_csv=$out/h2/results.csv
        else
            problems+=("the HTTP/2 part (bench-h2.sh) failed; its output is above, its files in $out/h2")
        fi
    fi
fi

# --- Report ----------------------------------------------------------------------------------------

# The peers' table: Whisker is cat-service when it ran (as the issue measures it), else the bench server.
peer_whisker=""
for c in cat-service whisker; do if [[ " ${SERVERS[*]} " == *" $c "* && -n ${BIN[$c]:-} ]]; then peer_whisker=$c; break; fi; done
peer_columns=()
[[ -z $peer_whisker ]] || peer_columns+=("$peer_whisker")
for c in hummingbird vapor nginx whisker whisker-dispatch; do
    [[ $c != "$peer_whisker" && " ${SERVERS[*]} " == *" $c "* && -n ${BIN[$c]:-} ]] || continue
    [[ $c != whisker || " ${SERVERS[*]} " == *" whisker-dispatch "* ]] || continue  # the bench server: only beside its Dispatch twin
    peer_columns+=("$c")
done

layers=$out/layers.md
{
    echo "## Where each microsecond goes, layer by layer ($run_id)"
    echo
    echo "Whisker $(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet HEAD -- Sources Demo 2>/dev/null || echo ' + uncommitted changes')," \
        "$(nginx -v 2>&1 | sed 's/.*: //'), $(nproc) cores; rounds: $ROUNDS of ${DURATION}s per scenario after ${WARMUP}s of warm-up, server on core $SERVER_CPU, the load (\`wrk -t1\`, \`h2load -t1 -c16 -m16\`) on core $CLIENT_CPU, 127.0.0.1." \
        "Cells: server CPU per request, the median over the rounds (lower is better), what the layer adds to the row above (for the plain route: to the floor of the column), and the median req/s."
    echo
    bash "$here/layers-table.sh" "$csv" "$h2_csv"
} >"$layers"
cp "$layers" "$RESULTS/latest-layers.md"

table=$out/table.md
{
    cat "$layers"
    echo
    echo "## CatService: Whisker vs Hummingbird 2 vs Vapor 4 ($run_id)"
    echo
    echo "Whisker $(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet HEAD -- Sources 2>/dev/null || echo ' + uncommitted changes in Sources')," \
        "$(swift --version 2>&1 | head -n 1 | sed 's/ (.*//'), $(wrk --version 2>&1 | head -n 1 | cut -d' ' -f1-2), $(nproc) cores ($(uname -r))." \
        "Rounds: $ROUNDS, ${DURATION}s per scenario after ${WARMUP}s of warm-up, server on core $SERVER_CPU, \`wrk -t1\` on core $CLIENT_CPU, 127.0.0.1." \
        "Cells: median (min–max) over the rounds; ratios Whisker/peer taken per round (for req/s and MiB/s higher is better for Whisker, for latency, CPU, RSS, time and size lower is)." \
        "$(case $peer_whisker in
            cat-service) echo "Whisker: \`cat-service\` as \`make run\` builds it (validation on)." ;;
            whisker) echo "Whisker: its bench server (Benchmarks/cat-service-whisker, no validation)." ;;
        esac)"
    echo
    declare -A listed=()
    for s in "${peer_columns[@]}"; do
        b=${BIN[$s]:-/nonexistent}
        if [[ -z ${listed[$b]:-} && -r $b.build-info ]]; then echo "- $(<"$b.build-info")"; listed[$b]=1; fi
    done
    echo
    awk -F, -v servers="${peer_columns[*]}" -v wname="$peer_whisker" -v scenarios="${SCENARIO_NAMES[*]}" '
        function fmt(x) {
            if (x == "") return "–"
            if (x == int(x)) return sprintf("%d", x)
            if (x >= 1000 || x <= -1000) return sprintf("%.0f", x)
            if (x >= 100) return sprintf("%.0f", x)
            if (x >= 10) return sprintf("%.1f", x)
            return sprintf("%.2f", x)
        }
        function rfmt(x) { return sprintf("%.2f", x) }
        # sorts a[1..n] in place
        function isort(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        }
        function stats(a, n, f,   med) {
            if (n == 0) return "–"
            isort(a, n)
            med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            if (n == 1 || a[1] == a[n]) return (f == "r" ? rfmt(med) : fmt(med))
            return (f == "r" ? rfmt(med) " (" rfmt(a[1]) "–" rfmt(a[n]) ")" : fmt(med) " (" fmt(a[1]) "–" fmt(a[n]) ")")
        }
        NR > 1 { v[$2, $3, $4, $1] = $5; seen[$2, $3, $4, $1] = 1; if ($1 > maxr) maxr = $1 }
        function cell(s, sc, m,   a, n, r) {
            n = 0
            for (r = 0; r <= maxr; r++) if ((s, sc, m, r) in seen) a[++n] = v[s, sc, m, r] + 0
            return stats(a, n, "")
        }
        function ratio(p, sc, m, num,   a, n, r, w) {
            n = 0
            for (r = 0; r <= maxr; r++) {
                if (!((num, sc, m, r) in seen) || !((p, sc, m, r) in seen)) continue
                w = v[num, sc, m, r] + 0
                if (v[p, sc, m, r] + 0 == 0) continue
                a[++n] = w / v[p, sc, m, r]
            }
            return stats(a, n, "r")
        }
        function row(sc, m, label,   line, i, counts, x, any) {
            if (!(sc in want)) return
            line = "| " label; any = 0
            for (i = 1; i <= ns; i++) { x = cell(srv[i], sc, m); if (x != "–") any = 1; line = line " | " x }
            if (!any) return  # no server of this table ran it
            # counts (errors) get no ratio: 0/n says nothing
            counts = (m == "socket_errors" || m == "non2xx")
            if (haveW && ("hummingbird" in inrun)) line = line " | " (counts ? "–" : ratio("hummingbird", sc, m, wname))
            if (haveW && ("vapor" in inrun)) line = line " | " (counts ? "–" : ratio("vapor", sc, m, wname))
            if (haveW && ("nginx" in inrun)) line = line " | " (counts ? "–" : ratio("nginx", sc, m, wname))
            if (("whisker" in inrun) && ("whisker-dispatch" in inrun)) line = line " | " (counts ? "–" : ratio("whisker-dispatch", sc, m, "whisker"))
            print line " |"
        }
        END {
            ns = split(servers, srv, " ")
            label["whisker"] = (wname == "whisker" ? "Whisker" : "Whisker bench server"); label["hummingbird"] = "Hummingbird"; label["vapor"] = "Vapor"
            label["whisker-dispatch"] = "Whisker, Dispatch sources"; label["cat-service"] = "Whisker (cat-service)"; label["nginx"] = "nginx"
            for (i = 1; i <= ns; i++) inrun[srv[i]] = 1
            haveW = (wname != "" && (wname in inrun))
            nsc = split(scenarios, scs, " "); for (i = 1; i <= nsc; i++) want[scs[i]] = 1
            want["server"] = 1; want["build"] = 1
            head = "| | "; rule = "|---|"
            for (i = 1; i <= ns; i++) { head = head label[srv[i]] " | "; rule = rule "---:|" }
            if (haveW && ("hummingbird" in inrun)) { head = head "Whisker/Hummingbird | "; rule = rule "---:|" }
            if (haveW && ("vapor" in inrun)) { head = head "Whisker/Vapor | "; rule = rule "---:|" }
            if (haveW && ("nginx" in inrun)) { head = head "Whisker/nginx | "; rule = rule "---:|" }
            if (("whisker" in inrun) && ("whisker-dispatch" in inrun)) { head = head "Whisker epoll/Dispatch | "; rule = rule "---:|" }
            print head; print rule
            row("emoji-c64", "rps", "`/api/emoji` keep-alive -c64: req/s")
            row("emoji-c64", "p50_us", "… p50 (µs)")
            row("emoji-c64", "p99_us", "… p99 (µs)")
            row("emoji-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji-c64", "cpu_pct", "… server CPU (% of a core)")
            row("emoji-c64", "switches_per_req", "… server thread switches per request")
            row("emoji-c1", "rps", "`/api/emoji` keep-alive -c1: req/s")
            row("emoji-c1", "p50_us", "… p50 (µs)")
            row("emoji-c1", "p99_us", "… p99 (µs)")
            row("emoji-c1", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji-c1", "switches_per_req", "… server thread switches per request")
            row("emoji3-c64", "rps", "`/api/emoji?count=3` -c64: req/s")
            row("emoji3-c64", "p50_us", "… p50 (µs)")
            row("emoji3-c64", "p99_us", "… p99 (µs)")
            row("clip-c8", "mibps", "`/api/clip` (1 MiB) -c8: MiB/s")
            row("clip-c8", "p99_us", "… p99 (µs)")
            row("clip-c8", "cpu_us_per_req", "… server CPU per request (µs)")
            row("churn-c64", "rps", "`Connection: close` churn -c64: req/s")
            row("churn-c64", "p99_us", "… p99 (µs)")
            row("churn-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("churn-c64", "socket_errors", "… socket errors (wrk: connect+read+write+timeout)")
            row("churn-c64", "non2xx", "… non-2xx responses")
            row("emoji100-c64", "rps", "`/api/emoji?count=100` -c64, identity: req/s")
            row("emoji100-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji100-c64", "bytes_per_req", "… bytes per response (head and body)")
            row("emoji100-gzip-c64", "rps", "… with `Accept-Encoding: gzip`: req/s")
            row("emoji100-gzip-c64", "p99_us", "… p99 (µs)")
            row("emoji100-gzip-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji100-gzip-c64", "bytes_per_req", "… bytes per response (head and body)")
            row("emoji100-br-c64", "rps", "… with `Accept-Encoding: br`: req/s")
            row("emoji100-br-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji100-br-c64", "bytes_per_req", "… bytes per response (head and body)")
            row("emoji100-zstd-c64", "rps", "… with `Accept-Encoding: zstd`: req/s")
            row("emoji100-zstd-c64", "cpu_us_per_req", "… server CPU per request (µs)")
            row("emoji100-zstd-c64", "bytes_per_req", "… bytes per response (head and body)")
            row("server", "peak_rss_mb", "peak RSS under load, VmHWM (MiB)")
            row("server", "idle_rss_mb", "idle RSS, VmRSS after start (MiB)")
            row("build", "clean_build_s", "clean release build (s)")
            row("build", "stripped_mb", "stripped binary (MB)")
        }' "$csv"
    echo
    if ((${#problems[@]})); then
        echo "Problems:"
        for p in "${problems[@]}"; do echo "- $p"; done
    else
        echo "No errors, no non-2xx responses; every server that serves /api/clip served the expected bytes."
    fi
    if [[ -r $out/h2/table.md ]]; then echo; cat "$out/h2/table.md"; fi
    if ((${#notes[@]})); then
        echo
        echo "Notes:"
        for n in "${notes[@]}"; do echo "- $n"; done
    fi
} >"$table"
cp "$table" "$RESULTS/latest.md"
echo
cat "$table"
echo
note "raw results: $csv (wrk and server logs next to it; HTTP/2: $out/h2)"
