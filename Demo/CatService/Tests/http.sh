#!/usr/bin/env bash
# HTTP behaviour around the routes: HEAD, 404, 405, keep-alive, pipelining, HTTP/1.0, requests
# with ambiguous framing, garbage refused at once, OPTIONS *, fragments and percent-encoded paths.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server

echo "HEAD answers with GET's headers and no body"
for path in /api/emoji /api/clip; do
    request "$BASE$path"
    cp "$HEADERS" "$WORK/get-headers"
    request --head "$BASE$path"
    check_eq "HEAD $path: status is 200" 200 "$STATUS"
    # The cat is chosen anew for each request, and the ETag is made from the bytes: it is compared
    # only for the clip, whose bytes never change.
    drop='^$'
    if [[ $path == /api/emoji ]]; then drop='^etag:'; fi
    check_eq "HEAD $path: same headers as GET (Date aside)" \
        "$(normalized_headers "$WORK/get-headers" | grep -v "$drop")" "$(normalized_headers "$HEADERS" | grep -v "$drop")"
    # curl --head never reads a body, so ask on a raw connection whether one is sent.
    raw_request "HEAD $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >"$WORK/raw"
    check_match "HEAD $path (raw): status line is 200" '^HTTP/1\.1 200 ' "$(head -n1 "$WORK/raw")"
    check_eq "HEAD $path (raw): no body bytes after the header block" 0 "$(bytes_after_head "$WORK/raw")"
done
request --head "$BASE/api/clip"
check_eq "HEAD /api/clip: content-length is the file's size" "$(wc -c <"$CAT_MP4" | tr -d ' ')" "$(header content-length)"
check_eq "HEAD /api/clip: content-type is video/mp4" video/mp4 "$(header content-type)"

echo "Unknown paths get 404"
for path in /api/nope /nope /api /api/emoji/extra; do
    request "$BASE$path"
    check_eq "GET $path: status is 404" 404 "$STATUS"
done

echo "A known path with an unsupported method gets 405 and Allow"
request -X POST "$BASE/api/emoji"
check_eq "POST /api/emoji: status is 405" 405 "$STATUS"
check_eq "POST /api/emoji: Allow is 'GET, HEAD'" "GET, HEAD" "$(header allow)"
request -X DELETE "$BASE/api/clip"
check_eq "DELETE /api/clip: status is 405" 405 "$STATUS"

echo "Keep-alive: one curl, two URLs, one connection"
out=$("${CURL[@]}" -o /dev/null -o /dev/null --write-out '%{http_code} %{num_connects}\n' \
    "$BASE/api/emoji" "$BASE/api/emoji?count=2" 2>&1 || true)
check_eq "two 200s, the second reusing the first connection" $'200 1\n200 0' "$out"
reused=$("${CURL[@]}" -v -o /dev/null -o /dev/null "$BASE/api/emoji" "$BASE/api/clip" 2>&1 | grep -c 'Re-using existing connection' || true)
check_eq "curl -v says 'Re-using existing connection' once" 1 "$reused"

echo "Pipelining: two requests in one write are answered in order"
raw_request "GET /api/emoji?count=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >"$WORK/raw"
# (The emoji body has no trailing newline, so the second status line does not start a line.)
check_eq "statuses in order: 200 then 404" $'200\n404' "$(grep -a -o 'HTTP/1\.1 [0-9][0-9][0-9]' "$WORK/raw" | cut -d' ' -f2)"

echo "HTTP/1.0"
request --http1.0 "$BASE/api/emoji?count=2"
check_eq "status is 200" 200 "$STATUS"
check_eq "body is exactly 2 cat emoji" 2 "$(count_cats "$(cat "$BODY")")"
check_match "a Date header is present (IMF-fixdate)" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$' "$(header date)"
out=$("${CURL[@]}" --http1.0 -o /dev/null -o /dev/null --write-out '%{num_connects}\n' "$BASE/api/emoji" "$BASE/api/emoji" 2>&1 || true)
check_eq "without keep-alive, each HTTP/1.0 request gets its own connection" $'1\n1' "$out"

echo "Ambiguous framing is rejected with 400 and the connection closed"
raw_request "POST /api/emoji HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab" >"$WORK/raw"
check_match "two different Content-Length values: 400" '^HTTP/1\.1 400 ' "$(head -n1 "$WORK/raw")"
raw_request "POST /api/emoji HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" >"$WORK/raw"
check_match "both Content-Length and Transfer-Encoding: 400" '^HTTP/1\.1 400 ' "$(head -n1 "$WORK/raw")"
raw_request "GET /api/emoji HTTP/1.1\r\n\r\n" >"$WORK/raw"
check_match "HTTP/1.1 without Host: 400" '^HTTP/1\.1 400 ' "$(head -n1 "$WORK/raw")"

echo "The server still answers afterwards"
request "$BASE/api/emoji"
check_eq "GET /api/emoji: status is 200" 200 "$STATUS"

echo "A TLS ClientHello on the cleartext port is refused at its first byte, not after the header timeout"
started=$SECONDS
raw_request '\x16\x03\x01\x00\x7f\x01\x00\x00' >"$WORK/raw"
check_match "TLS bytes on the cleartext port: 400" '^HTTP/1\.1 400 ' "$(head -n1 "$WORK/raw")"
check "… answered at once (well within the 30 s header timeout)" test $((SECONDS - started)) -lt 3

echo "OPTIONS *, fragments, and percent-encoded paths"
request -X OPTIONS --request-target '*' "$BASE"
check_eq "OPTIONS * (RFC 9110 §9.3.7): 204" 204 "$STATUS"
check_eq "OPTIONS *: Allow lists what the service takes" "GET, HEAD, OPTIONS, POST" "$(header allow)"
raw_request "GET /api/emoji#top HTTP/1.1\r\nHost: x\r\n\r\n" >"$WORK/raw"
check_match "a fragment in the request target: 400" '^HTTP/1\.1 400 ' "$(head -n1 "$WORK/raw")"
check_contains "… saying why" "fragment" "$(cat "$WORK/raw")"
request "$BASE/api/%65moji?count=2"
check_eq "/api/%65moji is /api/emoji (RFC 3986 §6.2.2.2): 200" 200 "$STATUS"
check_eq "/api/%65moji: two cats" 2 "$(count_cats "$(cat "$BODY")")"
request "$BASE/api%2Femoji"
check_eq "an encoded slash stays data: /api%2Femoji is 404" 404 "$STATUS"
