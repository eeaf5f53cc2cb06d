#!/usr/bin/env bash
# --metrics: GET /metrics in the Prometheus text format, with exact request counts by route and
# status after known requests; off by default (no /metrics route), CAT_SERVICE_METRICS both ways.
# (config.sh checks that --help documents CAT_SERVICE_METRICS and that a bad value is refused.)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

help=$("$CAT_SERVICE" --help 2>&1 || true)
check_contains "--help documents the flag" "--metrics/--no-metrics" "$help"

echo "Off by default: no /metrics"
start_server
request "$BASE/metrics"
check_eq "without --metrics: GET /metrics is 404" 404 "$STATUS"
request "$BASE/api/emoji"
check_eq "without --metrics: the API still answers" 200 "$STATUS"
stop_server
check_eq "without --metrics: exits 0" 0 "$EXIT_CODE"

CAT_SERVICE_METRICS=true start_server
request "$BASE/metrics"
check_eq "CAT_SERVICE_METRICS=true: GET /metrics is 200" 200 "$STATUS"
stop_server
CAT_SERVICE_METRICS=true start_server --no-metrics
request "$BASE/metrics"
check_eq "--no-metrics beats CAT_SERVICE_METRICS=true: 404" 404 "$STATUS"
stop_server

# swift-prometheus writes the OpenTelemetry names with '_' for '.'.
DURATION=http_server_request_duration
ACTIVE=http_server_active_requests
HTTP11='network_protocol_version="1.1",url_scheme="http"'
SCRAPES=0

# scrape_until LINE...: GET /metrics until its body has every LINE as a whole line, for at most
# 5 s (a request's duration is recorded just after its response is sent, so a scrape may come
# a moment before it). In each LINE, {SCRAPES} stands for the number of earlier scrapes.
# Leaves the last body in METRICS and its file in BODY; counts the scrapes in SCRAPES.
scrape_until() {
    local deadline=$((SECONDS + 5)) line missing
    while true; do
        missing=0
        request "$BASE/metrics"
        for line in "$@"; do
            if ! grep -qxF -- "${line//\{SCRAPES\}/$SCRAPES}" "$BODY"; then missing=1; fi
        done
        SCRAPES=$((SCRAPES + 1))
        METRICS=$(cat "$BODY")
        if ((!missing || SECONDS >= deadline)); then break; fi
        sleep 0.05
    done
}

# value SERIES: the value of the sample SERIES (name and labels, exactly) in METRICS, else "absent".
value() {
    awk -v series="$1" 'substr($0, 1, length(series) + 1) == series " " { print substr($0, length(series) + 2); found = 1 } END { if (!found) print "absent" }' <<<"$METRICS"
}

echo "--metrics: GET /metrics"
start_server --metrics
scrape_until
check_eq "GET /metrics is 200" 200 "$STATUS"
check_eq "content-type is the text format 0.0.4" "text/plain; version=0.0.4; charset=utf-8" "$(header content-type)"
check_eq "first scrape: no duration recorded yet, and the scrape itself is the one active request" \
    "absent 1.0" "$(value "${DURATION}_count{http_request_method=\"GET\",http_route=\"/metrics\",http_response_status_code=\"200\",$HTTP11}") $(value "$ACTIVE{http_request_method=\"GET\",url_scheme=\"http\"}")"

echo "Known requests: 3 x emoji 200, 1 x emoji 400, 1 x clip, 1 x 404, 1 x HEAD emoji"
for i in 1 2 3; do
    request "$BASE/api/emoji?count=2"
    check_eq "GET /api/emoji?count=2 ($i): 200" 200 "$STATUS"
done
request "$BASE/api/emoji?count=0"
check_eq "GET /api/emoji?count=0: 400" 400 "$STATUS"
request "$BASE/api/clip"
check_eq "GET /api/clip: 200" 200 "$STATUS"
request "$BASE/no/such/path"
check_eq "GET /no/such/path: 404" 404 "$STATUS"
request --head "$BASE/api/emoji"
check_eq "HEAD /api/emoji: 200" 200 "$STATUS"

