#!/usr/bin/env bash
# health.sh: /healthz and /readyz answered by cat-service itself (HTTP/1.1 and HTTP/2), on their own
# listener with --health-port, readiness 503 for --drain-delay while everything else still serves,
# and Forwarded / X-Forwarded-For believed only from --trusted-proxy (CAT_SERVICE_TRUSTED_PROXIES).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

echo "Health checks on the main listener (on by default)"
start_server --access-log --drain-delay 3
request "$BASE/healthz"
check_eq "GET /healthz is 200" 200 "$STATUS"
check_eq "it says ok" "ok" "$(cat "$BODY")"
check_eq "it is never cached" "no-store" "$(header Cache-Control)"
request "$BASE/readyz"
check_eq "GET /readyz is 200 while serving" "200 ready" "$STATUS $(cat "$BODY")"
request --http2-prior-knowledge "$BASE/readyz"
check_eq "GET /readyz over h2c is 200" 200 "$STATUS"
request -X POST "$BASE/healthz"
check_eq "POST /healthz is 405" 405 "$STATUS"
check_eq "Allow: GET, HEAD" "GET, HEAD" "$(header Allow)"
check_contains "health checks are in the access log, as every response" "status=405" "$(wait_for_line 'POST /healthz 405' "$SERVER_ERR")"

echo "SIGTERM: readiness 503 for --drain-delay, everything else still served"
kill -TERM "$SERVER_PID"
code=200
deadline=$((SECONDS + 5))
while [[ $code == 200 ]] && ((SECONDS < deadline)); do
    code=$("${CURL[@]}" -o /dev/null -w '%{http_code}' "$BASE/readyz") || code=000
done
check_eq "/readyz turns 503 at once" 503 "$code"
request "$BASE/api/emoji?count=2"
check_eq "GET /api/emoji still 200 during the drain delay" 200 "$STATUS"
request "$BASE/healthz"
check_eq "/healthz still 200 (alive, draining)" 200 "$STATUS"
wait_exit "$SERVER_PID" 20
check_eq "then it exits 0" 0 "$EXIT_CODE"
request "$BASE/readyz"
check_eq "and nothing listens" 000 "$STATUS"

echo "--health-port: a listener of their own"
# Its 404 for /api/emoji is the listener's, not getEmoji's: no contract to check there.
CAT_SERVICE_CONTRACT_CHECK=false start_server --health-port 0
health=$(grep -m1 'health checks on http://' "$SERVER_OUT" || true)
check_match "it prints the health listener's address" '^cat-service health checks on http://127\.0\.0\.1:[0-9]+$' "$health"
HEALTH_BASE=${health#cat-service health checks on }
request "$HEALTH_BASE/healthz"
check_eq "GET /healthz there is 200" 200 "$STATUS"
request "$HEALTH_BASE/api/emoji"
check_eq "nothing else is served there (404)" 404 "$STATUS"
request "$BASE/healthz"
check_eq "and /healthz is not on the main listener" 404 "$STATUS"
stop_server

echo "--no-health-checks"
start_server --no-health-checks
request "$BASE/healthz"
check_eq "/healthz is 404 with the health checks off" 404 "$STATUS"
stop_server

echo "X-Forwarded-For and Forwarded only from trusted proxies"
CAT_SERVICE_TRUSTED_PROXIES=127.0.0.1 start_server --access-log
request -H 'X-Forwarded-For: 198.51.100.1, 203.0.113.9' "$BASE/api/emoji?count=7"
check_match "trusted (CAT_SERVICE_TRUSTED_PROXIES): the rightmost untrusted address is the client" \
    'client=203\.0\.113\.9 ' "$(wait_for_line 'GET /api/emoji\?count=7 ' "$SERVER_ERR")"
request -H 'Forwarded: for="[2001:db8::5]:4711";proto=https' "$BASE/api/emoji?count=8"
check_match "Forwarded from a proxy that sets X-Forwarded-For (the default) is not read" 'client=127\.0\.0\.1:[0-9]+ ' \
    "$(wait_for_line 'GET /api/emoji\?count=8 ' "$SERVER_ERR")"
stop_server
start_server --access-log --trusted-proxy '127.0.0.1=Forwarded'
request -H 'Forwarded: for="[2001:db8::5]:4711";proto=https' -H 'X-Forwarded-For: 203.0.113.9' "$BASE/api/emoji?count=8"
check_match "a proxy that sets Forwarded (--trusted-proxy 127.0.0.1=Forwarded): RFC 7239, with the client's port; its X-Forwarded-For not read" \
    'client=\[2001:db8::5\]:4711 ' "$(wait_for_line 'GET /api/emoji\?count=8 ' "$SERVER_ERR")"
stop_server
start_server --access-log --trusted-proxy 127.0.0.1 --no-forwarded-fields
request -H 'X-Forwarded-For: 203.0.113.9' "$BASE/api/emoji?count=9"
check_match "--no-forwarded-fields: the header is not read" 'client=127\.0\.0\.1:[0-9]+ ' "$(wait_for_line 'GET /api/emoji\?count=9 ' "$SERVER_ERR")"
stop_server
start_server --access-log
request -H 'X-Forwarded-For: 203.0.113.9' "$BASE/api/emoji?count=10"
check_match "nobody is trusted by default" 'client=127\.0\.0\.1:[0-9]+ ' "$(wait_for_line 'GET /api/emoji\?count=10 ' "$SERVER_ERR")"
