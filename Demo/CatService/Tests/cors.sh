#!/usr/bin/env bash
# cors.sh: CORS for /api with --cors-origin: preflights answered by cat-service over HTTP/1.1 and
# HTTP/2 (allowed: 204 with the allowance; refused: 403 or 404 saying why), actual responses
# readable by allowed origins only, and settings that cannot work refused at start.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

preflight() {
    request -X OPTIONS -H "Origin: $1" -H "Access-Control-Request-Method: $2" ${3:+-H "Access-Control-Request-Headers: $3"} "${@:4}" "$BASE$PREFLIGHT_PATH"
}

echo "Without --cors-origin, a browser's preflight is just an OPTIONS"
start_server
PREFLIGHT_PATH=/api/emoji preflight https://cats.example GET
check_eq "OPTIONS /api/emoji is 405 (no CORS configured)" 405 "$STATUS"
stop_server

echo "--cors-origin https://cats.example --cors-origin 'https://*.cats.example'"
start_server --cors-origin https://cats.example --cors-origin 'https://*.cats.example'
PREFLIGHT_PATH=/api/emoji
preflight https://cats.example GET content-type
check_eq "preflight from an allowed origin: 204" 204 "$STATUS"
check_eq "Access-Control-Allow-Origin names it" https://cats.example "$(header Access-Control-Allow-Origin)"
check_eq "Access-Control-Allow-Methods: the path's own" "GET, HEAD" "$(header Access-Control-Allow-Methods)"
check_contains "Access-Control-Allow-Headers has Content-Type" Content-Type "$(header Access-Control-Allow-Headers)"
check_eq "Access-Control-Max-Age: 600" 600 "$(header Access-Control-Max-Age)"
check_contains "Vary: Origin" Origin "$(header Vary)"
preflight https://app.cats.example GET "" --http2-prior-knowledge
check_eq "over h2c, a subdomain by the pattern: 204" "204 https://app.cats.example" "$STATUS $(header Access-Control-Allow-Origin)"
PREFLIGHT_PATH=/api/emoji/stream preflight https://cats.example GET
check_eq "every /api path is covered (/api/emoji/stream): 204" 204 "$STATUS"

preflight https://evil.example GET
check_eq "an origin not allowed: 403" 403 "$STATUS"
check_contains "... saying so" "origin https://evil.example is not allowed for /api/emoji" "$(cat "$BODY")"
check_eq "... without Access-Control-Allow-Origin" "" "$(header Access-Control-Allow-Origin)"
check_contains "... and logged with the reason" "reason=\"CORS preflight: origin https://evil.example is not allowed for /api/emoji\"" \
    "$(wait_for_line 'rejected request' "$SERVER_ERR")"
preflight https://cats.example DELETE
check_eq "a method the path does not have: 403" 403 "$STATUS"
check_contains "... naming the allowed ones" "method DELETE is not allowed for /api/emoji; allowed: GET, HEAD" "$(cat "$BODY")"
preflight https://cats.example GET x-secret
check_eq "a request header not allowed: 403" 403 "$STATUS"
PREFLIGHT_PATH=/api/nothing preflight https://cats.example GET
check_eq "a path with no route: 404" 404 "$STATUS"

request -H "Origin: https://cats.example" "$BASE/api/emoji?count=2"
check_eq "GET from an allowed origin: 200, readable by its page" "200 https://cats.example" "$STATUS $(header Access-Control-Allow-Origin)"
check_eq "Access-Control-Expose-Headers: X-Request-ID" X-Request-ID "$(header Access-Control-Expose-Headers)"
check_contains "Vary: Origin (besides Accept-Encoding)" Origin "$(header Vary)"
request -H "Origin: https://evil.example" "$BASE/api/emoji?count=2"
check_eq "GET from another origin: served, but not readable by its page" "200 " "$STATUS $(header Access-Control-Allow-Origin)"
request "$BASE/healthz"
check_eq "outside /api nothing changes" "200 " "$STATUS $(header Vary)"
stop_server

echo "--cors-origin '*', and with credentials"
start_server --cors-origin '*'
PREFLIGHT_PATH=/api/clip preflight https://anywhere.example GET
check_eq "any origin: Access-Control-Allow-Origin: *" "204 *" "$STATUS $(header Access-Control-Allow-Origin)"
stop_server
start_server --cors-origin https://cats.example --cors-credentials
request -H "Origin: https://cats.example" "$BASE/api/emoji"
check_eq "--cors-credentials: Access-Control-Allow-Credentials: true" true "$(header Access-Control-Allow-Credentials)"
stop_server

bad_setting "--cors-origin '*' with --cors-credentials is refused" "--cors-origin: allowed origin * cannot go with allowsCredentials" X=1 -- --cors-origin '*' --cors-credentials
bad_setting "--cors-origin without a scheme is refused" '--cors-origin: allowed origin "cats.example" is not scheme://host[:port]' X=1 -- --cors-origin cats.example
bad_setting "--cors-credentials alone is refused" "--cors-credentials (or CAT_SERVICE_CORS_CREDENTIALS) needs --cors-origin" X=1 -- --cors-credentials