emoji200="${DURATION}_count{http_request_method=\"GET\",http_route=\"/api/emoji\",http_response_status_code=\"200\",$HTTP11}"
emoji400="${DURATION}_count{http_request_method=\"GET\",http_route=\"/api/emoji\",http_response_status_code=\"400\",$HTTP11}"
clip200="${DURATION}_count{http_request_method=\"GET\",http_route=\"/api/clip\",http_response_status_code=\"200\",$HTTP11}"
notFound="${DURATION}_count{http_request_method=\"GET\",http_response_status_code=\"404\",$HTTP11}"
head200="${DURATION}_count{http_request_method=\"HEAD\",http_route=\"/api/emoji\",http_response_status_code=\"200\",$HTTP11}"
scrapes="${DURATION}_count{http_request_method=\"GET\",http_route=\"/metrics\",http_response_status_code=\"200\",$HTTP11}"
activeGET="$ACTIVE{http_request_method=\"GET\",url_scheme=\"http\"}"
activeHEAD="$ACTIVE{http_request_method=\"HEAD\",url_scheme=\"http\"}"
scrape_until "$emoji200 3" "$emoji400 1" "$clip200 1" "$notFound 1" "$head200 1" "$scrapes {SCRAPES}" "$activeGET 1.0" "$activeHEAD 0.0"
check_eq "content-type is the text format 0.0.4" "text/plain; version=0.0.4; charset=utf-8" "$(header content-type)"
check_eq "GET /api/emoji 200: count 3" 3 "$(value "$emoji200")"
check_eq "GET /api/emoji 400: count 1" 1 "$(value "$emoji400")"
check_eq "GET /api/clip 200: count 1" 1 "$(value "$clip200")"
check_eq "the 404 is counted without http_route: count 1" 1 "$(value "$notFound")"
check_eq "HEAD /api/emoji 200: count 1" 1 "$(value "$head200")"
check_eq "the earlier scrapes are counted under http_route=\"/metrics\"" "$((SCRAPES - 1))" "$(value "$scrapes")"
check_eq "active GET requests: 1.0, the scrape itself (every other one went back down)" 1.0 "$(value "$activeGET")"
check_eq "active HEAD requests: back at 0.0" 0.0 "$(value "$activeHEAD")"
check_eq "the emoji 200 histogram's +Inf bucket holds all 3" 3 \
    "$(value "${DURATION}_bucket{http_request_method=\"GET\",http_route=\"/api/emoji\",http_response_status_code=\"200\",$HTTP11,le=\"+Inf\"}")"
check_match "the emoji 200 histogram's sum is a number of seconds" '^[0-9]+\.[0-9]+(e-?[0-9]+)?$' \
    "$(value "${DURATION}_sum{http_request_method=\"GET\",http_route=\"/api/emoji\",http_response_status_code=\"200\",$HTTP11}")"
check_contains "the duration is a histogram" "# TYPE $DURATION histogram" "$METRICS"
check_contains "the active requests are a gauge" "# TYPE $ACTIVE gauge" "$METRICS"
check_eq "routes are templates: no raw path or query in a label" 0 "$(grep -cE 'count=|/no/such' <<<"$METRICS" || true)"
check_eq "every line is a comment or a well-formed sample" 0 \
    "$(grep -cvE '^(# (TYPE|HELP) .*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)*\})? [-+0-9.eInfNa]+)$' <<<"$METRICS" || true)"
request --head "$BASE/metrics"
check_eq "HEAD /metrics: 200, same content-type" "200 text/plain; version=0.0.4; charset=utf-8" "$STATUS $(header content-type)"
stop_server
check_eq "--metrics: exits 0 on SIGTERM" 0 "$EXIT_CODE"
