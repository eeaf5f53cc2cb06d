#!/usr/bin/env bash
# docs.sh: the OpenAPI document served next to the API (GET /api/openapi.yaml, the bundled file
# byte for byte, revalidated with ETag and 304; /api/openapi.json, the same read by the server, which
# the page reads) and the docs page (GET /api/docs) in headless
# Chromium: it lists the operations with what they enforce (parameters' bounds, body schemas,
# responses by status, descriptions as Markdown), and its "Try it" gets cats, under a strict
# Content-Security-Policy (its inline style and script by hash; no CSP violation in Chromium's log)
# and X-Frame-Options: DENY. Then the page renders
# browser/docs-fixture.json, a hostile document: its markup and javascript: links stay text; and
# what the demo's document does not have: 3.0 and 3.1 bounds, enum, pattern, array parameters,
# recursive and looping $refs, additionalProperties: false, deprecation, security. The Authorize
# area: getShelterReport's "Try it" with no token (401), the reporter's (200) and the visitor's
# (403) typed in, kept in the page's memory only (no storage, cookie or URL holds one, a reload
# clears it, no log line either); for the fixture, what "Try it" sends for each kind of scheme.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPORTER=rt-3c9e1a7f VISITOR=vt-8d2b6f0a
start_server --log-level debug --access-log --report-token "$REPORTER" --visitor-token "$VISITOR"
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
check_eq "compressed for a client that takes it (zstd, the first of the codings curl offers at the same weight)" zstd "$(header Content-Encoding)"
request "$BASE/api/openapi.json"
check_eq "no JSON form given: /api/openapi.json is the YAML read by the server, for the page (200 application/json)" \
    "200 application/json" "$STATUS $(header Content-Type)"
check_eq "... the same document as PyYAML reads it" True "$(python3 -c '
import json, sys, yaml
print(json.load(open(sys.argv[1])) == yaml.safe_load(open(sys.argv[2])))' "$BODY" "$DEMO_DIR/Sources/CatService/openapi.yaml" 2>&1)"
request "$BASE/api/docs"
check_eq "GET /api/docs: 200 text/html" "200 text/html; charset=utf-8" "$STATUS $(header Content-Type)"
check_eq "... a page that needs nothing from elsewhere (no src= or href= to another host)" "" "$(grep -oE '(src|href)=["'"'"']?https?:' "$BODY" || true)"
echo "  (the page is $(stat -c %s "$BODY") bytes)"
policy=$(header Content-Security-Policy || true)
check_match "... with a strict Content-Security-Policy: its inline style and script by hash, nothing else" \
    "^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]{44}'; style-src 'sha256-[A-Za-z0-9+/=]{44}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$" "$policy"
check_eq "... no other site may frame it (X-Frame-Options)" DENY "$(header X-Frame-Options)"
check_eq "... script-src is the SHA-256 of the page's one script, as sent" "$(python3 -c '
import base64, hashlib, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for name in ("script", "style"):
    (text,) = re.findall("<%s>(.*?)</%s>" % (name, name), page, re.S)
    print(name, base64.b64encode(hashlib.sha256(text.encode()).digest()).decode())' "$BODY" | paste -sd ' ')" \
    "$(sed -E "s/.*script-src 'sha256-([^']*)'; style-src 'sha256-([^']*)'.*/script \1 style \2/" <<<"$policy")"
timeout 60 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --window-size=1200,900 \
    --virtual-time-budget=5000 --screenshot="$WORK/docs.png" "$BASE/api/docs" >/dev/null 2>"$WORK/chromium.err" || true
check_eq "Chromium reports no Content-Security-Policy violation on the page" "" \
    "$(grep -iE 'content security policy|refused to (execute|apply|load|connect)' "$WORK/chromium.err" | head -3 || true)"

