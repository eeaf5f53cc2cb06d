#!/usr/bin/env bash
# websocket.sh: WebSocket (RFC 6455) at /ws/echo, beside the API and h2c on the same port, and
# over TLS. A Python client (`websockets` from PyPI, installed by `make deps`) checks the echo of
# text, binary and fragmented messages, pings, the size limit (1009), close codes and 1,000
# pipelined messages, over ws:// and wss://, with permessage-deflate negotiated (the client offers
# it; the 101 must name it) and without it; an h2c request and a WebSocket upgrade are served on
# one port; the handshake's refusals (426, 400) are problem details; the upgrade request is in
# the access log with its request id; on SIGTERM the server sends close 1001 to an open socket,
# waits for the answer and exits 0. Headless Chromium (the page websocket/echo-page.html) echoes
# 1,000 messages over ws:// and wss://, compressed (it offers permessage-deflate too).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
spki=$(openssl x509 -in "$CERTS/localhost.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
start_server --access-log --request-ids --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
WS_BASE=${BASE/http:/ws:}
WSS_BASE=${TLS_BASE/https:/wss:}

# py_checks DESC COMMAND...: each "PASS x" / "FAIL x -- detail" line COMMAND prints is a check.
py_checks() {
    local desc=$1 line seen=0
    shift
    while IFS= read -r line; do
        case $line in
            PASS\ *) pass "$desc: ${line#PASS }"; seen=1 ;;
            FAIL\ *) fail "$desc: ${line#FAIL }"; seen=1 ;;
            *) echo "  ($desc: $line)" ;;
        esac
    done < <(timeout 120 "$@" 2>&1 || echo "FAIL the script exited with status $?")
    ((seen)) || fail "$desc: the script reported no check"
}

py_checks "ws://" python3 "$TESTS_DIR/websocket/client.py" "$WS_BASE/ws/echo"
py_checks "wss://" python3 "$TESTS_DIR/websocket/client.py" "$WSS_BASE/ws/echo" --cafile "$CERTS/ca.pem"

request --http2-prior-knowledge "$BASE/api/emoji"
check_match "h2c on the WebSocket's port: 200 over HTTP/2" '^HTTP/2 200' "$(head -n1 "$HEADERS")"
request --http2-prior-knowledge "$BASE/ws/echo"
check_eq "a WebSocket route over h2c: 426 (no upgrade in HTTP/2)" 426 "$STATUS"
request "$BASE/ws/echo"
check_eq "a plain GET of the WebSocket route: 426" 426 "$STATUS"
check_eq "  with Upgrade: websocket" websocket "$(header upgrade)"
check_contains "  as problem details" '"status":426' "$(cat "$BODY")"
request -H 'Upgrade: websocket' -H 'Connection: Upgrade' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: short' "$BASE/ws/echo"
check_eq "a key that is not 16 bytes of base64: 400" 400 "$STATUS"
request -H 'Upgrade: websocket' -H 'Connection: Upgrade' -H 'Sec-WebSocket-Version: 8' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$BASE/ws/echo"
check_eq "version 8: 426" 426 "$STATUS"
check_eq "  naming version 13" 13 "$(header sec-websocket-version)"
check_match "the upgrade is in the access log with its status and request id" 'GET /ws/echo 101' "$(cat "$SERVER_OUT" "$SERVER_ERR")"
check_match "  (the access line carries request_id)" 'request_id=[^ ]+.*GET /ws/echo 101|GET /ws/echo 101.*request_id=' "$(grep 'GET /ws/echo 101' "$SERVER_OUT" "$SERVER_ERR" | head -n1)"

# The browser: 1,000 messages echoed, over ws:// and over wss:// (the development certificate
# trusted by its key's hash).
PAGE="file://$TESTS_DIR/websocket/echo-page.html"
for pair in "ws://|$WS_BASE/ws/echo|" "wss://|$WSS_BASE/ws/echo|--ignore-certificate-errors-spki-list=$spki"; do
    IFS='|' read -r scheme url flag <<<"$pair"
    report=$(timeout 60 python3 "$TESTS_DIR/browser/play.py" "$PAGE?url=$url" ${flag:+"$flag"} 2>&1 || echo "no report within 60 s")
    echo "  (Chromium $scheme: $report)"
    check_contains "Chromium over $scheme: 1,000 messages echoed" '"echoed":1000' "$report"
    check_contains "Chromium over $scheme: each as sent, in order" '"mismatches":0' "$report"
    check_contains "Chromium over $scheme: a clean close 1000" '"closeCode":1000,"wasClean":true' "$report"
    check_contains "Chromium over $scheme: permessage-deflate negotiated" '"extensions":"permessage-deflate; client_max_window_bits=12"' "$report"
done

# The drain: a socket open when SIGTERM comes gets close 1001, and the server exits 0.
drain_out="$WORK/drain.out"
timeout 30 python3 "$TESTS_DIR/websocket/client.py" "$WS_BASE/ws/echo" --drain >"$drain_out" 2>&1 &
drain_pid=$!
check "the drain's client connected" wait_for_line '^connected' "$drain_out" 10
stop_server TERM
wait "$drain_pid" || true
check_contains "SIGTERM: the open socket gets close 1001" 'closed 1001 server shutting down' "$(cat "$drain_out")"
check_eq "SIGTERM with an open WebSocket: the server exits 0" 0 "$EXIT_CODE"
