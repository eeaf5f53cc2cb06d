#!/usr/bin/env bash
# GET /api/emoji: the default count, exact counts, and every kind of bad count.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server

echo "GET /api/emoji (no count: one cat)"
request "$BASE/api/emoji"
check_eq "status is 200" 200 "$STATUS"
check_match "content-type is text/plain" '^text/plain' "$(header content-type)"
check_eq "body is exactly 1 cat emoji" 1 "$(count_cats "$(cat "$BODY")")"
check_eq "content-length is 4 (one 4-byte emoji)" 4 "$(header content-length)"
check_match "a Date header is present (IMF-fixdate)" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$' "$(header date)"

echo "GET /api/emoji?count=3"
request "$BASE/api/emoji?count=3"
check_eq "status is 200" 200 "$STATUS"
check_match "content-type is text/plain" '^text/plain' "$(header content-type)"
check_eq "body is exactly 3 cat emoji" 3 "$(count_cats "$(cat "$BODY")")"
check_eq "body is 12 bytes" 12 "$(wc -c <"$BODY" | tr -d ' ')"

echo "GET /api/emoji?count=1 and ?count=100 (the ends of the range)"
request "$BASE/api/emoji?count=1"
check_eq "count=1: status is 200" 200 "$STATUS"
check_eq "count=1: body is exactly 1 cat emoji" 1 "$(count_cats "$(cat "$BODY")")"
request "$BASE/api/emoji?count=100"
check_eq "count=100: status is 200" 200 "$STATUS"
check_eq "count=100: body is exactly 100 cat emoji" 100 "$(count_cats "$(cat "$BODY")")"
check_eq "count=100: content-length is 400" 400 "$(header content-length)"
check_eq "count=100: one cat repeated (as the talk's String(repeating:count:))" 1 "$(distinct_characters "$(cat "$BODY")")"
# One cat chosen at random per request: over 40 requests more than one of the ten shows up
# (all 40 the same by chance: 10 x (1/10)^40).
seen=""
for _ in $(seq 40); do seen+=$("${CURL[@]}" "$BASE/api/emoji"); done
check_eq "40 requests: every body is one cat from the talk's set" 40 "$(count_cats "$seen")"
check "40 requests: the cat is chosen at random (more than one kind seen)" test "$(distinct_characters "$seen")" -gt 1

echo "Bad counts get 400 with problem details naming the parameter (checked against the document)"
for count in 0 -1 101; do
    request "$BASE/api/emoji?count=$count"
    check_eq "count=$count: 400 application/problem+json" "400 application/problem+json" "$STATUS $(header content-type)"
    check_eq "count=$count: the error names count and the bound" \
        "query count: must be at $( ((count > 100)) && echo "most 100" || echo "least 1"), got $count" "$(problem_errors "$BODY")"
done
request "$BASE/api/emoji?count=99999999999999999999"
check_eq "count=99999999999999999999: 400, an integer (JSON Schema bounds none) past the maximum" \
    "400 query count: must be at most 100, got 1e+20" "$STATUS $(problem_errors "$BODY")"
for count in abc '' 3.5; do
    request "$BASE/api/emoji?count=$count"
    check_eq "count='$count': 400, the error says an integer is needed" \
        "400 query count: must be an integer, got a string (\"$count\")" "$STATUS $(problem_errors "$BODY")"
done
request "$BASE/api/emoji?count"
check_eq "bare ?count (no '='): 400, not the runtime's 500" "400 query count: must be an integer, got a string (\"\")" "$STATUS $(problem_errors "$BODY")"
request -H 'Accept: text/plain' "$BASE/api/emoji?count=0"
check_eq "a client that asks for text: one line" "400 Bad Request: query parameter count: must be at least 1, got 0" "$STATUS $(cat "$BODY")"

echo "The server still answers after the bad requests"
request "$BASE/api/emoji?count=2"
check_eq "status is 200" 200 "$STATUS"
check_eq "body is exactly 2 cat emoji" 2 "$(count_cats "$(cat "$BODY")")"
