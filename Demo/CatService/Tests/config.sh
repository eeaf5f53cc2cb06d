#!/usr/bin/env bash
# config.sh: every setting from its flag or its CAT_SERVICE_* variable (the flag wins), --help
# documenting both, and a bad value ending the process with one line that names the setting.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

help=$("$CAT_SERVICE" --help 2>&1 || true)
for variable in CAT_SERVICE_HOST CAT_SERVICE_PORT CAT_SERVICE_TLS_CERTIFICATE CAT_SERVICE_TLS_PRIVATE_KEY CAT_SERVICE_TLS_PORT \
    CAT_SERVICE_CLEARTEXT CAT_SERVICE_HTTP2 CAT_SERVICE_H2C_ONLY CAT_SERVICE_H2C_UPGRADE CAT_SERVICE_ACCESS_LOG CAT_SERVICE_REQUEST_IDS CAT_SERVICE_METRICS CAT_SERVICE_LOG_LEVEL \
    CAT_SERVICE_WORKERS CAT_SERVICE_MAX_CONNECTIONS CAT_SERVICE_MAX_HEADER_BYTES CAT_SERVICE_MAX_REQUEST_BODY_SIZE CAT_SERVICE_TLS_HANDSHAKE_TIMEOUT CAT_SERVICE_REQUEST_HEADER_TIMEOUT \
    CAT_SERVICE_REQUEST_BODY_TIMEOUT CAT_SERVICE_IDLE_TIMEOUT CAT_SERVICE_WRITE_TIMEOUT CAT_SERVICE_SHUTDOWN_GRACE_PERIOD \
    CAT_SERVICE_TRUSTED_PROXIES CAT_SERVICE_PROXY_PROTOCOL CAT_SERVICE_PROXY_PROTOCOL_SOCKETS CAT_SERVICE_PROXY_HEADER_TIMEOUT \
    CAT_SERVICE_FORWARDED_FIELDS CAT_SERVICE_FORWARDING_FIELD CAT_SERVICE_HEALTH_CHECKS CAT_SERVICE_HEALTH_PORT CAT_SERVICE_DRAIN_DELAY \
    CAT_SERVICE_CORS_ORIGINS CAT_SERVICE_CORS_CREDENTIALS CAT_SERVICE_TLS_CLIENT_CA CAT_SERVICE_TLS_CLIENT_CERTIFICATE \
    CAT_SERVICE_REQUEST_DECOMPRESSION CAT_SERVICE_IO_BACKEND; do
    check_contains "--help documents $variable" "$variable" "$help"
done

bad_setting "CAT_SERVICE_PORT=abc is refused, naming the variable" 'CAT_SERVICE_PORT must be a whole number between 0 and 65535, got "abc"' CAT_SERVICE_PORT=abc --
bad_setting "CAT_SERVICE_TLS_PORT=70000 is refused" 'CAT_SERVICE_TLS_PORT must be a whole number between 0 and 65535, got "70000"' CAT_SERVICE_TLS_PORT=70000 --
bad_setting "--port 70000 is refused, naming the flag" '--port must be between 0 and 65535, got 70000' X=1 -- --port 70000
bad_setting "CAT_SERVICE_HTTP2=maybe is refused" 'CAT_SERVICE_HTTP2 must be true or false, got "maybe"' CAT_SERVICE_HTTP2=maybe --
bad_setting "--h2c-only with --no-http2 is refused, saying why" '--h2c-only (or CAT_SERVICE_H2C_ONLY=true) needs HTTP/2' X=1 -- --h2c-only --no-http2
bad_setting "--h2c-upgrade with --no-http2 is refused, saying why" '--h2c-upgrade (or CAT_SERVICE_H2C_UPGRADE=true) needs HTTP/2' X=1 -- --h2c-upgrade --no-http2
bad_setting "--h2c-upgrade with --trusted-proxy is refused: h2c smuggling" 'is refused with --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES): through a proxy that forwards Upgrade' \
    CAT_SERVICE_H2C_UPGRADE=true -- --trusted-proxy 127.0.0.1
