#!/usr/bin/env bash
# queries.sh: odd query strings are a client's input, never a 500 (issue 38). Each of ~40 shapes
# (an item without `=`, repeated keys, empty items, `%` junk, `+`, `=` alone, a long query, UTF-8
# raw and percent-encoded, brackets, CR LF encoded) is sent to every operation of the document,
# over HTTP/1.1 and h2c, with request validation on and off: no 5xx, no error line, and (run-all.sh's
# contract check) no contract violation. A query is read as browsers read it: `?debug` is `debug`
# with an empty value, `?a&count=2` is two cats. And `count=%2B5` (+5) is no integer where the
# document is enforced (a 400 naming count); without it the generated code's Int(_:) reads 5.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUERIES=(
    'debug' 'a&count=1' 'count=1&count' '&&' '&' 'count' 'count&count=2' '=' '==' '=1' 'count==2' '%' '%zz' 'count=%'
    'count=%zz' '%ff=1' 'count=%ff' 'count=%00' '+' 'count=+' 'count=+5' 'count=-1' 'count=1+1' 'count=1e2'
    'count=99999999999999999999' 'count[]=1' 'count[a]=1' 'count=1,2' 'count=1;count=2' 'a=b=c&&&d' '&count=2&&'
    "$(printf 'a&%.0s' {1..400})" "$(printf 'count=1&%.0s' {1..200})" 'count=%F0%9F%90%B1' 'count=😺' '😺' 'interval_ms'
    'interval_ms=&count=' 'name' 'x=%0d%0apeer%3D1' '%E2%80%A8=1' 'count=%2B5'
)
# Each operation of the demo's document: method, path, and curl's arguments for a body.
OPERATIONS=(
    "getEmoji|GET|/api/emoji|"
    "getClip|GET|/api/clip|--range 0-99"
    "getEmojiStream|GET|/api/emoji/stream|--max-time 3"
    "countCats|POST|/api/census|-H Content-Type:text/plain --data-binary cat"
    "adoptCat|POST|/api/adopt|-H Content-Type:application/json --data-binary {\"name\":\"Tom\"}"
    "getShelterReport|GET|/api/report|"
)

for mode in validation no-validation; do
    if [[ $mode == validation ]]; then start_server --access-log; else start_server --access-log --no-validation; fi
    for http in --http1.1 --http2-prior-knowledge; do
        echo "every operation, ${#QUERIES[@]} odd queries, $http, $mode"
        fivexx=() sent=0
        for operation in "${OPERATIONS[@]}"; do
            IFS='|' read -r id method path extra <<<"$operation"
            # shellcheck disable=SC2206 # the extra arguments are words
            args=($extra)
            for query in "${QUERIES[@]}"; do
                # The stream answers its events after the query's own count (at most 100, 1 s
                # apart by default): interval_ms=0 comes last, so it counts only where the
                # query has none; --max-time bounds the rest.
                suffix=""
                if [[ $id == getEmojiStream ]]; then suffix="&interval_ms=0"; fi
                request --globoff "$http" -X "$method" "${args[@]}" "$BASE$path?$query$suffix"
                sent=$((sent + 1))
                # 000: no answer. Over HTTP/1.1 that is a failure too; over h2c nghttp2 may reset
                # the stream of a malformed request (raw UTF-8 in :path) with a body in flight.
                if [[ $STATUS == 5* || ($STATUS == 000 && $id != getEmojiStream && $http == --http1.1) ]]; then
                    fivexx+=("$id ?${query:0:40}: $STATUS")
                fi
            done
        done
        check_eq "$sent requests: no 5xx (nor a dropped connection)" "" "${fivexx[*]:-}"
        request "$http" "$BASE/api/emoji?debug"
        check_eq "?debug: 200, one cat (debug is a name with an empty value)" "200 1" "$STATUS $(count_cats "$(cat "$BODY")")"
        request "$http" "$BASE/api/emoji?a&count=2"
        check_eq "?a&count=2: two cats" "200 2" "$STATUS $(count_cats "$(cat "$BODY")")"
        request "$http" "$BASE/api/emoji?count=3&count"
        if [[ $mode == validation ]]; then
            check_eq "?count=3&count: 400, count given twice (readers differ on which counts)" \
                "400 query count: must be given once, got 2 values" "$STATUS $(problem_errors "$BODY")"
        else
            check_eq "?count=3&count: three cats (the runtime takes the first)" "200 3" "$STATUS $(count_cats "$(cat "$BODY")")"
        fi
        request "$http" "$BASE/api/emoji?&&"
        check_eq "?&&: one cat" "200 1" "$STATUS $(count_cats "$(cat "$BODY")")"
        request "$http" "$BASE/api/emoji/stream?debug&count=2&interval_ms=0"
        check_eq "the stream: ?debug&count=2&interval_ms=0 is two events" "200 2" "$STATUS $(grep -c '^data: ' "$BODY")"
        # A browser's form sends "+5" typed into it as %2B5 (a + in a query is a space).
        request "$http" "$BASE/api/emoji?count=%2B5"
        if [[ $mode == validation ]]; then
            check_eq "?count=%2B5 (+5) is no integer: 400 naming count" "400 query count: must be an integer, got a string (\"+5\")" "$STATUS $(problem_errors "$BODY")"
        else
            # Documented (EnforcingTheDocument.md): without the document the generated code's Int(_:) reads +5.
            check_eq "?count=%2B5 without the document: the generated code reads 5" "200 5" "$STATUS $(count_cats "$(cat "$BODY")")"
        fi
        request "$http" "$BASE/api/emoji?count=+5"
        check_eq "?count=+5 is count \" 5\": 400" 400 "$STATUS"
    done
    check_eq "no error line, no malformedKeyValuePair ($mode)" "" "$(grep -E '^[^ ]+ error |malformedKeyValuePair|request failed' "$SERVER_ERR" | head -3 || true)"
    check "the server is alive after" is_running "$SERVER_PID"
    stop_server
    check_eq "... and exits 0 on SIGTERM" 0 "$EXIT_CODE"
done
