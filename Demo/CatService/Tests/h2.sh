#!/usr/bin/env bash
# h2.sh: HTTP/2. h2c with prior knowledge and by Upgrade (--h2c-upgrade; without it Upgrade: h2c is served as
# HTTP/1.1) on the cleartext port (which keeps serving HTTP/1.1),
# h2 over TLS chosen by ALPN, the clip whole over h2, h2load with 100 streams on one connection
# and 16 connections x 16 streams without a failed request, --no-http2, and --h2c-only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
start_server --h2c-upgrade --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
TLS_CURL=(--cacert "$CERTS/ca.pem")

request --http2-prior-knowledge "$BASE/api/emoji?count=3"
check_eq "h2c prior knowledge: 200" 200 "$STATUS"
check_eq "h2c prior knowledge: three cats" 3 "$(count_cats "$(cat "$BODY")")"
check_match "h2c prior knowledge: the response is HTTP/2" '^HTTP/2 200' "$(head -n1 "$HEADERS")"
check_eq "h2: lower-case field names, content-length" 12 "$(header content-length)"

request "$BASE/api/emoji"
check_match "the same port still serves HTTP/1.1" '^HTTP/1.1 200' "$(head -n1 "$HEADERS")"

request --http2 "$BASE/api/emoji?count=2"
check_eq "Upgrade: h2c (curl --http2 on http://): 200" 200 "$STATUS"
check_contains "Upgrade: h2c: 101 Switching Protocols, then HTTP/2" "HTTP/1.1 101 Switching Protocols" "$(cat "$HEADERS")"
check_match "Upgrade: h2c: the response is HTTP/2" $'HTTP/2 200' "$(cat "$HEADERS")"
check_eq "Upgrade: h2c: two cats" 2 "$(count_cats "$(cat "$BODY")")"
request --http2 "$BASE/api/clip"
check_eq "Upgrade: h2c clip (325 KB, held until the preface): 200, byte-identical" \
    "200 $(sha256sum <"$CAT_MP4" | cut -d' ' -f1)" "$STATUS $(sha256sum <"$BODY" | cut -d' ' -f1)"
request --http2 -X POST -d 'a=b' "$BASE/api/emoji"
check_match "Upgrade: h2c with a body is served over HTTP/1.1" '^HTTP/1.1 405' "$(head -n1 "$HEADERS")"
UPGRADING=("$SERVER_PID" "$PORT" "$BASE" "$TLS_PORT" "$TLS_BASE")
start_server
request --http2 "$BASE/api/emoji?count=2"
check_eq "without --h2c-upgrade, Upgrade: h2c is served as HTTP/1.1: 200, no 101" "HTTP/1.1 200 OK 2" \
    "$(head -n1 "$HEADERS" | tr -d '\r') $(count_cats "$(cat "$BODY")")"
check_eq "without --h2c-upgrade: prior knowledge still works" "200 2" \
    "$("${CURL[@]}" --http2-prior-knowledge -o /dev/null -w '%{http_code} %{http_version}' "$BASE/api/emoji")"
stop_server
SERVER_PID=${UPGRADING[0]} PORT=${UPGRADING[1]} BASE=${UPGRADING[2]} TLS_PORT=${UPGRADING[3]} TLS_BASE=${UPGRADING[4]}

verbose=$("${CURL[@]}" "${TLS_CURL[@]}" --http2 -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 || true)
check_contains "https --http2: ALPN chooses h2" "ALPN: server accepted h2" "$verbose"
verbose=$("${CURL[@]}" "${TLS_CURL[@]}" --http1.1 -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 || true)
check_contains "https --http1.1: ALPN chooses http/1.1" "ALPN: server accepted http/1.1" "$verbose"

expected=$(sha256sum <"$CAT_MP4" | cut -d' ' -f1)
request --http2-prior-knowledge "$BASE/api/clip"
check_eq "h2c clip (325 KB, five initial 65,535-byte windows): 200, byte-identical" "200 $expected" "$STATUS $(sha256sum <"$BODY" | cut -d' ' -f1)"
request "${TLS_CURL[@]}" --http2 "$TLS_BASE/api/clip"
check_eq "h2 over TLS clip: 200, byte-identical" "200 $expected" "$STATUS $(sha256sum <"$BODY" | cut -d' ' -f1)"