bad_setting "--forwarding-field X-Real-IP is refused" '--forwarding-field must be X-Forwarded-For, Forwarded or none, got "X-Real-IP"' X=1 -- --trusted-proxy 127.0.0.1 --forwarding-field X-Real-IP
bad_setting "--forwarding-field without --trusted-proxy is refused" '--forwarding-field needs --trusted-proxy' X=1 -- --forwarding-field Forwarded
bad_setting "--trusted-proxy RANGE=FIELD with an unknown field is refused" '--trusted-proxy: "127.0.0.1=Via": the field after = must be X-Forwarded-For, Forwarded or none' X=1 -- --trusted-proxy 127.0.0.1=Via
bad_setting "CAT_SERVICE_METRICS=maybe is refused" 'CAT_SERVICE_METRICS must be true or false, got "maybe"' CAT_SERVICE_METRICS=maybe --
bad_setting "CAT_SERVICE_LOG_LEVEL=loud is refused" 'CAT_SERVICE_LOG_LEVEL must be trace, debug, info, notice, warning, error or critical, got "loud"' CAT_SERVICE_LOG_LEVEL=loud --
bad_setting "a certificate without a key (from the environment) is refused" 'go together' CAT_SERVICE_TLS_CERTIFICATE=/x.pem --
bad_setting "an unreadable certificate from the environment stops the start" 'cannot serve HTTPS: TLS: loading the certificate chain from /nonexistent.pem failed' \
    CAT_SERVICE_TLS_CERTIFICATE=/nonexistent.pem CAT_SERVICE_TLS_PRIVATE_KEY=/nonexistent-key.pem CAT_SERVICE_TLS_PORT=0 -- --port 0
bad_setting "--max-connections 0 is refused, naming the flag" '--max-connections must be between 1 and 1000000, got 0' X=1 -- --max-connections 0
bad_setting "--workers 0 is refused, naming the flag" '--workers must be between 1 and 256, got 0' X=1 -- --workers 0
bad_setting "--io-backend kqueue is refused, naming the flag" '--io-backend must be epoll or dispatch, got "kqueue"' X=1 -- --io-backend kqueue
bad_setting "CAT_SERVICE_IO_BACKEND=poll is refused, naming the variable" 'CAT_SERVICE_IO_BACKEND must be epoll or dispatch, got "poll"' CAT_SERVICE_IO_BACKEND=poll --
bad_setting "WHISKER_IO_BACKEND=kqueue stops the start, naming the variable (no crash)" 'cat-service: WHISKER_IO_BACKEND=kqueue: not an I/O backend: use epoll or dispatch' WHISKER_IO_BACKEND=kqueue --
bad_setting "CAT_SERVICE_MAX_REQUEST_BODY_SIZE=-1 is refused" 'CAT_SERVICE_MAX_REQUEST_BODY_SIZE must be a whole number at least 0, got "-1"' CAT_SERVICE_MAX_REQUEST_BODY_SIZE=-1 --
bad_setting "CAT_SERVICE_IDLE_TIMEOUT=soon is refused" 'CAT_SERVICE_IDLE_TIMEOUT must be a number of seconds above 0 and at most 86400, got "soon"' CAT_SERVICE_IDLE_TIMEOUT=soon --
bad_setting "--shutdown-grace-period 0 is refused" '--shutdown-grace-period must be a number of seconds above 0 and at most 86400, got 0.0' X=1 -- --shutdown-grace-period 0
bad_setting "--proxy-protocol without --trusted-proxy is refused, saying why" 'need --trusted-proxy (or CAT_SERVICE_TRUSTED_PROXIES)' X=1 -- --proxy-protocol http
bad_setting "--trusted-proxy with host bits past the prefix is refused" '--trusted-proxy: invalid address range "10.0.0.1/8": bits are set past the /8 prefix (the network is 10.0.0.0/8)' X=1 -- --trusted-proxy 10.0.0.1/8
bad_setting "CAT_SERVICE_TRUSTED_PROXIES=cats is refused" 'CAT_SERVICE_TRUSTED_PROXIES: invalid address range "cats": not a numeric IPv4 or IPv6 address' CAT_SERVICE_TRUSTED_PROXIES=cats --
bad_setting "CAT_SERVICE_PROXY_PROTOCOL=ftp is refused" 'CAT_SERVICE_PROXY_PROTOCOL must be http, https or http,https, got "ftp"' CAT_SERVICE_TRUSTED_PROXIES=127.0.0.1 CAT_SERVICE_PROXY_PROTOCOL=ftp --
bad_setting "--drain-delay with --no-health-checks is refused" '--health-port and --drain-delay need the health checks' X=1 -- --no-health-checks --drain-delay 1

