#!/usr/bin/env bash
# budget.sh check|update BIN-PATH CONFIG: the allocation budget (README.md), run from `make test-budget`
# and `make test-budget-update` once they built AllocationBudget and BenchmarkTool into BIN-PATH.
#
#   check   runs the benchmarks, prints mallocs per request, and compares each p90 with
#           Thresholds/CONFIG/: exit 0 when all are equal; otherwise the table of deviations and
#           exit 2 (more allocations than the budget) or 4 (fewer: lower the budget)
#   update  runs them and writes their p90s to Thresholds/CONFIG/ (review and commit the diff)
#
# It runs package-benchmark's BenchmarkTool directly, as `swift package benchmark` would (the
# command plugin builds that tool in release mode first, which costs a clean checkout a minute
# or more): the same arguments, and the malloc interposer preloaded as the plugin does on Linux.
set -euo pipefail
operation=${1:-} bin=$(cd "${2:-.}" && pwd) config=${3:-debug}
cd "$(dirname "${BASH_SOURCE[0]}")"
tool() {
    LD_PRELOAD="$bin/libMallocInterposerSwift.so${LD_PRELOAD:+:$LD_PRELOAD}" "$bin/BenchmarkTool" \
        --baseline-storage-path "$PWD" --format text --grouping benchmark --no-progress \
        --targets AllocationBudget --benchmark-executable-paths "$bin/AllocationBudget" "$@"
}
case $operation in
check)
    echo "allocation budget ($config build): mallocs per request, in Thresholds/$config/"
    tool --command run | sed -n '/^AllocationBudget/,$p'
    status=0
    tool --command thresholds --thresholds-operation check --path "Thresholds/$config" || status=$?
    case $status in
    0) echo "allocation budget: every benchmark allocates exactly its budget" ;;
    2) echo "allocation budget: MORE allocations per request than Thresholds/$config/ allows (above)." \
            "Find them with: make test-budget-stacks. If they are meant, raise the budget: make test-budget-update" ;;
    4) echo "allocation budget: FEWER allocations per request than Thresholds/$config/ says (above)." \
            "Lower the budget to keep the gain: make test-budget-update" ;;
    esac
    exit "$status"
    ;;
update)
    tool --command thresholds --thresholds-operation update --path "Thresholds/$config" | grep -v '^$'
    git --no-pager diff --stat -- "Thresholds/$config" || true
    ;;
stacks)
    # Where the allocations of one request come from (release builds name the frames best).
    LD_PRELOAD="$bin/libMallocInterposerSwift.so" "$bin/AllocationBudget" --allocation-stacks \
        --allocation-stack-limit "${BUDGET_STACKS:-25}" ${BUDGET_FILTER:+--filter "$BUDGET_FILTER"} 2>&1 | grep -v 'ETA:'
    ;;
*)
    echo "usage: $0 check|update|stacks BIN-PATH CONFIG" >&2
    exit 64
    ;;
esac