request --http2-prior-knowledge -X POST "$BASE/api/emoji"
check_eq "h2: a known path with another method is 405" 405 "$STATUS"
check_eq "h2: 405 has Allow" "GET, HEAD" "$(header allow)"
request --http2-prior-knowledge "$BASE/nope"
check_eq "h2: an unknown path is 404" 404 "$STATUS"
head_result=$("${CURL[@]}" --http2-prior-knowledge --head -o /dev/null -w '%{http_version} %{http_code} %{size_download}' "$BASE/api/clip" || true)
check_eq "h2 HEAD: 200 and no body bytes" "2 200 0" "$head_result"

# h2load: bounded in count, loopback only.
h2load_ok() {  # h2load_ok DESC ARGS...: every request succeeded, none failed or errored
    local desc=$1 out
    shift
    out=$(timeout 60 h2load "$@" 2>&1 || true)
    local line
    line=$(grep -E '^requests:' <<<"$out" || true)
    if [[ $line =~ ([0-9]+)\ total,.*\ ([0-9]+)\ succeeded,\ ([0-9]+)\ failed,\ ([0-9]+)\ errored ]] &&
        [[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && ${BASH_REMATCH[3]} == 0 && ${BASH_REMATCH[4]} == 0 ]]; then
        pass "$desc ($line)"
    else
        fail "$desc" "$(shorten "$out")"
    fi
}
if command -v h2load >/dev/null; then
    h2load_ok "h2load h2c: 100 streams on one connection, 2,000 requests" -n 2000 -c 1 -m 100 "$BASE/api/emoji"
    h2load_ok "h2load h2c: 16 connections x 16 streams, 4,000 requests" -n 4000 -c 16 -m 16 "$BASE/api/emoji"
    h2load_ok "h2load h2 over TLS: 16 connections x 16 streams" -n 4000 -c 16 -m 16 "https://127.0.0.1:$TLS_PORT/api/emoji"
    h2load_ok "h2load h2c: the clip, 4 connections x 8 streams" -n 200 -c 4 -m 8 "$BASE/api/clip"
else
    fail "h2load is installed (Debian nghttp2-client)"
fi
stop_server
check_eq "SIGTERM after HTTP/2 load: exit status 0" 0 "$EXIT_CODE"

start_server --no-http2 --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
verbose=$("${CURL[@]}" "${TLS_CURL[@]}" --http2 -v -o /dev/null "$TLS_BASE/api/emoji" 2>&1 || true)
check_contains "--no-http2: ALPN falls back to http/1.1" "ALPN: server accepted http/1.1" "$verbose"
request --http2-prior-knowledge "$BASE/api/emoji"
check_ne "--no-http2: prior knowledge is not served" 200 "$STATUS"
verbose=$("${CURL[@]}" --http2-prior-knowledge -v -o /dev/null "$BASE/api/emoji" 2>&1 || true)
check_contains "--no-http2: prior knowledge gets GOAWAY HTTP_1_1_REQUIRED (13), not an HTTP/1.1 505" "GOAWAY, error=13, last_stream=0" "$verbose"
stop_server

# --h2c-only: the cleartext port speaks HTTP/2 alone (a backend behind an h2c proxy); an HTTP/1.1
# request there is a broken preface (GOAWAY PROTOCOL_ERROR), as h2spec 3.5 #2 expects.
start_server --h2c-only
request --http2-prior-knowledge "$BASE/api/emoji?count=2"
check_eq "--h2c-only: prior knowledge is served" 200 "$STATUS"
raw_request "GET /api/emoji HTTP/1.1\r\nHost: x\r\n\r\n" >"$WORK/raw"
check_eq "--h2c-only: HTTP/1.1 gets SETTINGS then GOAWAY(last stream 0, PROTOCOL_ERROR)" \
    "000000040000000000 07 0000000000000001" \
    "$(od -An -tx1 -v "$WORK/raw" | tr -d ' \n' | sed -E 's/^(.{18}).{6}(..).{10}(.{16}).*/\1 \2 \3/')"
stop_server