report=$(timeout 60 python3 "$TESTS_DIR/browser/docs.py" "$BASE/api/docs" "$REPORTER" "$VISITOR" 2>&1 || echo "no report within 60 s")
echo "  (Chromium: $(shorten "$report"))"
field() { python3 -c 'import json,sys; print(eval(sys.argv[2], {"r": json.loads(sys.argv[1]), "json": json}))' "$1" "$2" 2>/dev/null || echo "no report"; }
check_eq "the page lists every operation, by operationId" "adoptCat countCats getClip getEmoji getEmojiStream getShelterReport" \
    "$(field "$report" '" ".join(sorted(r["operations"]))')"
check_eq "\"Try it\" on getEmoji with count 3: 200" 200 "$(field "$report" 'r["tried"]["status"]')"
check_eq "... three cats" 3 "$(count_cats "$(field "$report" 'r["tried"]["text"]')")"
check_contains "... shown on the page" "200" "$(field "$report" 'r["shown"]')"

# Authorize: the report's bearer token, typed into the page.
check_eq "the Authorize area has a password input for shelterToken" password "$(field "$report" 'r["security"]["input"]')"
check_eq "\"Try it\" on getShelterReport with no token: 401, shown" "401 401" \
    "$(field "$report" '" ".join([str(r["security"]["none"]["status"]), r["security"]["none"]["shown"][:3]])')"
check_eq "... with the reporter's token typed in: 200, the report" "200 adoptions 0" \
    "$(field "$report" '" ".join([str((t := r["security"]["reporter"])["status"]), *[k + " " + str(v) for k, v in json.loads(t["text"]).items()]])')"
check_contains "... shown on the page" '"adoptions"' "$(field "$report" 'r["security"]["reporter"]["shown"]')"
check_eq "... with the visitor's: 403" 403 "$(field "$report" 'r["security"]["visitor"]["status"]')"
check_eq "no token in localStorage, sessionStorage, document.cookie, the page's URL or its history state" "[]" \
    "$(field "$report" 'r["security"]["stored"]')"
check_eq "after a reload the token is gone: an empty input, and 401" " 401" \
    "$(field "$report" 'r["reloaded"]["value"] + " " + str(r["reloaded"]["status"])')"
check_eq "neither token in the server's log (debug level, with the access log)" 0 \
    "$(cat "$SERVER_OUT" "$SERVER_ERR" | grep -c -e "$REPORTER" -e "$VISITOR" || true)"

# What the page shows of the demo's document.
check_eq "getEmoji's count: in query, an integer, minimum 1, maximum 100" "in query; integer; minimum 1, maximum 100" \
    "$(field "$report" '"; ".join([(p := r["demo"]["getEmoji"]["parameters"]["count"])["where"], p["type"], ", ".join(p["constraints"])])')"
check_eq "getEmojiStream's interval_ms: minimum 0, maximum 5000" "integer; minimum 0, maximum 5000" \
    "$(field "$report" '"; ".join([(p := r["demo"]["getEmojiStream"]["parameters"]["interval_ms"])["type"], ", ".join(p["constraints"])])')"
check_eq "adoptCat's request body: the Adoption schema, its name required and a string" "application/json: Adoption object; name required string" \
    "$(field "$report" '"; ".join(t + ": " + s["name"] + " " + s["type"] for t, s in r["demo"]["adoptCat"]["body"].items()) + "; " + " ".join(["name"] + ["required"] * (p := r["demo"]["adoptCat"]["body"]["application/json"]["properties"]["name"])["required"] + [p["type"]])')"
check_eq "countCats' responses by status, with their content types (413 and 415 from #/components/responses/Problem, 503 from DeadlinePassed)" \
    "200 application/json; 400 application/problem+json text/plain; 413 application/problem+json text/plain; 415 application/problem+json text/plain; 503 application/problem+json text/plain" \
    "$(field "$report" '"; ".join(" ".join([status, *response["content"]]) for status, response in r["demo"]["countCats"]["responses"].items())')"
