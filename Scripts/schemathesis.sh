#!/usr/bin/env bash
# Scripts/schemathesis.sh [PATH/TO/cat-service] (`make schemathesis`): Schemathesis, a
# property-based tester from PyPI, generates requests from cat-service's own OpenAPI document
# (valid ones and ones the document forbids) and checks every answer against it: statuses,
# content types, bodies and event-stream events against their schemas, invalid requests refused.
# The server runs with --contract-check, and a contract violation it logs fails the run too.
# Bounded: SCHEMATHESIS_EXAMPLES (default 100) examples per operation, within 120 s; loopback only.
# Outside `make test` (it draws random requests: a seed it prints reproduces a failure).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
service=${1:-$root/Demo/CatService/.build/debug/cat-service}
[[ -x $service ]] || { echo "schemathesis.sh: no cat-service at $service (make build-demo)" >&2; exit 2; }
if ! command -v schemathesis >/dev/null; then
    echo "schemathesis.sh: installing schemathesis from PyPI" >&2
    python3 -m pip install --quiet schemathesis
fi
work=$(mktemp -d)
# A token for GET /api/report, given to every request, so that the report's 200 is tested too
# (Schemathesis also sends it without, and checks that the operation then refuses).
token=schemathesis-$RANDOM$RANDOM
CAT_SERVICE_REPORT_TOKENS=$token "$service" --host 127.0.0.1 --port 0 --contract-check >"$work/out" 2>"$work/err" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 200); do grep -q 'listening on http://' "$work/out" && break; sleep 0.05; done
base=$(grep -m1 -o 'http://127\.0\.0\.1:[0-9]*' "$work/out") || { echo "schemathesis.sh: cat-service did not start: $(cat "$work/err")" >&2; exit 1; }
rc=0
(cd "$root/Demo/CatService/Tests" && timeout 120 schemathesis run "$base/api/openapi.yaml" --url "$base/api" \
    --checks all --max-examples "${SCHEMATHESIS_EXAMPLES:-100}" --request-timeout 10 -H "Authorization: Bearer $token") || rc=$?
violations=$(grep -c 'contract violation' "$work/err" || true)
echo "schemathesis.sh: schemathesis exited $rc; the server logged $violations contract violation(s)"
grep 'contract violation' "$work/err" | head -5 || true
kill -0 $pid || { echo "schemathesis.sh: cat-service is not running after the run" >&2; exit 1; }
((rc == 0 && violations == 0))
