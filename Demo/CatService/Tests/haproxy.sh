#!/usr/bin/env bash
# haproxy.sh: a real HAProxy (Debian's, from `make deps`) with send-proxy-v2 in front of
# cat-service's PROXY protocol listeners, cleartext and TLS: a client bound to 127.0.0.2 is the
# client cat-service sees; a connection without the header, or from an untrusted proxy, is closed
# and logged. HAProxy's own health check asks /readyz, and takes the instance out when it drains.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS=$(cd "$DEMO_DIR/../../Tests/Certificates" && pwd)
if ! command -v haproxy >/dev/null; then
    fail "haproxy is installed (make deps)"
    exit 1
fi

start_server --access-log --trusted-proxy 127.0.0.1 --proxy-protocol http,https --drain-delay 3 --tls-port 0 \
    --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
TRUSTING_PORT=$PORT TRUSTING_TLS_PORT=$TLS_PORT TRUSTING_ERR=$SERVER_ERR TRUSTING_PID=$SERVER_PID
start_server --trusted-proxy 10.0.0.0/8 --proxy-protocol http
UNTRUSTING_PORT=$PORT UNTRUSTING_ERR=$SERVER_ERR

PLAIN_PORT=$(free_port) TLS_PROXY_PORT=$(free_port) UNTRUSTED_PORT=$(free_port)
# Demo/proxies/haproxy.cfg, the one Sources/Whisker/Whisker.docc/Proxies.md shows, with this run's ports.
sed -e "s|@PLAIN_PORT@|$PLAIN_PORT|g" -e "s|@TLS_PROXY_PORT@|$TLS_PROXY_PORT|g" -e "s|@UNTRUSTED_PORT@|$UNTRUSTED_PORT|g" \
    -e "s|@TRUSTING_PORT@|$TRUSTING_PORT|g" -e "s|@TRUSTING_TLS_PORT@|$TRUSTING_TLS_PORT|g" -e "s|@UNTRUSTING_PORT@|$UNTRUSTING_PORT|g" \
    "$DEMO_DIR/../proxies/haproxy.cfg" >"$WORK/haproxy.cfg"
check_eq "every placeholder of haproxy.cfg is filled" "" "$(grep -o '@[A-Z_]*@' "$WORK/haproxy.cfg" || true)"
haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.out" 2>&1 &
HAPROXY_PID=$!
trap 'rc=$?; kill -TERM $HAPROXY_PID 2>/dev/null || true; wait $HAPROXY_PID 2>/dev/null || true; (exit $rc); finish' EXIT
if ! wait_for_port "$PLAIN_PORT"; then
    fail "haproxy starts" "$(shorten "$(cat "$WORK/haproxy.out")")"
    exit 1
fi

echo "PROXY v2 from HAProxy, cleartext"
request --interface 127.0.0.2 "http://127.0.0.1:$PLAIN_PORT/api/emoji?count=4"
check_eq "GET /api/emoji?count=4 through HAProxy is 200" 200 "$STATUS"
check_eq "four cats" 4 "$(count_cats "$(cat "$BODY")")"
line=$(wait_for_line 'GET /api/emoji\?count=4 ' "$TRUSTING_ERR")
check_match "the access log's client is 127.0.0.2 (from the PROXY header), its peer HAProxy's 127.0.0.1" \
    'client=127\.0\.0\.2:[0-9]+ .*peer=127\.0\.0\.1:' "$line"
version=$("${CURL[@]}" --interface 127.0.0.2 --http2-prior-knowledge -o /dev/null -w '%{http_code} %{http_version}' "http://127.0.0.1:$PLAIN_PORT/api/emoji?count=6")
check_eq "h2c after the PROXY header" "200 2" "$version"
check_match "h2c's client is 127.0.0.2 too" 'client=127\.0\.0\.2:[0-9]+ .*protocol=HTTP/2' "$(wait_for_line 'GET /api/emoji\?count=6 ' "$TRUSTING_ERR")"

echo "PROXY v2 from HAProxy, then TLS (passed through)"
request --interface 127.0.0.2 --cacert "$CERTS/ca.pem" --resolve "localhost:$TLS_PROXY_PORT:127.0.0.1" "https://localhost:$TLS_PROXY_PORT/api/emoji?count=5"
check_eq "GET over TLS after the PROXY header is 200" 200 "$STATUS"
check_match "its client is 127.0.0.2" 'client=127\.0\.0\.2:[0-9]+ ' "$(wait_for_line 'GET /api/emoji\?count=5 ' "$TRUSTING_ERR")"

echo "What a PROXY protocol listener refuses"
request "http://127.0.0.1:$TRUSTING_PORT/api/emoji"
check_eq "a request without the header gets no answer (curl: empty reply)" 000 "$STATUS"
check_contains "it is logged, with the reason" "closing a connection without a PROXY protocol header: the connection does not start with a PROXY protocol header" \
    "$(wait_for_line 'without a PROXY protocol header' "$TRUSTING_ERR")"
request --interface 127.0.0.2 "http://127.0.0.1:$UNTRUSTED_PORT/api/emoji"
check_eq "a header from a proxy outside --trusted-proxy gets no answer" 000 "$STATUS"
check_contains "it is logged: not a trusted proxy" "the peer is not a trusted proxy" "$(wait_for_line 'not a trusted proxy' "$UNTRUSTING_ERR")"

echo "HAProxy's health check asks /readyz (with its PROXY header) and sees the drain"
kill -TERM "$TRUSTING_PID"
down=$(wait_for_line 'cats/cat1 is DOWN' "$WORK/haproxy.out" 5)
check_contains "on SIGTERM, HAProxy takes the instance out: /readyz says 503 (during --drain-delay)" "code: 503" "$down"
wait_exit "$TRUSTING_PID" 20
check_eq "the instance then exits 0" 0 "$EXIT_CODE"
