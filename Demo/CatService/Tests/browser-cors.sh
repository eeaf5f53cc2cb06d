#!/usr/bin/env bash
# browser-cors.sh: a page on another origin calls the API from headless Chromium (installed by
# `make deps`), through the browser's own CORS checks: with a custom header, so the browser sends
# a preflight first. The page's origin is another cat-service on another port; the API allows it
# (--cors-origin) and not the same port named as localhost, a different origin to the browser.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
PAGE_PORT=$PORT
start_server --access-log --request-ids --cors-origin "http://127.0.0.1:$PAGE_PORT"
API=$BASE

# field REPORT NAME: one field of cross_origin.py's JSON report.
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null || echo "no report"; }

report=$(timeout 60 python3 "$TESTS_DIR/browser/cross_origin.py" "http://127.0.0.1:$PAGE_PORT/healthz" "$API/api/emoji?count=3" 2>&1 || echo "no report within 60 s")
echo "  (allowed origin: $report)"
check_eq "a page of an allowed origin reads the response: 200" 200 "$(field "$report" status)"
check_eq "... three cats" 3 "$(count_cats "$(field "$report" text)")"
check_eq "... and the exposed X-Request-ID" from-the-browser "$(field "$report" requestID)"
check_contains "the browser sent a preflight (OPTIONS is answered by the server, so only the GET is logged), then the GET" \
    "request_id=from-the-browser" "$(wait_for_line 'GET /api/emoji\?count=3 200' "$SERVER_ERR")"

report=$(timeout 60 python3 "$TESTS_DIR/browser/cross_origin.py" "http://localhost:$PAGE_PORT/healthz" "$API/api/emoji?count=4" 2>&1 || echo "no report within 60 s")
echo "  (origin not allowed: $report)"
check_contains "a page of another origin may not: the browser refuses the fetch" "TypeError" "$(field "$report" error)"
check_eq "... after the refused preflight, no GET reached a handler" "" "$(grep -F 'GET /api/emoji?count=4' "$SERVER_ERR" || true)"