echo "I/O backends"
for backend in epoll dispatch; do
    start_server --io-backend "$backend"
    request "$BASE/api/emoji?count=2"
    check_eq "--io-backend $backend: serves" 200 "$STATUS"
    stop_server
done

echo "Limits and timeouts"
CAT_SERVICE_MAX_HEADER_BYTES=2048 start_server --idle-timeout 0.5
request -H "X-Padding: $(printf 'a%.0s' {1..3000})" "$BASE/api/emoji"
check_eq "CAT_SERVICE_MAX_HEADER_BYTES=2048: a 3 KB header gets 431" 431 "$STATUS"
request -H "X-Padding: $(printf 'a%.0s' {1..1000})" "$BASE/api/emoji"
check_eq "CAT_SERVICE_MAX_HEADER_BYTES=2048: a 1 KB header is fine" 200 "$STATUS"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
started=$SECONDS
closed=$(timeout 10 cat <&3 | wc -c || true)
exec 3<&-
check "--idle-timeout 0.5: a silent connection is closed quietly, well before 10 s" test "$closed" -eq 0 -a $((SECONDS - started)) -lt 5
stop_server
CAT_SERVICE_MAX_REQUEST_BODY_SIZE=100 start_server
request -X GET --data-binary "$(printf 'b%.0s' {1..200})" "$BASE/api/emoji"
check_eq "CAT_SERVICE_MAX_REQUEST_BODY_SIZE=100: a 200-byte body gets 413" 413 "$STATUS"
stop_server

export CAT_SERVICE_REQUEST_IDS=true CAT_SERVICE_ACCESS_LOG=1
start_server
request -H 'X-Request-ID: from-curl' "$BASE/api/emoji"
check_eq "CAT_SERVICE_REQUEST_IDS=true: the client's id comes back" "from-curl" "$(header x-request-id)"
request "$BASE/api/emoji?count=2"
check_match "CAT_SERVICE_REQUEST_IDS=true: a generated id otherwise" '^[0-9a-f]{32}$' "$(header x-request-id)"
stop_server
check_match "CAT_SERVICE_ACCESS_LOG=1: one access line per request, with status, bytes, protocol and id" \
    'GET /api/emoji\?count=2 200' "$(grep 'cat-service.access' "$SERVER_ERR" || true)"
check_contains "access line metadata" "request_id=from-curl" "$(grep 'cat-service.access' "$SERVER_ERR" | head -n1)"
check_eq "access log: two lines for two requests" 2 "$(grep -c 'cat-service.access' "$SERVER_ERR" || true)"

start_server --no-request-ids --no-access-log
request -H 'X-Request-ID: from-curl' "$BASE/api/emoji"
check_eq "a flag beats its variable: --no-request-ids" "" "$(header x-request-id)"
stop_server
check_eq "a flag beats its variable: --no-access-log" 0 "$(grep -c 'cat-service.access' "$SERVER_ERR" || true)"
unset CAT_SERVICE_REQUEST_IDS CAT_SERVICE_ACCESS_LOG