check_eq "... 200's Census schema: cats and bytes required, integer, format int64" "Census: cats required integer format int64, bytes required integer format int64" \
    "$(field "$report" '(s := r["demo"]["countCats"]["responses"]["200"]["content"]["application/json"])["name"] + ": " + ", ".join(" ".join([n] + ["required"] * p["required"] + [p["type"], *p["constraints"]]) for n, p in s["properties"].items())')"
check_eq "getEmoji's 200: Returns \`count\` ... as a code element" "count" \
    "$(field "$report" '" ".join(r["demo"]["getEmoji"]["responses"]["200"]["code"])')"
check_eq "no text on the page holds a backtick (the Markdown is rendered)" 0 "$(field "$report" 'r["backticks"]')"

# The fixture: hostile text stays text.
check_eq "fixture: its markup (<img onerror>, <script>, <b>) made no element" 0 "$(field "$report" 'r["fixture"]["markup"]')"
check_eq "... and ran nothing (window.pwned unset)" None "$(field "$report" 'r["fixture"]["pwned"]')"
check_contains "... it is shown as text" "<img src=x onerror=\"window.pwned='img'\">" "$(field "$report" 'r["fixture"]["description"]')"
check_eq "... the only links: https and relative" "ok https://example.com/a; rel $BASE/api/docs" \
    "$(field "$report" '"; ".join(" ".join(link) for link in r["fixture"]["links"])')"
check_contains "... javascript:, JAVASCRIPT: and data: links shown as written" "[x](javascript:window.pwned='link') [up](JAVASCRIPT:window.pwned='up') [data](data:text/html,hi)" \
    "$(field "$report" 'r["fixture"]["description"]')"
check_contains "... in a response's description too" "[click](javascript:window.pwned='response')" \
    "$(field "$report" 'r["fixture"]["operations"]["hostile"]["responses"]["default"]["description"]')"
check_eq "... **strong**, *em* and _em_, \`code\`; two paragraphs" "strong | em, also em | <b>code</b> | 2" \
    "$(field "$report" '" | ".join([", ".join(r["fixture"][k]) for k in ("strong", "em", "code")] + [str(r["fixture"]["paragraphs"])])')"
check_contains "... snake_case and 2*3*4 as written" "snake_case_words and 2*3*4" "$(field "$report" 'r["fixture"]["description"]')"

# The fixture: what the demo's document does not have.
check_eq "fixture: exclusiveMinimum: true (3.0) with minimum 0" "exclusiveMinimum 0, maximum 10" \
    "$(field "$report" '", ".join(r["fixture"]["operations"]["plantTree"]["parameters"]["size"]["constraints"])')"
check_eq "... exclusiveMinimum 0 and exclusiveMaximum 1 (3.1 numbers)" "exclusiveMinimum 0, exclusiveMaximum 1" \
    "$(field "$report" '", ".join(r["fixture"]["operations"]["plantTree"]["parameters"]["ratio"]["constraints"])')"
check_eq "... enum and default" 'one of "oak", "elm", default "oak"' \
    "$(field "$report" '", ".join(r["fixture"]["operations"]["plantTree"]["parameters"]["kind"]["constraints"])')"
check_eq "... an array parameter: maxItems, style, its items" "array, maxItems 3, style form; items: string, maxLength 8" \
    "$(field "$report" '", ".join([(p := r["fixture"]["operations"]["plantTree"]["parameters"]["tags"])["type"], *p["constraints"]]) + "; items: " + ", ".join([p["items"]["type"], *p["items"]["constraints"]])')"
check_eq "... a path-level parameter, required" "in path, required; string, format uuid" \
    "$(field "$report" '(p := r["fixture"]["operations"]["plantTree"]["parameters"]["id"])["where"] + "; " + ", ".join([p["type"], *p["constraints"]])')"
check_eq "... the body's Node: name required with lengths and pattern, no other properties" "Node; name required minLength 1, maxLength 20, pattern ^[a-z]+\$; closed True" \
    "$(field "$report" '(s := r["fixture"]["operations"]["plantTree"]["body"]["application/json"])["name"] + "; name " + "required " * s["properties"]["name"]["required"] + ", ".join(s["properties"]["name"]["constraints"]) + "; closed " + str(s["closed"])')"
