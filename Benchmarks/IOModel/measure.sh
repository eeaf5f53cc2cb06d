#!/usr/bin/env bash
# The I/O models of main.swift, Epoll.swift and Loop.swift side by side (README.md beside it has the results).
#
#   Benchmarks/IOModel/measure.sh [OUTPUT_DIR]        (default /tmp/io-model-results)
#   environment: ROUNDS=2 DURATION=5 STRACE_DURATION=3 CONNECTIONS=64 WORKERS=1 PORT=18090
#                SERVER_CPU=0 CLIENT_CPU=1 MODELS="sources io epoll epoll-tasks loop loop-tasks"
#                (WORKERS goes to the epoll and loop models; IOMODEL_YIELD=1 reaches the servers:
#                the -tasks models' handler then suspends once a request, see Epoll.swift)
#
# Builds /tmp/io-model, then, with the server pinned to SERVER_CPU and wrk to CLIENT_CPU:
#  1. ROUNDS alternating rounds (sources, io, epoll, sources, ...) of
#     `wrk -t1 -cCONNECTIONS -dDURATIONs --latency`: req/s, p50/p99, the most threads seen in the
#     server during the run (sampled every 0.1 s), its peak RSS (VmHWM);
#  2. per model, a fresh server and one more such run: server CPU per request (utime+stime from
#     /proc/PID/stat) and thread switches per request (voluntary + nonvoluntary over
#     /proc/PID/task/*/status), before/after divided by the requests wrk completed; if perf is
#     installed, a further run counts all syscalls and context switches with `perf stat -p`
#     (every thread, including any that exit; much less overhead than strace);
#  3. per model, a fresh server with `strace -c -f -p PID` attached during `wrk -dSTRACE_DURATIONs`,
#     detached with SIGINT: syscalls per request, by syscall;
#  4. per model, `wrk -c1` for DURATION s: the latency of a lone connection, with the server CPU and
#     thread switches per request measured as in 2 (and, with perf, the syscalls and context
#     switches per request of a lone connection, in a further run).
# Loopback only. Every server runs under `timeout`, every wrk, perf and strace is bounded, and a
# trap stops whatever is still running on exit. Raw outputs and summary.md go to OUTPUT_DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export PATH=/opt/swift/usr/bin:$PATH
out=${1:-/tmp/io-model-results}
rounds=${ROUNDS:-2}
duration=${DURATION:-5}
strace_duration=${STRACE_DURATION:-3}
connections=${CONNECTIONS:-64}
workers=${WORKERS:-1}
base_port=${PORT:-18090}
server_cpu=${SERVER_CPU:-0}
client_cpu=${CLIENT_CPU:-1}
read -r -a models <<< "${MODELS:-sources io epoll epoll-tasks loop loop-tasks}"
bin=/tmp/io-model
server_limit=$((duration + strace_duration + 60))   # no server outlives this, whatever happens

for tool in wrk strace taskset swiftc; do
    command -v "$tool" > /dev/null || { echo "measure.sh: $tool is missing (apt-get install -y $tool)" >&2; exit 1; }
