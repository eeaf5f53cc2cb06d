#!/usr/bin/env bash
# unix-socket.sh: cat-service --unix-socket PATH serves on a Unix domain socket beside its TCP port:
# curl --unix-socket over HTTP/1.1 and h2c, the file's mode, a stale file from a killed process
# replaced, a path another instance serves refused, the file removed at exit, and a real nginx
# proxying to it (proxy_pass http://unix:PATH:) with the client's address from X-Forwarded-For.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SOCKET="$WORK/cats.sock"
start_server --access-log --trusted-proxy 127.0.0.1 --unix-socket "$SOCKET"
check_eq "it says where: cat-service listening on unix:$SOCKET" "cat-service listening on unix:$SOCKET" \
    "$(grep -m1 'listening on unix:' "$SERVER_OUT" || true)"
check_eq "the socket file's mode is 660 by default (owner and group)" "srw-rw----" "$(stat -c %A "$SOCKET")"

echo "curl --unix-socket"
request --unix-socket "$SOCKET" "http://localhost/api/emoji?count=3"
check_eq "GET /api/emoji?count=3 over the socket: 200" 200 "$STATUS"
check_eq "three cats" 3 "$(count_cats "$(cat "$BODY")")"
request --unix-socket "$SOCKET" --http2-prior-knowledge "http://localhost/api/emoji?count=2"
check_eq "h2c over the socket: 200, HTTP/2" "200 HTTP/2" "$STATUS $(head -n1 "$HEADERS" | cut -d' ' -f1)"
check_contains "the access log's peer is the socket's (unnamed) client" "peer=unix: " \
    "$(wait_for_line 'GET /api/emoji\?count=3 200' "$SERVER_ERR")"
request "$BASE/api/emoji?count=1"
check_eq "the TCP port serves as before" 200 "$STATUS"

echo "The socket file's life"
bad_setting "a second instance on the same path is refused, naming it" "another process accepts connections on $SOCKET" -- \
    --host 127.0.0.1 --port 0 --unix-socket "$SOCKET"
check "... and the first still serves" "${CURL[@]}" -sf --unix-socket "$SOCKET" -o /dev/null "http://localhost/api/emoji"
stop_server KILL
check "a killed process leaves its socket file" test -S "$SOCKET"
start_server --unix-socket "$SOCKET" --unix-socket-mode 600
check_eq "a stale file is replaced: the new instance serves" 200 \
    "$("${CURL[@]}" -o /dev/null -w '%{http_code}' --unix-socket "$SOCKET" "http://localhost/api/emoji" || true)"
check_eq "--unix-socket-mode 600" "srw-------" "$(stat -c %A "$SOCKET")"
stop_server
check_eq "cat-service exits 0 on SIGTERM" 0 "$EXIT_CODE"
check "... and removes its socket file" test ! -e "$SOCKET"
: >"$WORK/not-a-socket"
bad_setting "a path that is not a socket is refused, and left alone" "exists and is not a socket" -- \
    --host 127.0.0.1 --port 0 --unix-socket "$WORK/not-a-socket"
check "... still the regular file" test -f "$WORK/not-a-socket"
bad_setting "a bad --unix-socket-mode is refused, naming the flag" "--unix-socket-mode must be permissions in octal" -- \
    --host 127.0.0.1 --port 0 --unix-socket "$SOCKET" --unix-socket-mode 999

echo "nginx proxy_pass http://unix:"
if ! command -v nginx >/dev/null; then
    fail "nginx is installed (make deps)"
    exit 1
fi
start_server --access-log --trusted-proxy 127.0.0.1 --unix-socket "$SOCKET"
NGINX_PORT=$(free_port)
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<CONF
$( ((EUID == 0)) && echo "user root;")
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    upstream cats { server unix:$SOCKET; keepalive 4; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / {
            proxy_pass http://cats;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For \$remote_addr;
        }
    }
}
CONF
start_nginx || exit 1
for count in 4 5 6; do
    request --interface 127.0.0.3 "http://127.0.0.1:$NGINX_PORT/api/emoji?count=$count"
    check_eq "through nginx over the socket: count=$count is 200 with $count cats" "200 $count" "$STATUS $(count_cats "$(cat "$BODY")")"
done
check_contains "the access log's client is nginx's (X-Forwarded-For from a peer on the socket)" "client=127.0.0.3 " \
    "$(wait_for_line 'GET /api/emoji\?count=6 200' "$SERVER_ERR")"
check_contains "... and its peer the socket's" "peer=unix: " "$(wait_for_line 'GET /api/emoji\?count=6 200' "$SERVER_ERR")"
kill -TERM $NGINX_PID 2>/dev/null || true
wait $NGINX_PID 2>/dev/null || true
stop_server
check_eq "cat-service exits 0 on SIGTERM" 0 "$EXIT_CODE"
