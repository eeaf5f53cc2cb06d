#!/usr/bin/env bash
# nginx.sh: two cat-service instances behind a real nginx (Debian's, from `make deps`): HTTP/2 and
# TLS to the client, HTTP/1.1 keep-alive upstreams. Cats, the clip and a range of it through it;
# the access log's client from X-Forwarded-For only where nginx is trusted; then a rolling restart
# of both instances under a bounded h2load load with no failed request, readiness 503 seen first.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS=$(cd "$DEMO_DIR/../../Tests/Certificates" && pwd)
if ! command -v nginx >/dev/null || ! command -v h2load >/dev/null; then
    fail "nginx and h2load are installed (make deps)"
    exit 1
fi

# A: trusts nginx (127.0.0.1); B: trusts nobody. Both keep serving for 1.5 s after SIGTERM while
# /readyz says 503.
start_server --access-log --trusted-proxy 127.0.0.1 --drain-delay 1.5
A_PORT=$PORT A_PID=$SERVER_PID A_ERR=$SERVER_ERR
start_server --access-log --drain-delay 1.5
B_PORT=$PORT B_PID=$SERVER_PID B_ERR=$SERVER_ERR

NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx"
# Demo/proxies/nginx.conf, the one Sources/Whisker/Whisker.docc/Proxies.md shows, with this run's paths and ports.
sed -e "s|@WORK@|$WORK/nginx|g" -e "s|@CERTS@|$CERTS|g" -e "s|@A_PORT@|$A_PORT|g" -e "s|@B_PORT@|$B_PORT|g" \
    -e "s|@PORT@|$NGINX_PORT|g" -e "s|@USER@|$( ((EUID == 0)) && echo "user root;")|" \
    "$DEMO_DIR/../proxies/nginx.conf" >"$WORK/nginx/nginx.conf"
start_nginx || exit 1

# The client is 127.0.0.3 (curl binds it), nginx connects from 127.0.0.1.
VIA=(--cacert "$CERTS/ca.pem" --resolve "localhost:$NGINX_PORT:127.0.0.1" --interface 127.0.0.3)
NGINX="https://localhost:$NGINX_PORT"

echo "Through nginx: HTTP/2 over TLS to the client"
version=$("${CURL[@]}" "${VIA[@]}" --http2 -o "$WORK/cats" -w '%{http_code} %{http_version}' "$NGINX/api/emoji?count=5")
check_eq "GET /api/emoji?count=5 through nginx is 200 over HTTP/2" "200 2" "$version"
check_eq "five cats" 5 "$(count_cats "$(cat "$WORK/cats")")"
request "${VIA[@]}" "$NGINX/api/clip"
check_eq "GET /api/clip through nginx is 200" 200 "$STATUS"
check "the clip arrives whole, byte for byte" cmp "$BODY" "$CAT_MP4"
request "${VIA[@]}" -r 1000-1999 "$NGINX/api/clip"
check_eq "a range of the clip through nginx is 206" 206 "$STATUS"
check_eq "Content-Range names it" "bytes 1000-1999/$(stat -c %s "$CAT_MP4")" "$(header Content-Range)"
check "its bytes are the clip's" cmp "$BODY" <(tail -c +1001 "$CAT_MP4" | head -c 1000)

echo "The access logs: X-Forwarded-For believed from a trusted proxy only"
for _ in 1 2 3 4 5 6; do "${CURL[@]}" "${VIA[@]}" -o /dev/null "$NGINX/api/emoji?count=2"; done
a_lines=$(grep -F 'GET /api/emoji?count=2 ' "$A_ERR" || true)
b_lines=$(grep -F 'GET /api/emoji?count=2 ' "$B_ERR" || true)
check_match "instance A (trusts nginx) logs the client from X-Forwarded-For" 'client=127\.0\.0\.3 .*peer=127\.0\.0\.1:' "$a_lines"
check_eq "instance A never logs nginx as the client" "" "$(grep -F 'client=127.0.0.1' <<<"$a_lines" || true)"
check_match "instance B (trusts nobody) logs nginx's address as the client" 'client=127\.0\.0\.1:[0-9]+ ' "$b_lines"
check_eq "instance B never believes the header" "" "$(grep -F 'client=127.0.0.3' <<<"$b_lines" || true)"

echo "Rolling restart under load through nginx"
# h2load, 4 connections x 4 streams, in runs of 400 requests one after the other until both
# instances have restarted (at most 60 s). Each run finishes every request it starts, so a
# failed one is the restart's doing (h2load's duration mode counts the requests still in flight
# at its deadline as errors).
h2load_runs() {
    local deadline=$((SECONDS + 60))
    while [[ ! -e $WORK/restarted ]] && ((SECONDS < deadline)); do
        h2load -c 4 -m 4 -n 400 "$NGINX/api/emoji?count=3" 2>&1 | grep -E '^requests:|^status codes:' >>"$WORK/h2load.out" || true
    done
}
: >"$WORK/h2load.out"
h2load_runs &
LOAD_PID=$!
restart() {
    local name=$1 port=$2 pid=$3 err=$4 code seen=""
    shift 4
    # The load reaches this instance before it is stopped.
    check_ne "the load reaches instance $name" "" "$(wait_for_line 'GET /api/emoji\?count=3 ' "$err" 10)"
    kill -TERM "$pid"
    local deadline=$((SECONDS + 5))
    while ((SECONDS < deadline)); do
        code=$("${CURL[@]}" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz" 2>/dev/null) || code=000
        seen+=" $code"
        if [[ $code != 200 ]]; then break; fi
    done
    check_eq "instance $name: /readyz answers 503 while its listener is still open" 503 "$code"
    wait_exit "$pid" 20
    check_eq "instance $name exits 0 after draining" 0 "$EXIT_CODE"
    check_contains "instance $name logged the drain delay before closing" "readiness is 503; listeners close after the drain delay" "$(cat "$err")"
    start_server --port "$port" "$@"
    # As in any rolling restart, the next instance stops only once this one takes traffic again.
    check_ne "restarted instance $name takes load again" "" "$(wait_for_line 'GET /api/emoji\?count=3 ' "$SERVER_ERR" 15)"
}
restart A "$A_PORT" "$A_PID" "$A_ERR" --access-log --trusted-proxy 127.0.0.1 --drain-delay 1.5
restart B "$B_PORT" "$B_PID" "$B_ERR" --access-log --drain-delay 1.5
touch "$WORK/restarted"
wait_exit "$LOAD_PID" 30
runs=$(grep -c '^requests:' "$WORK/h2load.out" || true)
totals=$(awk '/^requests:/ { total += $2; ok += $8; failed += $10; errored += $12 }
    /^status codes:/ { other += $5 + $7 + $9 } END { printf "%d %d %d %d %d", total, ok, failed, errored, other }' "$WORK/h2load.out")
read -r total succeeded failed errored not2xx <<<"$totals"
echo "  h2load: $runs runs, $total requests, $succeeded succeeded, $failed failed, $errored errored, $not2xx not 2xx"
check "h2load ran through both restarts" test "$runs" -ge 2
check_eq "every request of the load succeeded" "$total" "$succeeded"
check_eq "none failed or errored" "0 0" "$failed $errored"
check_eq "every response was 2xx" 0 "$not2xx"
check_eq "nginx found a live upstream for every request" "" "$(grep -E 'no live upstreams' "$WORK/nginx/error.log" || true)"
