#!/usr/bin/env bash
# browser.sh: the talk's last step, /api/clip opened in a browser: headless Chromium (Debian's,
# installed by `make deps`) loads browser/clip-player.html, which plays the clip, seeks to 2.5 s
# and plays to the end; the page reports the metadata (3 s, 640x480), the seekable range (to
# 3.00: the server answers byte ranges), where the seek landed and where playback ended. Over
# HTTP/1.1 on the cleartext port, and over HTTPS, where Chromium chooses HTTP/2 by ALPN (the
# development certificate trusted by its key's hash, as --ignore-certificate-errors-spki-list
# does for one key only). The access log must show the 206 responses, and the protocol.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
spki=$(openssl x509 -in "$CERTS/localhost.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
start_server --access-log --tls-port 0 --tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem"
PAGE="file://$TESTS_DIR/browser/clip-player.html"

# play DESC URL [FLAGS...]: the page's report for URL, checked field by field.
play() {
    local desc=$1 url=$2 report
    shift 2
    report=$(timeout 60 python3 "$TESTS_DIR/browser/play.py" "$PAGE?src=$url" "$@" 2>&1 || echo "no report within 60 s")
    echo "  ($desc: $report)"
    check_contains "$desc: metadata 3 s" '"duration":"3.00"' "$report"
    check_contains "$desc: 640x480" '"size":"640x480"' "$report"
    check_contains "$desc: seekable to the end (3.00)" '"seekableEnd":"3.00"' "$report"
    check_contains "$desc: the seek lands at 2.50" '"seekedTo":"2.50"' "$report"
    check_contains "$desc: playback reaches 3.00" '"endedAt":"3.00"' "$report"
}

play "HTTP/1.1" "$BASE/api/clip"
check_match "HTTP/1.1: the access log shows the clip's 206" 'protocol=HTTP/1\.1 .*GET /api/clip 206' "$(cat "$SERVER_OUT" "$SERVER_ERR")"

play "HTTPS, HTTP/2" "$TLS_BASE/api/clip" "--ignore-certificate-errors-spki-list=$spki"
check_match "HTTP/2: the access log shows the clip's 206 over HTTP/2" 'protocol=HTTP/2 .*GET /api/clip 206' "$(cat "$SERVER_OUT" "$SERVER_ERR")"
