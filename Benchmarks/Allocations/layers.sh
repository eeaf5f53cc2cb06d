#!/usr/bin/env bash
# layers.sh BIN-PATH: the per-layer micro-benchmarks (README.md, "Micro-benchmarks"), run from
# `make bench-layers` once it built Layers and BenchmarkTool (release) into BIN-PATH.
#
# Prints one table per metric (wall clock, mallocs; instructions where perf events exist), a row
# per layer, the figures per operation. Environment:
#   LAYERS_FILTER=regex   run only the benchmarks whose names contain a match (router|parser)
#   LAYERS_BASELINE=name  also save the run as baseline `name` (in .benchmarkBaselines/, not committed)
#   LAYERS_COMPARE=name   run, then compare with the saved baseline `name` (before and after a change)
set -euo pipefail
bin=$(cd "${1:-.}" && pwd)
cd "$(dirname "${BASH_SOURCE[0]}")"
tool() {
    LD_PRELOAD="$bin/libMallocInterposerSwift.so${LD_PRELOAD:+:$LD_PRELOAD}" "$bin/BenchmarkTool" \
        --baseline-storage-path "$PWD" --format text --grouping metric --no-progress \
        --targets Layers --benchmark-executable-paths "$bin/Layers" \
        ${LAYERS_FILTER:+--filter ".*($LAYERS_FILTER).*"} "$@"
}
if grep -qs . /sys/bus/event_source/devices/cpu/type 2>/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -le 2 ]; then
    echo "per-layer micro-benchmarks: per operation; instructions counted (perf events available)"
else
    echo "per-layer micro-benchmarks: per operation; no instruction counts (no perf events on this machine)"
fi
if [ -n "${LAYERS_COMPARE:-}" ]; then
    tool --command baseline --baseline-operation compare --baseline "$LAYERS_COMPARE"
elif [ -n "${LAYERS_BASELINE:-}" ]; then
    tool --command baseline --baseline-operation update --baseline "$LAYERS_BASELINE"
else
    tool --command run
fi
