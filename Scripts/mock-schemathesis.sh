#!/usr/bin/env bash
# Scripts/mock-schemathesis.sh WHISKER-MOCK DOCUMENT... (`make test-mock`, in `make test`):
# whisker-mock serves each OpenAPI document with no code, and Schemathesis (PyPI) drives it from
# the same document with every check: each answer's status, headers, content type and body (and
# each event of a stream against its itemSchema) as documented, the document's examples answered,
# requests the document forbids refused, a wrong credential refused. A failure fails the script.
#
# Two runs a document: the requests it allows (positive), and the ones it forbids (negative). Every
# check runs but two kinds, left out for a reason each:
# - the stateful ones (use_after_free, ensure_resource_availability, and the stateful phase): the
#   mock keeps no state, so what one request creates or deletes the next does not see (by design:
#   each answer is the document's example);
# - for the forbidden requests, the refusal's being documented (its status, media type and body):
#   most documents do not say how a server refuses what they forbid (no 400, no 401 for a missing
#   credential, errors in a JSON of their own), and the mock refuses as Whisker's transport does
#   (problem details: 400, 401, 413, 415), which the negative run still requires to be a refusal.
# A document the mock cannot read as YAML (anchors and aliases) is served in its JSON form,
# as whisker-mock's error says to; one without operations is served (its docs page) and not run.
# Tests/Mock/schemathesis.toml says what is told for particular operations, and why.
# Bounded: MOCK_EXAMPLES (default 20) examples per operation, each run within 120 s; loopback only.
# Repeatable: the same cases every run (MOCK_SEED, default 20261129; another seed draws others).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mock=$(realpath "$1")
shift
[[ -x $mock ]] || { echo "mock-schemathesis.sh: no whisker-mock at $mock" >&2; exit 2; }
command -v schemathesis >/dev/null || python3 -m pip install --quiet schemathesis
work=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
failed=0
runs=0
stateful=use_after_free,ensure_resource_availability
refusal=status_code_conformance,content_type_conformance,response_schema_conformance

# serve DOCUMENT: starts whisker-mock on a free port; sets pid and base (its server URL), or fails.
serve() {
    "$mock" "$1" --port 0 --credential mock-token >"$work/out" 2>"$work/err" &
    pid=$!
    base=
    for _ in $(seq 200); do
        base=$(grep -m1 -o 'on http://127\.0\.0\.1:[0-9]*[^ ]*' "$work/out" | head -1 | cut -c4-) || true
        [[ -n $base ]] && return 0
        kill -0 $pid 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# run NAME ARGS...: one Schemathesis run against the mock at $base; counts a failure.
run() {
    local name=$1
    shift
    runs=$((runs + 1))
    if (cd "$root/Tests/Mock" && SCHEMATHESIS_HOOKS=hooks PYTHONPATH=. timeout 120 schemathesis --config-file "$work/schemathesis.toml" run "$document" --url "$base" \
        --phases examples,coverage,fuzzing --max-examples "${MOCK_EXAMPLES:-20}" --seed "${MOCK_SEED:-20261129}" --request-timeout 10 -H 'Authorization: Bearer mock-token' "$@") >"$work/st" 2>&1; then
        echo "  PASS  $name: $(grep -E '^ *[0-9]+ generated' "$work/st" | tail -1 | sed 's/^ *//')"
    else
        failed=$((failed + 1))
        echo "  FAIL  $name"
        sed -n '/FAILURES\|ERRORS/,/SUMMARY/p' "$work/st" | head -"${MOCK_FAILURE_LINES:-60}" | sed 's/^/        /'
    fi
}

for given in "$@"; do
    document=$(realpath "$given")
    label=${given#"$root/"}
    if ! serve "$document"; then
        if grep -q 'anchors, aliases' "$work/err"; then
            python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"))' "$document" "$work/document.json"
            document=$work/document.json
            label="$label (its JSON form)"
            serve "$document" || { echo "  FAIL  $label: whisker-mock did not start: $(cat "$work/err")"; failed=$((failed + 1)); continue; }
        else
            echo "  FAIL  $label: whisker-mock did not start: $(cat "$work/err")"
            failed=$((failed + 1))
            continue
        fi
    fi
    echo "$label: $(head -1 "$work/out")"
    # Tests/Mock/schemathesis.toml, and the operations that take a multipart body: Whisker checks
    # such a body's media type, not its parts (the generated code decodes the parts, and refuses a
    # required one that is missing), so the mock takes parts its schema does not allow.
    { cat "$root/Tests/Mock/schemathesis.toml"; python3 -c 'import json, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for path, item in doc.get("paths", {}).items():
    for method, op in item.items():
        content = op.get("requestBody", {}).get("content", {}) if isinstance(op, dict) else {}
        if any(media.startswith("multipart/") for media in content):
            print(f"\n[[operations]]\ninclude-name = \"{method.upper()} {path}\"\nchecks.negative_data_rejection.enabled = false")' "$document"; } >"$work/schemathesis.toml"
    if grep -q '^ *0 operations' <(sed 's/^whisker-mock: //' "$work/out"); then
        echo "  (no operations: nothing for Schemathesis to run)"
    else
        run "$label, generated requests" --mode positive --exclude-checks "$stateful"
        run "$label, forbidden requests" --mode negative --exclude-checks "$stateful,$refusal"
    fi
    kill -0 $pid 2>/dev/null || { echo "  FAIL  $label: whisker-mock is not running after the run"; failed=$((failed + 1)); }
    kill -TERM $pid
    wait $pid || { echo "  FAIL  $label: whisker-mock did not exit cleanly on SIGTERM"; failed=$((failed + 1)); }
    pid=
done
echo "mock-schemathesis.sh: $runs runs over $# documents, $failed failed"
((failed == 0))
