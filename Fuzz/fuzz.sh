#!/usr/bin/env bash
# Builds the fuzz targets (libFuzzer + AddressSanitizer) and runs them; `make fuzz` and
# `make fuzz-replay` call this. See Fuzz/README.md.
#
#   Fuzz/fuzz.sh build            build only
#   Fuzz/fuzz.sh run [TARGET...]  fuzz each target for FUZZ_SECONDS (60; and at most FUZZ_RUNS
#                                 inputs, if set), one after another
#   Fuzz/fuzz.sh replay [TARGET...]  run the seed corpus and the regression inputs once, no fuzzing
#
# Fuzzing starts from a scratch copy of Fuzz/Corpus/<target> (and Fuzz/Regressions/<target>) under
# Fuzz/.build/fuzz-work, so the corpus in the repository only changes by hand. The first crash,
# timeout (FUZZ_TIMEOUT, 5 s) or out-of-memory (FUZZ_RSS_MB, 2048) stops the run with a non-zero
# exit and the reproducer's path; FUZZ_JOBS, FUZZ_FLAGS add libFuzzer options.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v swift >/dev/null; then export PATH="$PATH:/opt/swift/usr/bin"; fi

ALL_TARGETS=(FuzzHTTP1Parser FuzzRouter FuzzH2CUpgrade FuzzByteRanges FuzzHTTP2Session FuzzHTTP1Connection FuzzHTTP2Connection FuzzDocumentReaders)
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-5}"
FUZZ_RSS_MB="${FUZZ_RSS_MB:-2048}"
FUZZ_FLAGS="${FUZZ_FLAGS:-}"
FUZZ_RUNS="${FUZZ_RUNS:--1}"  # -1: no limit but FUZZ_SECONDS
NICE="${FUZZ_NICE:-nice -n 10}"
# The Swift runtime's own crash backtracer fights AddressSanitizer over a fatalError; libFuzzer reports.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

max_len() {
    case "$1" in
        FuzzRouter) echo 2048 ;;
        FuzzByteRanges) echo 512 ;;
        FuzzHTTP2Session | FuzzHTTP2Connection | FuzzHTTP1Connection) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

# `--sanitize=fuzzer --sanitize=address` would be the plain spelling, but SwiftPM 6.3 passes the
# two as separate `-sanitize=` flags in an order that changes from run to run, and swiftc keeps
# only the last: half the builds had no coverage instrumentation (and every build rebuilt all).
# So SwiftPM is told about the fuzzer (it then links libFuzzer's main and compiles main.swift as a
# library) and swiftc gets both sanitizers in one flag; C code gets ASan with -Xcc.
BUILD_FLAGS=(-c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=address -Xswiftc -enable-testing)

build() {
    # SwiftPM keeps this package's build plan while its manifest is unchanged and misses files
    # added to Whisker, which it reads by path: the plan is dropped first (see the Makefile's build-demo).
    rm -f .build/*/release/description.json
    echo "fuzz: swift build --package-path Fuzz ${BUILD_FLAGS[*]}"
    $NICE swift build --package-path . "${BUILD_FLAGS[@]}"
}

bin() { echo ".build/release/$1"; }

run_target() {
    local target="$1"
    local work=".build/fuzz-work/$target" artifacts=".build/fuzz-artifacts/$target"
    mkdir -p "$work" "$artifacts"
    cp -n "Corpus/$target"/* "$work"/ 2>/dev/null || true
    if [[ -d "Regressions/$target" ]]; then cp -n "Regressions/$target"/* "$work"/ 2>/dev/null || true; fi
    echo "fuzz: $target for ${FUZZ_SECONDS}s (working corpus $PWD/$work)"
    local status=0
    # shellcheck disable=SC2086
    $NICE "$(bin "$target")" "$work" \
        -max_total_time="$FUZZ_SECONDS" -runs="$FUZZ_RUNS" -max_len="$(max_len "$target")" -timeout="$FUZZ_TIMEOUT" \
        -rss_limit_mb="$FUZZ_RSS_MB" -dict="Dictionaries/$target.dict" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 -report_slow_units=1 $FUZZ_FLAGS 2>"$artifacts/../$target.log" || status=$?
    grep -E "^#[0-9]+.*DONE|stat::|^Done" "$artifacts/../$target.log" || true
    if (( status != 0 )); then
        tail -n 40 "$artifacts/../$target.log"
        local reproducer
        reproducer=$(grep -oE "Test unit written to [^ ]+" "$artifacts/../$target.log" | tail -n 1 | sed 's/Test unit written to //')
        echo "fuzz: $target FAILED (exit $status); reproducer: $PWD/${reproducer:-$artifacts}" >&2
        echo "fuzz: replay it with $PWD/$(bin "$target") ${reproducer:-<file>}; full log $PWD/$artifacts/../$target.log" >&2
        exit 1
    fi
}

replay_target() {
    local target="$1" dirs=("Corpus/$target")
    if [[ -d "Regressions/$target" ]] && compgen -G "Regressions/$target/*" >/dev/null; then dirs+=("Regressions/$target"); fi
    echo "fuzz-replay: $target (${dirs[*]})"
    local files=()
    for dir in "${dirs[@]}"; do for file in "$dir"/*; do files+=("$file"); done; done
    # Files, not folders: libFuzzer then runs each once and reports the one that fails.
    if ! "$(bin "$target")" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb="$FUZZ_RSS_MB" "${files[@]}" >".build/$target.replay.log" 2>&1; then
        tail -n 40 ".build/$target.replay.log"
        echo "fuzz-replay: $target FAILED on $(grep -oE 'Running: [^ ]+' ".build/$target.replay.log" | tail -n 1 | cut -d' ' -f2)" >&2
        exit 1
    fi
    echo "fuzz-replay: $target: ${#files[@]} inputs ok"
}

command="${1:-run}"
shift || true
targets=("$@")
if (( ${#targets[@]} == 0 )); then targets=("${ALL_TARGETS[@]}"); fi
case "$command" in
    build) build ;;
    run) build; for target in "${targets[@]}"; do run_target "$target"; done ;;
    replay) build; for target in "${targets[@]}"; do replay_target "$target"; done ;;
    *) echo "usage: $0 build | run [TARGET...] | replay [TARGET...]" >&2; exit 2 ;;
esac
