#!/usr/bin/env bash
# docs.sh: the OpenAPI document served next to the API (GET /api/openapi.yaml, the bundled file
# byte for byte, revalidated with ETag and 304) and the docs page (GET /api/docs) in headless
# Chromium: it lists the operations, and its "Try it" gets cats.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
request "$BASE/api/openapi.yaml"
check_eq "GET /api/openapi.yaml: 200" 200 "$STATUS"
check "... the bundled document, byte for byte" cmp "$BODY" "$DEMO_DIR/Sources/CatService/openapi.yaml"
check_eq "... as application/yaml" application/yaml "$(header Content-Type)"
check_eq "... to revalidate each time" no-cache "$(header Cache-Control)"
etag=$(header ETag)
check_match "... with an ETag" '^"[^"]+"$' "$etag"
request -H "If-None-Match: $etag" "$BASE/api/openapi.yaml"
check_eq "If-None-Match with it: 304" 304 "$STATUS"
check_eq "... and no body" 0 "$(stat -c %s "$BODY")"
request --compressed "$BASE/api/openapi.yaml"
check_eq "compressed for a client that takes it (br)" br "$(header Content-Encoding)"
request "$BASE/api/openapi.json"
check_eq "no JSON form given: /api/openapi.json is 404" 404 "$STATUS"
request "$BASE/api/docs"
check_eq "GET /api/docs: 200 text/html" "200 text/html; charset=utf-8" "$STATUS $(header Content-Type)"
check_eq "... a page that needs nothing from elsewhere (no src= or href= to another host)" "" "$(grep -oE '(src|href)=["'"'"']?https?:' "$BODY" || true)"
echo "  (the page is $(stat -c %s "$BODY") bytes)"

report=$(timeout 60 python3 "$TESTS_DIR/browser/docs.py" "$BASE/api/docs" 2>&1 || echo "no report within 60 s")
echo "  (Chromium: $(shorten "$report"))"
field() { python3 -c 'import json,sys; r = json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {"r": r}))' "$1" "$2" 2>/dev/null || echo "no report"; }
check_eq "the page lists every operation, by operationId" "adoptCat countCats getClip getEmoji getEmojiStream" \
    "$(field "$report" '" ".join(sorted(r["operations"]))')"
check_eq "\"Try it\" on getEmoji with count 3: 200" 200 "$(field "$report" 'r["tried"]["status"]')"
check_eq "... three cats" 3 "$(count_cats "$(field "$report" 'r["tried"]["text"]')")"
check_contains "... shown on the page" "200" "$(field "$report" 'r["shown"]')"
