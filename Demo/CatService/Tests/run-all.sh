#!/usr/bin/env bash
# run-all.sh PATH/TO/cat-service: runs every test script here against that binary and ends with
# one line, "N passed, N failed", counting individual checks. Exits non-zero if any check failed.
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
    echo "usage: $0 PATH/TO/cat-service" >&2
    exit 2
fi
CAT_SERVICE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export CAT_SERVICE
# Every cat-service the scripts start checks its responses against the OpenAPI document; lib.sh's
# exit trap fails a script whose servers logged a contract violation.
export CAT_SERVICE_CONTRACT_CHECK=${CAT_SERVICE_CONTRACT_CHECK:-true}

tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
results=$(mktemp "${TMPDIR:-/tmp}/cat-service-results.XXXXXX")
trap 'rm -f "$results"' EXIT
export CAT_TEST_RESULTS=$results

for script in "$tests_dir"/*.sh; do
    name=$(basename "$script")
    case $name in lib.sh | run-all.sh) continue ;; esac
    echo "== $name"
    fails_before=$(grep -c '^FAIL$' "$results" || true)
    rc=0
    # Each script bounds its own waits and requests; this is a last guard against a hang.
    timeout 300 bash "$script" || rc=$?
    fails_after=$(grep -c '^FAIL$' "$results" || true)
    if ((rc != 0 && fails_after == fails_before)); then
        echo "  FAIL  $name exited with status $rc before reporting a failed check"
        echo FAIL >>"$results"
    fi
done

passed=$(grep -c '^PASS$' "$results" || true)
failed=$(grep -c '^FAIL$' "$results" || true)
if ((passed == 0 && failed == 0)); then
    echo "  FAIL  no checks ran"
    failed=1
fi
echo "$passed passed, $failed failed"
((failed == 0))
