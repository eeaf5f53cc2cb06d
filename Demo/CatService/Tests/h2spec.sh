#!/usr/bin/env bash
# h2spec.sh: HTTP/2 conformance (h2spec, RFC 9113 and RFC 7541) against the cat-service that was
# built: h2c prior knowledge on a port that speaks only HTTP/2 (--h2c-only, 146 of 146), the same
# strict (-S, 147 of 147), h2 over TLS (ALPN, 146 of 146) and the shared cleartext port that also
# serves HTTP/1.1 (145 of 146: 3.5 #2, an invalid preface, is answered as the HTTP/1.1 request it
# may be, by design). After every run the server must still be alive and serving: one client's
# frames must never end the process (h2spec's 5.1.2 #1 once did).
#
# h2spec is a test tool that no registry here packages (../shared/tools/h2spec beside the
# repository, see its README); `make test H2SPEC=PATH` (as .ci/run does) points here at it. Without
# it this script says so and checks nothing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

H2SPEC=${H2SPEC:-}
if [[ -z $H2SPEC || ! -x $H2SPEC ]]; then
    echo "  SKIP  h2spec not found (${H2SPEC:-H2SPEC not set}): make test H2SPEC=PATH/TO/h2spec runs the HTTP/2 conformance suite"
    exit 0
fi

CERTS="$DEMO_DIR/../../Tests/Certificates"
# A path whose body has at least 5 bytes, or h2spec skips http2/6.9.2 #2.
H2SPEC_PATH='/api/emoji?count=3'

# h2spec_run NAME EXPECTED-SUMMARY H2SPEC-ARGS...: runs the suite (bounded), checks its summary
# line, prints the failures' section when it differs, then checks that the server still answers.
h2spec_run() {
    local name=$1 expected=$2
    shift 2
    local out="$WORK/h2spec-${name// /-}.txt" rc=0
    timeout 240 "$H2SPEC" -h 127.0.0.1 -P "$H2SPEC_PATH" -o 2 -j "$out.xml" "$@" >"$out" 2>&1 || rc=$?
    local summary
    summary=$(grep -E '^[0-9]+ tests, ' "$out" | tail -n1 || true)
    echo "  h2spec $name: ${summary:-no summary (exit $rc)}"
    check_eq "h2spec $name: $expected" "$expected" "$summary"
    if [[ $summary != "$expected" ]]; then sed -n '/^Failures:/,$p' "$out" | head -n 40; fi
    check "cat-service is alive after h2spec $name" is_running "$SERVER_PID"
}

# still_serves CURL-ARGS... URL: an HTTP/2 request for three cats after the run.
still_serves() {
    request "$@"
    check_eq "after h2spec, HTTP/2 still serves: $*" "200" "$STATUS"
    check_eq "after h2spec, three cats" "3" "$(count_cats "$(cat "$BODY")")"
}

# h2c, a port that speaks only HTTP/2 (prior knowledge): every test, then strict.
start_server --h2c-only
h2spec_run "h2c" "146 tests, 146 passed, 0 skipped, 0 failed" -p "$PORT"
h2spec_run "h2c strict" "147 tests, 147 passed, 0 skipped, 0 failed" -p "$PORT" -S
still_serves --http2-prior-knowledge "$BASE/api/emoji?count=3"
stop_server
check_eq "cat-service exits 0 after the h2c runs" "0" "$EXIT_CODE"

# h2 over TLS (ALPN h2), and the shared cleartext port of the same server.
start_server --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
h2spec_run "h2 over TLS" "146 tests, 146 passed, 0 skipped, 0 failed" -p "$TLS_PORT" -t -k
h2spec_run "shared cleartext port" "146 tests, 145 passed, 0 skipped, 1 failed" -p "$PORT"
failed=$(sed -n '/^Failures:/,$p' "$WORK/h2spec-shared-cleartext-port.txt" | grep -E '^\s+(× |[0-9.]+\. )' | sed -E 's/^ +//' | paste -sd' ')
check_contains "the shared port's one failure is 3.5 #2 (an invalid preface read as HTTP/1.1)" "3.5. HTTP/2 Connection Preface × 2: Sends invalid connection preface" "$failed"
still_serves --http2 --cacert "$CERTS/ca.pem" "$TLS_BASE/api/emoji?count=3"
still_serves --http2-prior-knowledge "$BASE/api/emoji?count=3"
stop_server
check_eq "cat-service exits 0 after the TLS and shared-port runs" "0" "$EXIT_CODE"
