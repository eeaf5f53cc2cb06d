#!/usr/bin/env bash
# browser-events.sh: GET /api/emoji/stream in a real browser. Headless Chromium (installed by `make
# deps`) opens a page of the server and listens with its own EventSource (browser/events.py): every
# event arrives, with its id, zstd-compressed (Chromium offers it and the server prefers it), over
# HTTP/1.1 on the cleartext port and over HTTPS, where Chromium chooses HTTP/2 by ALPN. Closing the EventSource after the first of three events 5 s apart ends the
# handler at once: the access log's duration is well under the 5 s sleep before the next event.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
spki=$(openssl x509 -in "$CERTS/localhost.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
start_server --access-log --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"

# listen DESC BASE PATH COUNT [FLAGS...]: events.py's report; sets REPORT.
listen() {
    local desc=$1 base=$2 path=$3 count=$4
    shift 4
    REPORT=$(timeout 60 python3 "$TESTS_DIR/browser/events.py" "$base/api/emoji" "$path" "$count" "$@" 2>&1 || echo "no report within 60 s")
    echo "  ($desc: $REPORT)"
}

# ids REPORT: the events' ids, space-separated; cats REPORT: how many events carry one cat.
ids() { python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.loads(sys.argv[1])["events"]))' "$1" 2>/dev/null || echo "no report"; }
encoding() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("encoding", "not seen"))' "$1" 2>/dev/null || echo "no report"; }
cats() { python3 -c 'import json,sys; print(sum(e["data"] in set(sys.argv[2]) for e in json.loads(sys.argv[1])["events"]))' "$1" "$CATS" 2>/dev/null || echo 0; }

for scheme in http https; do
    if [[ $scheme == http ]]; then base=$BASE desc="HTTP/1.1" flags=(); else base=$TLS_BASE desc="HTTPS, HTTP/2" flags=("--ignore-certificate-errors-spki-list=$spki"); fi
    listen "$desc" "$base" "/api/emoji/stream?count=5&interval_ms=100&from=$scheme" 5 "${flags[@]}"
    check_eq "$desc: EventSource gets five events, ids 1 to 5" "1 2 3 4 5" "$(ids "$REPORT")"
    check_eq "$desc: each event's data is one cat" 5 "$(cats "$REPORT")"
    check_eq "$desc: compressed as Chromium asks (Accept-Encoding: gzip, deflate, br, zstd), zstd, flushed per event" zstd "$(encoding "$REPORT")"
    # 200, or 499 when the page closes its EventSource on the fifth event before the stream's end
    # reaches it (a loaded machine): either way the line names the protocol.
    line=$(wait_for_line "GET /api/emoji/stream\\?count=5&interval_ms=100&from=$scheme (200|499)" "$SERVER_ERR" 5)
    check_match "$desc: the access log shows the stream and its protocol" "protocol=$([[ $scheme == http ]] && echo 'HTTP/1\.1' || echo 'HTTP/2')" "$line"

    listen "$desc, closed after one event" "$base" "/api/emoji/stream?count=3&interval_ms=5000&from=$scheme-close" 1 "${flags[@]}"
    check_eq "$desc: closing EventSource: the first event came" 1 "$(ids "$REPORT")"
    line=$(wait_for_line "GET /api/emoji/stream\\?count=3&interval_ms=5000&from=$scheme-close 499" "$SERVER_ERR" 5)
    duration=$(sed -n 's/.*duration_ms=\([0-9]*\).*/\1/p' <<<"$line")
    check "$desc: closing EventSource ends the handler at once (${duration:-no access line} ms, not 5000)" test "${duration:-99999}" -lt 2500
done
