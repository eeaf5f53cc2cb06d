#!/usr/bin/env bash
# h2c-smuggling.sh: issue 38's h2csmuggler probe (h2csmuggle.py) through a real nginx with the
# WebSocket recipe (Upgrade and Connection passed on) and a real HAProxy in `mode http` with its
# defaults, each refusing /api/report itself. cat-service without --h2c-upgrade (the default)
# serves the upgrade request as HTTP/1.1: no 101, so no tunnel, and /api/report is never reached
# (at 6112b08 both proxies relayed the 101, and /api/report was answered over HTTP/2 through them).
# Then, with no proxy, --h2c-upgrade still upgrades: 101, then HTTP/2 on stream 1.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v nginx >/dev/null || ! command -v haproxy >/dev/null; then
    fail "nginx and haproxy are installed (make deps)"
    exit 1
fi
SMUGGLE=(timeout 20 python3 "$TESTS_DIR/h2csmuggle.py")

start_server --access-log
BACKEND_PORT=$PORT BACKEND_ERR=$SERVER_ERR
NGINX_PORT=$(free_port) HAPROXY_PORT=$(free_port)

mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<EOF
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log notice;
$( ((EUID == 0)) && echo "user root;")
events { worker_connections 64; }
http {
    access_log $WORK/nginx/access.log;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        # The proxy's own access rule, which a tunnel would bypass.
        location /api/report { return 403; }
        location / {
            proxy_pass http://127.0.0.1:$BACKEND_PORT;
            proxy_http_version 1.1;
            # The WebSocket recipe, as often copied for every location.
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$http_connection;
        }
    }
}
EOF
start_nginx || exit 1
cat >"$WORK/haproxy.cfg" <<EOF
global
    log stderr format short local0 notice
defaults
    mode http
    log global
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend web
    bind 127.0.0.1:$HAPROXY_PORT
    http-request deny if { path_beg /api/report }
    default_backend cats
backend cats
    server cat1 127.0.0.1:$BACKEND_PORT
EOF
haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.out" 2>&1 &
HAPROXY_PID=$!
trap 'rc=$?; kill -TERM $HAPROXY_PID $NGINX_PID 2>/dev/null || true; wait $HAPROXY_PID $NGINX_PID 2>/dev/null || true; (exit $rc); finish' EXIT
if ! wait_for_port "$HAPROXY_PORT"; then
    fail "haproxy starts" "$(shorten "$(cat "$WORK/haproxy.out")")"
    exit 1
fi

for proxy in nginx:$NGINX_PORT haproxy:$HAPROXY_PORT; do
    name=${proxy%%:*} port=${proxy##*:}
    echo "Through $name"
    request "http://127.0.0.1:$port/api/report"
    check_eq "$name refuses GET /api/report itself" 403 "$STATUS"
    request "http://127.0.0.1:$port/api/emoji?count=2"
    check_eq "$name passes GET /api/emoji on" "200 2" "$STATUS $(count_cats "$(cat "$BODY")")"
    answer=$("${SMUGGLE[@]}" "$port" /api/report 2>&1 || true)
    echo "    h2csmuggle.py: $answer"
    check_match "$name: Upgrade: h2c is served as HTTP/1.1 (200), no 101" '^no-tunnel 200 ' "$answer"
    check_match "$name: the HTTP/2 preface after it is no tunnel (an HTTP/1.1 refusal or a close)" ' then=(HTTP/1\.1 4[0-9][0-9]|closed)' "$answer"
done
check_eq "cat-service never saw /api/report (no tunnel past either proxy)" "" "$(grep -F '/api/report' "$BACKEND_ERR" || true)"
check_eq "nor any request over HTTP/2" "" "$(grep -F 'protocol=HTTP/2' "$BACKEND_ERR" || true)"
check_contains "the upgrade requests were answered over HTTP/1.1" "GET /api/emoji?count=1 " "$(cat "$BACKEND_ERR")"

echo "With --h2c-upgrade and no proxy, the upgrade still works"
start_server --access-log --h2c-upgrade
answer=$("${SMUGGLE[@]}" "$PORT" "/api/emoji?count=3" 2>&1 || true)
check_eq "101, then HTTP/2: the next stream is answered" "tunnel 101 stream3=200" "$answer"
request --http2 "$BASE/api/emoji?count=2"
check_contains "curl --http2: 101 Switching Protocols" "HTTP/1.1 101 Switching Protocols" "$(cat "$HEADERS")"
check_match "then HTTP/2 200 on stream 1, two cats" 'HTTP/2 200.* 2$' "$(tr -d '\r' <"$HEADERS" | tr '\n' ' ') $(count_cats "$(cat "$BODY")")"
