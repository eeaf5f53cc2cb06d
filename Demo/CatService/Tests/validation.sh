#!/usr/bin/env bash
# validation.sh: requests checked against the OpenAPI document before the handlers run (on by
# default; --no-validation turns it off), over HTTP/1.1 and HTTP/2: every violation in one
# problem+json 400 naming the parameter or the JSON pointer, 415 for a media type the operation
# does not take; the handlers see only what the document allows.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
for http in --http1.1 --http2-prior-knowledge; do
    echo "adoptCat's Adoption (name: 1 to 100 characters, not only spaces) over $http"
    adopt() { request "$http" -X POST -H 'Content-Type: application/json' --data-binary "$1" "$BASE/api/adopt"; }
    adopt '{"name": "Whiskers"}'
    check_eq "a good name: 201" 201 "$STATUS"
    adopt '{"name": ""}'
    check_eq "an empty name: 400 naming /name, with both of its violations" \
        "400 body /name: must be at least 1 character long, got 0|body /name: must match the pattern \\S" "$STATUS $(problem_errors "$BODY" | paste -sd '|')"
    adopt "{\"name\": \"$(printf 'a%.0s' {1..101})\"}"
    check_eq "101 characters: 400" "400 body /name: must be at most 100 characters long, got 101" "$STATUS $(problem_errors "$BODY")"
    adopt '{"name": "   "}'
    check_eq "only spaces: 400" '400 body /name: must match the pattern \S' "$STATUS $(problem_errors "$BODY")"
    adopt '{"name": 7}'
    check_eq "a number for a name: 400" "400 body /name: must be a string, got an integer (7)" "$STATUS $(problem_errors "$BODY")"
    adopt '{}'
    check_eq "no name: 400" "400 body /name: is required" "$STATUS $(problem_errors "$BODY")"
    adopt '{"name": "Tom",}'
    check_eq "not JSON: 400 saying where" "400 body : not valid JSON at byte 15: expected a member name" "$STATUS $(problem_errors "$BODY")"
    request "$http" -X POST -H 'Content-Type: text/plain' --data-binary 'Tom' "$BASE/api/adopt"
    check_eq "text/plain to adoptCat: 415 naming what it takes" \
        '415 a body of type text/plain is not one this operation takes (application/json)' \
        "$STATUS $(problem_detail "$BODY")"
    request "$http" -X POST -H 'Content-Type: application/json' "$BASE/api/census" --data-binary '{}'
    check_eq "JSON to countCats (text/plain): 415" 415 "$STATUS"
    request "$http" "$BASE/api/emoji/stream?count=0&interval_ms=9000"
    check_eq "two bad parameters: both in one answer" \
        "400 query count: must be at least 1, got 0|query interval_ms: must be at most 5000, got 9000" "$STATUS $(problem_errors "$BODY" | paste -sd '|')"
done
request -X POST -H 'Content-Type: text/plain' --data-binary "$(printf '😺%.0s' {1..1000})" "$BASE/api/census"
check_eq "a text census still streams to its handler (not read to be checked)" '200 {"bytes":4000,"cats":1000}' "$STATUS $(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True, separators=(",", ":")))' "$BODY")"
check_eq "one log line for each of the two refused empty names, naming the operation" 2 \
    "$(grep -c 'error="body /name: must be at least 1 character long.*operation=adoptCat status=400.*request refused' "$SERVER_ERR")"
stop_server

echo "--no-validation: the handlers get what the generated code decodes"
start_server --no-validation
request -X POST -H 'Content-Type: application/json' --data-binary '{"name": ""}' "$BASE/api/adopt"
check_eq "an empty name is adopted" 201 "$STATUS"
request "$BASE/api/emoji?count=0"
check_eq "count=0: still 400, from the handler's own guard" "400 query parameter count: must be between 1 and 100, got 0" \
    "$STATUS $(problem_detail "$BODY")"
