#!/usr/bin/env bash
# events.sh: GET /api/emoji/stream, server-sent events. curl -N stamps every event as it arrives
# (sse_timing.py): each within 50 ms of its due time, none bunched, over HTTP/1.1 (chunked), h2c and
# h2 over TLS; the proxy fields (Cache-Control: no-cache, X-Accel-Buffering: no); bad parameters get
# 400; compressed (br, gzip, zstd) each event still leaves when it is written; a client that goes away
# cancels the handler at once (the access log's duration is the
# client's second, not the 5 s sleep before the next event, and its status 499: the client left).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
start_server --access-log --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
STREAM="/api/emoji/stream?count=10&interval_ms=200"

# timed DESC BASE CURL-ARGS...: ten events 200 ms apart, stamped on arrival; the headers in $WORK/events.h.
timed() {
    local desc=$1 base=$2 report
    shift 2
    report=$(python3 "$TESTS_DIR/sse_timing.py" 10 200 50 "${CURL[@]}" -N --dump-header "$WORK/events.h" "$@" "$base$STREAM" 2>&1 || true)
    echo "$report" | sed 's/^/    /'
    check_eq "$desc: ten events, ids 1...10, each within 50 ms of its due time" ok "$(echo "$report" | tail -n1)"
    check_match "$desc: text/event-stream" '^text/event-stream' "$(header content-type "$WORK/events.h")"
    check_eq "$desc: Cache-Control: no-cache" no-cache "$(header cache-control "$WORK/events.h")"
    check_eq "$desc: X-Accel-Buffering: no" no "$(header x-accel-buffering "$WORK/events.h")"
    check_eq "$desc: no Content-Length" "" "$(header content-length "$WORK/events.h")"
}

echo "Every event as it is due"
timed "HTTP/1.1" "$BASE" --http1.1
check_eq "HTTP/1.1: chunked" chunked "$(header transfer-encoding "$WORK/events.h")"
timed "h2c" "$BASE" --http2-prior-knowledge
check_match "h2c: the response is HTTP/2" '^HTTP/2 200' "$(head -n1 "$WORK/events.h")"
timed "h2 over TLS" "$TLS_BASE" --http2 --cacert "$CERTS/ca.pem"
check_match "h2 over TLS: the response is HTTP/2" '^HTTP/2 200' "$(head -n1 "$WORK/events.h")"
timed "HTTP/1.1 over TLS" "$TLS_BASE" --http1.1 --cacert "$CERTS/ca.pem"

echo "Compressed (curl --compressed takes zstd), still every event as it is due"
timed "HTTP/1.1, zstd" "$BASE" --http1.1 --compressed
check_eq "HTTP/1.1, zstd: Content-Encoding: zstd" zstd "$(header content-encoding "$WORK/events.h")"
timed "h2c, gzip" "$BASE" --http2-prior-knowledge --compressed -H 'Accept-Encoding: gzip'
check_eq "h2c, gzip: Content-Encoding: gzip" gzip "$(header content-encoding "$WORK/events.h")"
timed "h2 over TLS, br" "$TLS_BASE" --http2 --cacert "$CERTS/ca.pem" --compressed -H 'Accept-Encoding: br'
check_eq "h2 over TLS, br: Content-Encoding: br" br "$(header content-encoding "$WORK/events.h")"

echo "Defaults and ends of the ranges"
request "$BASE/api/emoji/stream?interval_ms=0"
check_eq "no count: 200" 200 "$STATUS"
check_eq "no count: ten events" 10 "$(grep -c '^data: ' "$BODY")"
request "$BASE/api/emoji/stream?count=100&interval_ms=0"
check_eq "count=100, interval_ms=0: a hundred events" 100 "$(grep -c '^data: ' "$BODY")"
check_eq "count=100: the last id is 100" "id: 100" "$(grep '^id: ' "$BODY" | tail -n1)"
request "$BASE/api/emoji/stream?count=1"
check_eq "count=1 (interval 1000 ms by default): one event, not held back" "1 1" "$(grep -c '^data: ' "$BODY") $(grep -c '^id: 1$' "$BODY")"
# The GET would take 5 s; HEAD answers with the head alone, at once (within curl's 2 s).
request -I --max-time 2 "$BASE/api/emoji/stream?count=2&interval_ms=5000"
check_eq "HEAD: 200 at once, text/event-stream" "200 text/event-stream" "$STATUS $(header content-type)"

echo "Bad parameters get 400 with problem details naming each parameter"
for query in count=0 count=101 interval_ms=-1 interval_ms=5001; do
    request "$BASE/api/emoji/stream?$query"
    name=${query%%=*} value=${query#*=}
    bound=$(case $query in count=0) echo "least 1" ;; count=101) echo "most 100" ;; interval_ms=-1) echo "least 0" ;; *) echo "most 5000" ;; esac)
    check_eq "$query: 400 names the parameter, the bound and the value" "400 query $name: must be at $bound, got $value" "$STATUS $(problem_errors "$BODY")"
done
request "$BASE/api/emoji/stream?count=0&interval_ms=abc"
check_eq "count=0&interval_ms=abc: both, in one answer" \
    "400 query count: must be at least 1, got 0 query interval_ms: must be an integer, got a string (\"abc\")" "$STATUS $(problem_errors "$BODY" | tr '\n' ' ' | sed 's/ $//')"
request "$BASE/api/emoji/stream?count"
check_eq "bare ?count: 400, not 500" '400 query count: must be an integer, got a string ("")' "$STATUS $(problem_errors "$BODY")"

echo "A client that goes away cancels the handler"
# Three events 5 s apart; curl leaves after 1 s. A handler left running would sleep until the second
# event is due and only then find the connection gone: its access-log line would say 5000 ms or more.
for protocol in --http1.1 --http2-prior-knowledge; do
    "${CURL[@]}" -N --max-time 1 "$protocol" "$BASE/api/emoji/stream?count=3&interval_ms=5000&from=$protocol" >/dev/null 2>&1 || true
    line=$(wait_for_line "GET /api/emoji/stream\\?count=3&interval_ms=5000&from=$protocol 499" "$SERVER_ERR" 5)
    duration=$(sed -n 's/.*duration_ms=\([0-9]*\).*/\1/p' <<<"$line")
    echo "    ($protocol: $line)"
    check "$protocol: the stream's handler ended within 1.5 s of the client (${duration:-no access line} ms)" test "${duration:-99999}" -lt 2500
done