check_eq "... Node inside Node (recursive \$ref): not expanded again" "array of Node (as above)" \
    "$(field "$report" '(p := r["fixture"]["operations"]["plantTree"]["body"]["application/json"]["properties"]["children"])["type"] + " of " + p["items"]["text"]')"
check_eq "... a \$ref to #/components/responses/Gone, resolved, and a schema \$ref to itself (Loop) ends" "Gone for good.; application/json Loop" \
    "$(field "$report" '(g := r["fixture"]["operations"]["plantTree"]["responses"]["410"])["description"] + "; " + " ".join(t + " " + s["name"] for t, s in g["content"].items())')"
check_eq "... deprecated marked (plantTree), not where it is not (hostile)" "True False" \
    "$(field "$report" '" ".join(str(r["fixture"]["operations"][o]["deprecated"]) for o in ("plantTree", "hostile"))')"
check_eq "... the operation's security" "Security: bearer (HTTP bearer) and key (API key in header X-Key) or none" \
    "$(field "$report" 'r["fixture"]["operations"]["plantTree"]["security"]')"
check_eq "... else the document's" "Security: key (API key in header X-Key)" "$(field "$report" 'r["fixture"]["operations"]["hostile"]["security"]')"

# The fixture's Authorize area: every scheme listed, an input for what the page can send.
check_eq "fixture: Authorize lists each scheme, with its inputs" \
    "key password; bearer password; digest -; cookie -; mtls -; oauth password; basic text password; query password" \
    "$(field "$report" '"; ".join(n + " " + (" ".join(s["inputs"]) or "-") for n, s in r["fixture"]["schemes"].items())')"
check_contains "... a cookie: the browser's own" "the browser sends its own cookie; the page sets none" "$(field "$report" 'r["fixture"]["schemes"]["cookie"]["text"]')"
check_contains "... mutualTLS: the browser's client certificate" "the browser’s client certificate is used" "$(field "$report" 'r["fixture"]["schemes"]["mtls"]["text"]')"
check_contains "... http digest: not sent" "the page cannot send this scheme" "$(field "$report" 'r["fixture"]["schemes"]["digest"]["text"]')"
check_contains "... a scheme's description as text" "<img src=x onerror=\"window.pwned='scheme'\"> scopes" "$(field "$report" 'r["fixture"]["schemes"]["oauth"]["text"]')"
check_eq "fixture: nothing typed in: \"Try it\" sends no credentials (same-origin: the browser's cookie)" "{} same-origin /api/locks" \
    "$(field "$report" '" ".join([json.dumps((t := r["fixture"]["sent"]["none"])["headers"]), t["credentials"], t["url"]])')"
check_eq "... the first alternative with a value for each scheme (digest and the cookie's passed over): oauth2's token as Bearer" \
    "Bearer oauth-token /api/locks" \
    "$(field "$report" '(t := r["fixture"]["sent"]["oauth"])["headers"].get("Authorization", "none") + " " + t["url"]')"
check_eq "... then basic (user:password in UTF-8, base64) and the query's API key" \
    "Basic $(printf '%s' 'cat:pä ss' | base64) /api/locks?api_key=k%261" \
    "$(field "$report" '(t := r["fixture"]["sent"]["basic"])["headers"].get("Authorization", "none") + " " + t["url"]')"
check_eq "... the key not shown on the page, asking or answered" "GET /api/locks … False" \
    "$(field "$report" '(t := r["fixture"]["sent"]["basic"])["asking"] + " " + str("k&1" in t["shown"] or "k%261" in t["shown"])')"
check_eq "... bearer without the key that goes with it: no credentials sent (the next alternative, {}, needs none)" "Content-Type" \
    "$(field "$report" '" ".join(r["fixture"]["sent"]["incomplete"]["headers"])')"