done
mkdir -p "$out"
swiftc -O "$here"/*.swift -o "$bin"
clk_tck=$(getconf CLK_TCK)

cleanup() {   # stops this script's own background jobs still running: server wrappers, sampler, perf, strace
    local pid
    for pid in $(jobs -p); do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server MODEL PORT: sets $server (the io-model pid) and $wrapper (its timeout).
start_server() {
    local model=$1 port=$2 extra=()
    case $model in epoll* | loop*) extra=("$workers") ;; esac
    taskset -c "$server_cpu" timeout "$server_limit" "$bin" "$model" "$port" "${extra[@]}" \
        > "$out/server.log" 2>&1 &
    wrapper=$!
    server=""
    for _ in $(seq 100); do
        [ -z "$server" ] && server=$(pgrep -P "$wrapper" || true)
        if [ -n "$server" ] && (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then return 0; fi
        sleep 0.05
    done
    echo "measure.sh: $model did not start on port $port" >&2
    cat "$out/server.log" >&2
    exit 1
}
stop_server() { kill "$wrapper" 2> /dev/null || true; wait "$wrapper" 2> /dev/null || true; }

# load FILE CONNECTIONS SECONDS PORT: one bounded wrk run, pinned.
load() {
    taskset -c "$client_cpu" timeout $(($3 + 15)) wrk -t1 -c"$2" -d"$3"s --latency \
        "http://127.0.0.1:$4/" > "$1"
}
requests() { awk '/ requests in / {print $1}' "$1"; }
rps() { awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$1"; }
percentile() { awk -v p="$2%" '$1 == p {print $2}' "$1"; }
errors() { awk '/Socket errors|Non-2xx/ {sub(/^ +/, ""); printf "%s; ", $0}' "$1"; }
cpu_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
switches() {   # prints "voluntary nonvoluntary", summed over the threads
    cat /proc/"$1"/task/*/status 2> /dev/null |
        awk '/^voluntary_ctxt_switches:/ {v += $2} /^nonvoluntary_ctxt_switches:/ {n += $2} END {print v + 0, n + 0}'
}
peak_rss() { awk '/^VmHWM:/ {printf "%.1f MB", $2 / 1024}' "/proc/$1/status"; }
# sample_threads PID FILE: writes the most threads seen so far, every 0.1 s, until killed.
sample_threads() {
    local most=0 now
    while [ -e "/proc/$1" ]; do
        now=$(awk '/^Threads:/ {print $2}' "/proc/$1/status" 2> /dev/null || echo 0)
        if [ "${now:-0}" -gt "$most" ]; then most=$now; echo "$most" > "$2"; fi
        sleep 0.1
    done
}
divide() { awk -v a="$1" -v b="$2" -v s="${3:-1}" -v f="${4:-%.2f}" 'BEGIN {printf f, a * s / b}'; }

port_of() {
    local i
    for i in "${!models[@]}"; do
        if [ "${models[$i]}" = "$1" ]; then echo $((base_port + i)); fi
    done
}

summary="$out/summary.md"
{
    echo "# IOModel measurement, $(date)"
    echo
    echo "$(uname -sr), $(nproc) CPUs, $(swiftc --version 2>&1 | head -1)"
    echo "server on CPU $server_cpu, wrk on CPU $client_cpu, epoll/loop workers: $workers, IOMODEL_YIELD=${IOMODEL_YIELD:-0}, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
} > "$summary"

# 1. Alternating rounds.
declare -A round_rps round_p50 round_p99 round_threads round_rss round_errors round_load
for round in $(seq "$rounds"); do
    for model in "${models[@]}"; do
        port=$(port_of "$model")
        start_server "$model" "$port"
        echo 0 > "$out/threads"
        sample_threads "$server" "$out/threads" &
        sampler=$!
        file="$out/round$round-$model.txt"
        load "$file" "$connections" "$duration" "$port"
        kill "$sampler" 2> /dev/null || true
        wait "$sampler" 2> /dev/null || true
        round_rps[$model,$round]=$(rps "$file")
        round_p50[$model,$round]=$(percentile "$file" 50)
        round_p99[$model,$round]=$(percentile "$file" 99)
        round_threads[$model,$round]=$(cat "$out/threads")
        round_rss[$model,$round]=$(peak_rss "$server")
        round_errors[$model,$round]=$(errors "$file")
        stop_server
        round_load[$round]+="$model $(cut -d' ' -f1 /proc/loadavg), "
        echo "round $round $model: ${round_rps[$model,$round]} req/s, p50 ${round_p50[$model,$round]}, p99 ${round_p99[$model,$round]}, ${round_threads[$model,$round]} threads, ${round_rss[$model,$round]} ${round_errors[$model,$round]}"
    done
done

# perf_run MODEL CONNECTIONS: a fresh server, `perf stat -p` over a wrk run; sets
# perf_key=MODEL,CONNECTIONS in perf_syscalls, perf_switches and perf_breakdown (per request).
declare -A perf_syscalls perf_switches perf_breakdown
perf_events="context-switches,raw_syscalls:sys_enter"
for call in read sendto epoll_wait epoll_pwait epoll_ctl ioctl futex write mmap munmap; do
    perf_events+=",syscalls:sys_enter_$call"
