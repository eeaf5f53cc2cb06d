#!/usr/bin/env bash
# answers.sh: every response leaves cat-service by one way, a handler's or the server's own (404,
# 405, 413, a body missing): each carries the request id back and the CORS fields, and is one
# access-log line with the status sent, over HTTP/1.1 and HTTP/2. Errors the server gives by itself
# are problem details (RFC 9457) for a client that takes JSON, plain text for one that asks only for
# text, each with X-Content-Type-Options: nosniff; a client that leaves mid-upload is logged as 499
# without an error line.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ORIGIN=http://example.test
ANSWERS=0
start_server --access-log --request-ids --cors-origin "$ORIGIN"
LARGE=$(head -c 2000 /dev/zero | tr '\0' a)

# answer NAME EXPECTED-STATUS CURL-ARGS...: one request with an Origin and a request id of its own;
# checks the status, the id and CORS fields back, and the request's one access-log line.
answer() {
    local name=$1 expected=$2 id="answers-$((++ANSWERS))"
    shift 2
    request -H "Origin: $ORIGIN" -H "X-Request-ID: $id" "$@"
    check_eq "$name: $expected" "$expected" "$STATUS"
    check_eq "$name: X-Request-ID back" "$id" "$(header X-Request-ID)"
    check_eq "$name: readable by a page of the allowed origin" "$ORIGIN" "$(header Access-Control-Allow-Origin)"
    check_contains "$name: its access-log line says $expected" "status=$expected" \
        "$(wait_for_line "cat-service.access: .*request_id=$id " "$SERVER_ERR")"
    # One access-log line; the library's own lines about the request (a validation refusal)
    # carry its id too (Logger.current, issue 39), and are not counted here.
    check_eq "$name: one access-log line" 1 "$(grep -c "cat-service.access: .*request_id=$id " "$SERVER_ERR" || true)"
}

for http in --http1.1 --http2-prior-knowledge; do
    echo "Handler and server answers alike ($http)"
    answer "GET /api/emoji (a handler)" 200 "$http" "$BASE/api/emoji"
    answer "GET /api/nothere (no route)" 404 "$http" "$BASE/api/nothere"
    check_eq "... as problem details" application/problem+json "$(header Content-Type)"
    check_eq "... never sniffed as anything else (X-Content-Type-Options)" nosniff "$(header X-Content-Type-Options)"
    check_contains "... naming the request id" "\"requestId\":\"answers-$ANSWERS\"" "$(cat "$BODY")"
    answer "POST /api/emoji (another method)" 405 "$http" -X POST "$BASE/api/emoji"
    check_eq "... with Allow" "GET, HEAD" "$(header Allow)"
    check_eq "... nosniff" nosniff "$(header X-Content-Type-Options)"
    answer "POST /api/adopt with 2,000 bytes (past its 1 KiB)" 413 "$http" -H 'Content-Type: application/json' --data-binary "$LARGE" "$BASE/api/adopt"
    check_contains "... saying why" '"detail":"request body of 2000 bytes is larger than 1024 bytes"' "$(cat "$BODY")"
    check_eq "... nosniff" nosniff "$(header X-Content-Type-Options)"
    answer "POST /api/census without a body (request validation's 400)" 400 "$http" -X POST "$BASE/api/census"
    check_eq "... as problem details" application/problem+json "$(header Content-Type)"
    check_eq "... never sniffed as anything else (X-Content-Type-Options)" nosniff "$(header X-Content-Type-Options)"
    check_eq "... saying what was wrong" "body : is required (text/plain)" "$(problem_errors "$BODY")"
    answer "POST /api/census with an empty text (Content-Length: 0): the empty string, shorter than minLength" 400 "$http" -H 'Content-Type: text/plain' --data-binary '' "$BASE/api/census"
    check_eq "... saying what was wrong" "body : must be at least 1 character long, got 0" "$(problem_errors "$BODY")"
done

echo "A client that asks only for text gets text"
request -H 'Accept: text/plain' "$BASE/api/nothere"
check_eq "404 as text/plain" "404 text/plain; charset=utf-8" "$STATUS $(header Content-Type)"
check_eq "... one line: title and detail" "Not Found: no route for /api/nothere" "$(cat "$BODY")"
check_eq "... nosniff as text too" nosniff "$(header X-Content-Type-Options)"
request -H 'Accept: */*' "$BASE/api/nothere"
check_eq "*/* takes JSON" application/problem+json "$(header Content-Type)"
raw_request 'GET /api/emoji HTTP/1.1\r\nHost: x\r\nExpect: nothing\r\n\r\n' >"$WORK/expect.out"
check_eq "a problem the parser answers (417, Expect) is nosniff too" "417 nosniff" \
    "$(head -n1 "$WORK/expect.out" | cut -d' ' -f2) $(header X-Content-Type-Options "$WORK/expect.out")"

echo "A client that leaves in the middle of its upload"
head -c 200000 /dev/zero | tr '\0' a >"$WORK/upload.txt"
for http in --http1.1 --http2-prior-knowledge; do
    timeout 1 "${CURL[@]}" "$http" -o /dev/null --limit-rate 20k -H "X-Request-ID: left-$http" -H 'Content-Type: text/plain' \
        --data-binary "@$WORK/upload.txt" "$BASE/api/census" || true
    check_contains "$http: logged as 499, what happened" "status=499" \
        "$(wait_for_line "cat-service.access: .*request_id=left-$http " "$SERVER_ERR")"
done
check_eq "... and no error line" 0 "$(grep -c ' error ' "$SERVER_ERR" || true)"
check "the server is alive after" is_running "$SERVER_PID"
stop_server
