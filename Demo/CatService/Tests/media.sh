#!/usr/bin/env bash
# media.sh: /api/clip as a browser or media player fetches it. Byte ranges (RFC 9110 §14): every
# single-range form compared byte for byte with dd of the file, 416, several or malformed ranges
# answered whole, If-Range, HEAD, HTTP/2. Validators (§13): the clip's ETag, If-None-Match -> 304,
# If-Match -> 412, and the ETag Whisker makes for an in-memory body.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
size=$(wc -c <"$CAT_MP4" | tr -d ' ')
CLIP="$BASE/api/clip"

# range_is DESC RANGE FIRST COUNT [CURL-ARGS...]: 206, Content-Range and the bytes dd cuts from the file.
range_is() {
    local desc=$1 range=$2 first=$3 count=$4
    shift 4
    request "$@" -H "Range: bytes=$range" "$CLIP"
    check_eq "$desc: 206" 206 "$STATUS"
    check_eq "$desc: Content-Range" "bytes $first-$((first + count - 1))/$size" "$(header content-range)"
    check_eq "$desc: Content-Length" "$count" "$(header content-length)"
    dd if="$CAT_MP4" of="$WORK/expected" bs=1 skip="$first" count="$count" status=none
    check "$desc: the bytes are the file's, as dd cuts them" cmp "$BODY" "$WORK/expected"
}

request "$CLIP"
check_eq "a whole 200 says Accept-Ranges: bytes" bytes "$(header accept-ranges)"
range_is "first-last (bytes=1000-1999)" 1000-1999 1000 1000
range_is "first- (bytes=300000-)" 300000- 300000 $((size - 300000))
range_is "-suffix (bytes=-500)" -500 $((size - 500)) 500
range_is "a last past the end is clamped (bytes=$((size - 10))-99999999)" "$((size - 10))-99999999" $((size - 10)) 10
range_is "over HTTP/2 (h2c)" 4096-8191 4096 4096 --http2-prior-knowledge

request -H "Range: bytes=$size-" "$CLIP"
check_eq "a range starting at the end: 416" 416 "$STATUS"
check_eq "416 says the length: Content-Range bytes */$size" "bytes */$size" "$(header content-range)"
request -H "Range: bytes=0-9,20-29" "$CLIP"
check_eq "two ranges: the whole 200 (multipart/byteranges is not served)" "200 $size" "$STATUS $(wc -c <"$BODY" | tr -d ' ')"
request -H "Range: bytes=9-0" "$CLIP"
check_eq "a malformed range (last before first): ignored, 200" 200 "$STATUS"
request -H "Range: lines=1-2" "$CLIP"
check_eq "another unit: ignored, 200" 200 "$STATUS"

request -H "Range: bytes=0-99" -H "If-Range: \"no-such-tag\"" "$CLIP"
check_eq "If-Range that does not match: the whole 200" "200 $size" "$STATUS $(wc -c <"$BODY" | tr -d ' ')"

head_result=$("${CURL[@]}" --head -H "Range: bytes=0-99" -o /dev/null -w '%{http_code} %{size_download}' "$CLIP" || true)
check_eq "HEAD with a range mirrors GET: 206, no body" "206 0" "$head_result"
request --head -H "Range: bytes=0-99" "$CLIP"
check_eq "HEAD with a range: its Content-Range" "bytes 0-99/$size" "$(header content-range)"

request -H "Range: bytes=0-0" "$BASE/api/emoji?count=2"
check_eq "any GET route: the first byte of the cats" "206 1" "$STATUS $(wc -c <"$BODY" | tr -d ' ')"

request "$CLIP"
etag=$(header etag)
check_match "the clip has a strong ETag (set by ClipValidatorMiddleware, unencoded)" '^"[0-9a-f]+-[0-9a-f]+"$' "$etag"
request -H "If-None-Match: $etag" "$CLIP"
check_eq "If-None-Match with the clip's ETag: 304" 304 "$STATUS"
check_eq "304: no body" 0 "$(wc -c <"$BODY" | tr -d ' ')"
check_eq "304: the ETag again" "$etag" "$(header etag)"
check_eq "304: no Content-Type (representation fields are left out)" "" "$(header content-type)"
request -H "If-None-Match: W/$etag" "$CLIP"
check_eq "If-None-Match compares weakly: W/ of the tag is 304 too" 304 "$STATUS"
request -H "If-None-Match: \"other\"" "$CLIP"
check_eq "If-None-Match with another tag: 200" 200 "$STATUS"
request --http2-prior-knowledge -H "If-None-Match: $etag" "$CLIP"
check_eq "over HTTP/2: 304" 304 "$STATUS"
request -H "If-Match: \"other\"" "$CLIP"
check_eq "If-Match with another tag: 412" 412 "$STATUS"
range_is "If-Range with the clip's ETag: the range" 100-199 100 100 -H "If-Range: $etag"

request "$BASE/api/emoji"
emoji_etag=$(header etag)
check_match "an in-memory body (the cats) gets an ETag from Whisker" '^"[A-Za-z0-9_-]{11}"$' "$emoji_etag"
