#!/usr/bin/env bash
# tls.sh: HTTPS. A development CA and localhost certificate from Scripts/make-dev-certificates.sh;
# curl with --cacert over TLS 1.3 and 1.2 with ALPN http/1.1, the clip whole and intact, plain HTTP
# on the TLS port, TLS 1.1 refused, HTTPS only, the handshake deadline, the connection limit on
# both ports, and the setting errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
TLS_ARGS=(--tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem")
TLS_CURL=(--cacert "$CERTS/ca.pem")

start_server "${TLS_ARGS[@]}"

request "${TLS_CURL[@]}" --http1.1 "$TLS_BASE/api/emoji?count=3"
check_eq "https GET /api/emoji?count=3: 200" 200 "$STATUS"
check_eq "https: three cats" 3 "$(count_cats "$(cat "$BODY")")"

verbose=$("${CURL[@]}" "${TLS_CURL[@]}" --http1.1 -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 || true)
check_contains "curl --http1.1 offers and gets ALPN http/1.1" "ALPN: server accepted http/1.1" "$verbose"
check_contains "TLS 1.3 by default" "SSL connection using TLSv1.3" "$verbose"
check_contains "the certificate verifies against the development CA" "SSL certificate verify ok" "$verbose"

verbose=$("${CURL[@]}" "${TLS_CURL[@]}" --http1.1 --tlsv1.2 --tls-max 1.2 -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 || true)
check_match "TLS 1.2 is accepted with a forward-secret AEAD cipher" "SSL connection using TLSv1.2 / ECDHE-[A-Z]+-(AES[0-9]+-GCM|CHACHA20)" "$verbose"

request "${TLS_CURL[@]}" "$TLS_BASE/api/clip"
check_eq "https GET /api/clip: 200" 200 "$STATUS"
check_eq "https clip: byte-identical to cat.mp4" "$(sha256sum <"$CAT_MP4" | cut -d' ' -f1)" "$(sha256sum <"$BODY" | cut -d' ' -f1)"

request "$BASE/api/emoji"
check_eq "cleartext keeps serving next to HTTPS" 200 "$STATUS"

request "http://127.0.0.1:$TLS_PORT/api/emoji"
check_eq "plain HTTP on the TLS port: 400" 400 "$STATUS"
check_contains "plain HTTP on the TLS port: says to use https" "HTTPS" "$(cat "$BODY")"

if openssl s_client -help 2>&1 | grep -q -- -tls1_1; then
    s_client=$(timeout 10 openssl s_client -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0' -connect "127.0.0.1:$TLS_PORT" </dev/null 2>&1 || true)
    check_contains "openssl s_client -tls1_1: refused with a protocol_version alert" "alert protocol version" "$s_client"
fi
check_contains "the refused handshake is logged with OpenSSL's reason" "unsupported protocol" "$(cat "$SERVER_ERR")"

request "${TLS_CURL[@]}" "$TLS_BASE/api/emoji"
check_eq "after the failed handshakes the server still serves HTTPS" 200 "$STATUS"
stop_server
check_eq "SIGTERM: exit status 0" 0 "$EXIT_CODE"

start_server --no-cleartext "${TLS_ARGS[@]}"
check_eq "--no-cleartext: one listening line, https" 1 "$(grep -c 'listening on' "$SERVER_OUT")"
request "${TLS_CURL[@]}" "$TLS_BASE/api/emoji"
check_eq "--no-cleartext: HTTPS serves" 200 "$STATUS"
stop_server

echo "The handshake deadline, and the connection limit on both ports"
start_server --max-connections 1 --tls-handshake-timeout 3 "${TLS_ARGS[@]}"
# A client that connects to the TLS port and says nothing takes the one connection it may have,
# and is closed at the handshake timeout (it used to stay until the 60 s idle timeout).
exec 4<>"/dev/tcp/127.0.0.1/$TLS_PORT"
silent_since=$(date +%s%N)
request "${TLS_CURL[@]}" --http1.1 "$TLS_BASE/api/emoji"
check_eq "at the limit, an HTTPS client completes its handshake and reads 503" 503 "$STATUS"
check_contains "the 503 says why" "connection limit" "$(cat "$BODY")"
request "$BASE/api/emoji"
check_eq "at the limit, a cleartext client reads 503" 503 "$STATUS"
for url in "--http2 ${TLS_BASE}" "--http2-prior-knowledge ${BASE}"; do
    read -r flag base <<<"$url"
    verbose=$("${CURL[@]}" "${TLS_CURL[@]}" -v "$flag" "$base/api/emoji" 2>&1 || true)
    check_contains "at the limit, curl $flag gets GOAWAY naming no stream" "GOAWAY, error=0, last_stream=0" "$verbose"
done
timeout 10 cat <&4 >/dev/null || true
silent_ms=$((($(date +%s%N) - silent_since) / 1000000))
exec 4<&-
check "the silent TLS client is closed at the 3 s handshake timeout (after ${silent_ms} ms)" test "$silent_ms" -ge 2500 -a "$silent_ms" -lt 8000
check_contains "the closed handshake is logged" "TLS handshake not completed in time" "$(cat "$SERVER_ERR")"
request "${TLS_CURL[@]}" "$TLS_BASE/api/emoji"
check_eq "with the slot free again, HTTPS serves" 200 "$STATUS"
stop_server

echo "Certificate reload on SIGHUP"
cp "$CERTS/localhost.pem" "$WORK/live.pem"
cp "$CERTS/localhost-key.pem" "$WORK/live-key.pem"
start_server --tls-port 0 --tls-certificate "$WORK/live.pem" --tls-private-key "$WORK/live-key.pem"
subject() { "${CURL[@]}" "${TLS_CURL[@]}" -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 | grep -m1 -o 'subject: CN=.*' || true; }
check_eq "before: the first certificate" "subject: CN=localhost" "$(subject)"
# One keep-alive connection, 12 requests over about 3 s, open across the reload.
urls=()
for ((i = 0; i < 12; i++)); do urls+=(-o /dev/null "$TLS_BASE/api/emoji"); done
: >"$WORK/kept.out"
"${CURL[@]}" "${TLS_CURL[@]}" --http1.1 --rate 4/s -w '%{http_code} %{num_connects}\n' "${urls[@]}" >"$WORK/kept.out" 2>&1 &
kept=$!
deadline=$((SECONDS + 10))
until (($(wc -l <"$WORK/kept.out") >= 2)) || ((SECONDS >= deadline)); do sleep 0.05; done
cp "$CERTS/localhost-renewed.pem" "$WORK/live.pem"
cp "$CERTS/localhost-renewed-key.pem" "$WORK/live-key.pem"
kill -s HUP "$SERVER_PID"
deadline=$((SECONDS + 10))
until grep -q 'reloaded the TLS certificate' "$SERVER_ERR" || ((SECONDS >= deadline)); do sleep 0.05; done
check_contains "SIGHUP: the reload is logged" "reloaded the TLS certificate" "$(cat "$SERVER_ERR")"
check_eq "after: a new connection gets the renewed certificate" "subject: CN=localhost renewed" "$(subject)"
wait "$kept" || true
check_eq "the connection open across the reload kept serving: 12 answers, one connect" \
    "200 1$(printf '\n200 0%.0s' {1..11})" "$(cat "$WORK/kept.out")"
echo "not a key" >"$WORK/live-key.pem"
kill -s HUP "$SERVER_PID"
deadline=$((SECONDS + 10))
until grep -q 'was not reloaded' "$SERVER_ERR" || ((SECONDS >= deadline)); do sleep 0.05; done
check_contains "SIGHUP with a bad key: logged, naming the file" "was not reloaded; keeping the current one" "$(grep 'was not reloaded' "$SERVER_ERR" || true)"
check_contains "the log names the key file" "$WORK/live-key.pem" "$(grep 'was not reloaded' "$SERVER_ERR" || true)"
check_eq "and the renewed certificate stays in service" "subject: CN=localhost renewed" "$(subject)"
check "the server is still running" is_running "$SERVER_PID"
stop_server
check_eq "then SIGTERM: exit status 0" 0 "$EXIT_CODE"

start_server
kill -s HUP "$SERVER_PID"
deadline=$((SECONDS + 10))
until grep -q 'no TLS certificate to reload' "$SERVER_ERR" || ((SECONDS >= deadline)); do sleep 0.05; done
check "without HTTPS, SIGHUP is logged and ignored" grep -q 'no TLS certificate to reload' "$SERVER_ERR"
request "$BASE/api/emoji"
check_eq "and the server keeps serving" 200 "$STATUS"
stop_server

# Setting errors: one clear line naming the setting, non-zero exit.
"$CAT_SERVICE" --port 0 --tls-port 0 --tls-certificate "$WORK/missing.pem" --tls-private-key "$CERTS/localhost-key.pem" \
    >"$WORK/bad.out" 2>"$WORK/bad.err" && rc=0 || rc=$?
check_eq "unreadable certificate: exit status 1" 1 "$rc"
check_contains "unreadable certificate: the error names the file" \
    "cat-service: cannot serve HTTPS: TLS: loading the certificate chain from $WORK/missing.pem failed" "$(cat "$WORK/bad.err")"

"$CAT_SERVICE" --port 0 --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/ca-key.pem" \
    >"$WORK/bad.out" 2>"$WORK/bad.err" && rc=0 || rc=$?
check_eq "key of another certificate: exit status 1" 1 "$rc"
check_contains "key of another certificate: names the key and says why" "loading the private key from $CERTS/ca-key.pem failed: x509 certificate routines::key values mismatch" "$(cat "$WORK/bad.err")"

"$CAT_SERVICE" --port 0 --tls-certificate "$CERTS/localhost.pem" >"$WORK/bad.out" 2>"$WORK/bad.err" && rc=0 || rc=$?
check_ne "certificate without key: refused" 0 "$rc"
check_contains "certificate without key: says they go together" "--tls-certificate and --tls-private-key (or CAT_SERVICE_TLS_CERTIFICATE and CAT_SERVICE_TLS_PRIVATE_KEY) go together" "$(cat "$WORK/bad.err")"