done
perf_run() {
    local model=$1 c=$2 port n csv="$out/perf-$1-c$2.csv" perf_pid
    port=$(port_of "$model")
    start_server "$model" "$port"
    timeout $((duration + 15)) perf stat -x, -e "$perf_events" -o "$csv" -p "$server" -- sleep $((duration + 1)) &
    perf_pid=$!
    sleep 0.3
    load "$out/perf-wrk-$model-c$c.txt" "$c" "$duration" "$port"
    wait "$perf_pid" || true
    stop_server
    n=$(requests "$out/perf-wrk-$model-c$c.txt")
    perf_switches[$model,$c]=$(divide "$(awk -F, '$3 == "context-switches" {print $1}' "$csv")" "$n")
    perf_syscalls[$model,$c]=$(divide "$(awk -F, '$3 == "raw_syscalls:sys_enter" {print $1}' "$csv")" "$n")
    perf_breakdown[$model,$c]=$(awk -F, -v n="$n" '
        $3 == "raw_syscalls:sys_enter" {total = $1}
        $3 ~ /^syscalls:sys_enter_/ && $1 > 0 {
            name = substr($3, 20); counted += $1
            printf "%s%s %.3f", sep, name, $1 / n; sep = ", "
        }
        END {printf "%sother %.3f, total %.3f", sep, (total - counted) / n, total / n}' "$csv")
    echo "$model -c$c (perf): ${perf_syscalls[$model,$c]} syscalls and ${perf_switches[$model,$c]} context switches per request"
}
has_perf=$(command -v perf > /dev/null && echo yes || echo "")

# proc_run MODEL CONNECTIONS FILE: a fresh server and one wrk run into FILE; sets
# cpu_us[MODEL,CONNECTIONS] (utime+stime) and switch_count[MODEL,CONNECTIONS] (all threads:
# "total (voluntary + involuntary)") per request, from /proc before and after.
declare -A cpu_us switch_count
proc_run() {
    local model=$1 c=$2 file=$3 port n ticks_before ticks_after voluntary_before involuntary_before \
        voluntary_after involuntary_after voluntary involuntary
    port=$(port_of "$model")
    start_server "$model" "$port"
    ticks_before=$(cpu_ticks "$server")
    read -r voluntary_before involuntary_before <<< "$(switches "$server")"
    load "$file" "$c" "$duration" "$port"
    ticks_after=$(cpu_ticks "$server")
    read -r voluntary_after involuntary_after <<< "$(switches "$server")"
    stop_server
    n=$(requests "$file")
    cpu_us[$model,$c]=$(divide $((ticks_after - ticks_before)) "$n" $((1000000 / clk_tck)) "%.1f")
    voluntary=$((voluntary_after - voluntary_before))
    involuntary=$((involuntary_after - involuntary_before))
    switch_count[$model,$c]="$(divide $((voluntary + involuntary)) "$n") ($(divide "$voluntary" "$n") + $(divide "$involuntary" "$n"))"
    echo "$model -c$c: $n requests, ${cpu_us[$model,$c]} µs CPU and ${switch_count[$model,$c]} thread switches (voluntary + involuntary) per request"
}

# 2. CPU and thread switches per request (and the perf cross-check).
for model in "${models[@]}"; do
    proc_run "$model" "$connections" "$out/cpu-$model.txt"
    if [ -n "$has_perf" ]; then perf_run "$model" "$connections"; fi
done

# 3. Syscalls per request under strace.
declare -A strace_requests
for model in "${models[@]}"; do
    port=$(port_of "$model")
    start_server "$model" "$port"
    timeout -s INT $((strace_duration + 30)) strace -c -f -p "$server" -o "$out/strace-$model.txt" 2> /dev/null &
    tracer=$!
    sleep 1   # let strace attach to every thread
    file="$out/strace-wrk-$model.txt"
    load "$file" "$connections" "$strace_duration" "$port"
    kill -INT "$tracer" 2> /dev/null || true
    wait "$tracer" || true
    strace_requests[$model]=$(requests "$file")
    stop_server
    echo "$model (strace): ${strace_requests[$model]} requests in $strace_duration s"
done

# 4. One connection.
declare -A c1_rps c1_p50 c1_p99
for model in "${models[@]}"; do
    file="$out/c1-$model.txt"
    proc_run "$model" 1 "$file"
    c1_rps[$model]=$(rps "$file")
    c1_p50[$model]=$(percentile "$file" 50)
    c1_p99[$model]=$(percentile "$file" 99)
    echo "$model -c1: ${c1_rps[$model]} req/s, p50 ${c1_p50[$model]}, p99 ${c1_p99[$model]}"
    if [ -n "$has_perf" ]; then perf_run "$model" 1; fi
done

# The summary.
reference=${models[0]}
{
    echo "## Throughput, -c$connections, $duration s per run (ratio to $reference in the same round)"
    echo
    header="| model |"; rule="| --- |"
    for round in $(seq "$rounds"); do header+=" round $round req/s |"; rule+=" --- |"; done
    echo "$header p50 | p99 | threads | peak RSS |"
    echo "$rule --- | --- | --- | --- |"
    for model in "${models[@]}"; do
        row="| $model |"; p50s=""; p99s=""; threads=""; rss=""
        for round in $(seq "$rounds"); do
            row+=" ${round_rps[$model,$round]} ($(divide "${round_rps[$model,$round]}" "${round_rps[$reference,$round]}"))"
            if [ -n "${round_errors[$model,$round]}" ]; then row+=" [${round_errors[$model,$round]}]"; fi
            row+=" |"
            p50s+="${round_p50[$model,$round]} "; p99s+="${round_p99[$model,$round]} "
            threads+="${round_threads[$model,$round]} "; rss+="${round_rss[$model,$round]}, "
        done
        echo "$row $p50s| $p99s| $threads| ${rss%, } |"
    done
    echo
    for round in $(seq "$rounds"); do echo "Load average (1 min) after each run of round $round: ${round_load[$round]%, }."; done
    echo
    echo "## Per request (separate runs, each on a fresh server)"
    echo
    echo "| model | -c$connections CPU µs | -c$connections thread switches (/proc: voluntary + involuntary) | -c$connections syscalls (perf) | -c$connections context switches (perf) | -c1 req/s | -c1 p50 | -c1 p99 | -c1 CPU µs | -c1 thread switches (/proc) | -c1 syscalls (perf) | -c1 context switches (perf) |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for model in "${models[@]}"; do
        echo "| $model | ${cpu_us[$model,$connections]} | ${switch_count[$model,$connections]} | ${perf_syscalls[$model,$connections]:-n/a} | ${perf_switches[$model,$connections]:-n/a} | ${c1_rps[$model]} | ${c1_p50[$model]} | ${c1_p99[$model]} | ${cpu_us[$model,1]} | ${switch_count[$model,1]} | ${perf_syscalls[$model,1]:-n/a} | ${perf_switches[$model,1]:-n/a} |"
    done
    echo
    if [ -n "$has_perf" ]; then
        for c in "$connections" 1; do
            echo "## Syscalls per request counted by perf stat ($duration s of wrk -c$c)"
            echo
            for model in "${models[@]}"; do echo "- $model: ${perf_breakdown[$model,$c]}"; done
            echo
        done
    fi
    echo "## Syscalls per request under strace -c -f ($strace_duration s of wrk; calls, errors in brackets)"
    echo
    for model in "${models[@]}"; do
        echo "- $model (${strace_requests[$model]} requests): $(awk -v n="${strace_requests[$model]}" '
            $1 ~ /^[0-9.]+$/ && NF >= 5 {
                errors = (NF == 6) ? sprintf(" [%.3f]", $5 / n) : ""
                printf "%s%s %.3f%s", sep, $NF, $4 / n, errors; sep = ", "
            }' "$out/strace-$model.txt")"
    done
    echo
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$summary"
echo
cat "$summary"
