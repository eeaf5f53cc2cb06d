#!/usr/bin/env bash
# compression.sh: response compression as curl sees it. Text of 256 bytes and up is coded as the
# client's Accept-Encoding prefers (curl --compressed offers zstd, br and gzip at the same weight,
# so the server's order, zstd first, decides), decodes to the same bytes,
# and carries Vary: Accept-Encoding and a weak ETag; small bodies, the clip,
# ranges and clients that ask for nothing get the identity body; over HTTP/2 too; --no-compression
# turns it off. (The event stream, compressed per event, is in events.sh.)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
HUNDRED="/api/emoji?count=100"

# hundred_cats FILE: "ok" when FILE is one cat repeated 100 times (400 bytes), else what it is.
hundred_cats() {
    local body
    body=$(cat "$1")
    if [[ $(count_cats "$body") == 100 && $(distinct_characters "$body") == 1 && $(wc -c <"$1" | tr -d ' ') == 400 ]]; then echo ok; else echo "$(wc -c <"$1" | tr -d ' ') bytes: $(shorten "$body")"; fi
}

echo "curl --compressed: zstd, decoded to the same 400 bytes"
request --compressed "$BASE$HUNDRED"
check_eq "200" 200 "$STATUS"
check_eq "Content-Encoding: zstd (curl offers deflate, gzip, br, zstd; the server prefers zstd)" zstd "$(header content-encoding)"
check_eq "the decoded body is one cat, 100 times" ok "$(hundred_cats "$BODY")"
check_eq "Vary: Accept-Encoding" Accept-Encoding "$(header vary)"
check "Content-Length is the coded length, under 400 ($(header content-length))" test "$(header content-length)" -lt 400
# (The cat is random, so is the ETag: that the weak tag revalidates to a 304 is in
# Tests/WhiskerCompressionTests/CompressionWireTests.swift.)
check_match "the ETag is weak (W/\"...\")" '^W/"' "$(header etag)"

request --compressed -H 'Accept-Encoding: br, gzip' "$BASE$HUNDRED"
check_eq "Accept-Encoding: br, gzip: br, decoded by curl to one cat, 100 times" "br ok" "$(header content-encoding) $(hundred_cats "$BODY")"

echo "gzip on the wire, decoded by Python's gzip"
request --raw -H 'Accept-Encoding: gzip' "$BASE$HUNDRED"
check_eq "Accept-Encoding: gzip: Content-Encoding: gzip" gzip "$(header content-encoding)"
python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.decompress(open(sys.argv[1], "rb").read()))' "$BODY" >"$WORK/gunzipped" 2>&1 || true
check_eq "the gzip body decodes to one cat, 100 times" ok "$(hundred_cats "$WORK/gunzipped")"
request --raw -H 'Accept-Encoding: br;q=0.5, gzip;q=0.8' "$BASE$HUNDRED"
check_eq "q-values: gzip;q=0.8 beats br;q=0.5" gzip "$(header content-encoding)"
request --raw -H 'Accept-Encoding: gzip;q=0, br;q=0' "$BASE$HUNDRED"
check_eq "q=0 for both: the identity body, 400 bytes" "- 400" "$(header content-encoding || true)- $(header content-length)"

echo "zstd on the wire, decoded by the zstd tool"
request --raw -H 'Accept-Encoding: zstd' "$BASE$HUNDRED"
check_eq "Accept-Encoding: zstd: Content-Encoding: zstd" zstd "$(header content-encoding)"
zstd -q -d -c <"$BODY" >"$WORK/unzstd" 2>&1 || true
check_eq "the zstd body decodes to one cat, 100 times" ok "$(hundred_cats "$WORK/unzstd")"
request --raw -H 'Accept-Encoding: zstd;q=0.5, br;q=0.8, gzip;q=0.1' "$BASE$HUNDRED"
check_eq "q-values: br;q=0.8 beats zstd;q=0.5" br "$(header content-encoding)"
request --http2-prior-knowledge --raw -H 'Accept-Encoding: zstd' "$BASE$HUNDRED"
zstd -q -d -c <"$BODY" >"$WORK/unzstd" 2>&1 || true
check_eq "h2c, zstd: decoded by the zstd tool to one cat, 100 times" "zstd ok" "$(header content-encoding) $(hundred_cats "$WORK/unzstd")"

echo "What stays as it is"
request "$BASE$HUNDRED"
check_eq "no Accept-Encoding: identity, Content-Length 400" " 400" "$(header content-encoding) $(header content-length)"
check_eq "no Accept-Encoding: Vary: Accept-Encoding all the same" Accept-Encoding "$(header vary)"
request --compressed "$BASE/api/emoji?count=3"
check_eq "12 bytes (under 256): not coded, no Vary" "200  " "$STATUS $(header content-encoding) $(header vary)"
request --compressed "$BASE/api/clip"
check_eq "the clip (video/mp4): not coded, byte-identical" "$(sha256sum <"$CAT_MP4" | cut -d' ' -f1)" "$(header content-encoding)$(sha256sum <"$BODY" | cut -d' ' -f1)"
request --compressed -H 'Range: bytes=0-99' "$BASE/api/emoji?count=100"
check_eq "a range of the emoji: 206, not coded, 100 bytes" "206  100" "$STATUS $(header content-encoding) $(wc -c <"$BODY" | tr -d ' ')"

echo "HTTP/2"
request --http2-prior-knowledge --compressed "$BASE$HUNDRED"
check_eq "h2c --compressed: zstd, decoded to one cat, 100 times" "zstd ok" "$(header content-encoding) $(hundred_cats "$BODY")"

echo "--no-compression"
start_server --no-compression
request --compressed "$BASE$HUNDRED"
check_eq "--no-compression: identity, 400 bytes, no Vary" " 400 " "$(header content-encoding) $(header content-length) $(header vary)"
