#!/usr/bin/env bash
# mtls.sh: mutual TLS with --tls-client-ca: curl with the development client certificate is let
# in (HTTP/1.1 and HTTP/2) and named in the access log; without one, or with one from another CA,
# the handshake fails and the log says why; --tls-client-certificate optional lets clients in
# without one. Bad settings stop the start.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
# A client certificate from a CA the server does not trust (self-signed, for client authentication).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 -days 1 -subj "/CN=stranger" \
    -addext "extendedKeyUsage=clientAuth" -keyout "$CERTS/stranger-key.pem" -out "$CERTS/stranger.pem" 2>/dev/null
TLS=(--tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem" --tls-client-ca "$CERTS/ca.pem")
CLIENT=(--cacert "$CERTS/ca.pem" --cert "$CERTS/client.pem" --key "$CERTS/client-key.pem")
SUBJECT="CN=cat client,O=Whisker development"

echo "--tls-client-ca (a certificate required)"
start_server --access-log "${TLS[@]}"
version=$("${CURL[@]}" "${CLIENT[@]}" -o "$WORK/cats" -w '%{http_code} %{http_version}' "$TLS_BASE/api/emoji?count=2")
check_eq "with the client certificate: 200 over HTTP/2 (ALPN)" "200 2" "$version"
check_eq "... two cats" 2 "$(count_cats "$(cat "$WORK/cats")")"
check_contains "the access log names the certificate's subject" "client_certificate=\"$SUBJECT\"" "$(wait_for_line 'GET /api/emoji\?count=2 ' "$SERVER_ERR")"
request "${CLIENT[@]}" --http1.1 "$TLS_BASE/api/emoji?count=3"
check_eq "and over HTTP/1.1: 200" 200 "$STATUS"
request --cacert "$CERTS/ca.pem" "$TLS_BASE/api/emoji?count=4"
check_eq "without a certificate: no response (the handshake fails)" 000 "$STATUS"
check_contains "... logged with OpenSSL's reason" "peer did not return a certificate" "$(wait_for_line 'TLS connection failed' "$SERVER_ERR")"
request --cacert "$CERTS/ca.pem" --cert "$CERTS/stranger.pem" --key "$CERTS/stranger-key.pem" "$TLS_BASE/api/emoji?count=5"
check_eq "with a certificate from another CA: no response" 000 "$STATUS"
check_contains "... logged: the certificate does not verify" "certificate verify failed" "$(grep 'TLS connection failed' "$SERVER_ERR" | tail -n1)"
request "$BASE/api/emoji"
check_eq "the cleartext port asks for nothing" 200 "$STATUS"
stop_server

echo "--tls-client-certificate optional"
start_server --access-log "${TLS[@]}" --tls-client-certificate optional
request --cacert "$CERTS/ca.pem" "$TLS_BASE/api/emoji?count=6"
check_eq "without a certificate: 200" 200 "$STATUS"
check_eq "... and no client_certificate in the access log" "" "$(wait_for_line 'GET /api/emoji\?count=6 ' "$SERVER_ERR" | grep -o 'client_certificate=[^ ]*' || true)"
request "${CLIENT[@]}" "$TLS_BASE/api/emoji?count=7"
check_contains "with one: 200, named" "200 client_certificate=\"$SUBJECT\"" "$STATUS $(wait_for_line 'GET /api/emoji\?count=7 ' "$SERVER_ERR" | grep -o 'client_certificate=.*O=Whisker development"')"
request --cacert "$CERTS/ca.pem" --cert "$CERTS/stranger.pem" --key "$CERTS/stranger-key.pem" "$TLS_BASE/api/emoji?count=8"
check_eq "a certificate that does not verify is refused even so" 000 "$STATUS"
stop_server

bad_setting "--tls-client-certificate maybe is refused" '--tls-client-certificate must be required or optional, got "maybe"' X=1 -- "${TLS[@]}" --tls-client-certificate maybe
bad_setting "--tls-client-ca without HTTPS is refused" "--tls-client-ca (or CAT_SERVICE_TLS_CLIENT_CA) needs HTTPS" X=1 -- --tls-client-ca "$CERTS/ca.pem"
bad_setting "an unreadable client CA file stops the start, naming it" "loading the client certificates' CAs from /nonexistent/ca.pem" X=1 -- \
    --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem" --tls-client-ca /nonexistent/ca.pem
