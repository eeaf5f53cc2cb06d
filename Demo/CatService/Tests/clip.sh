#!/usr/bin/env bash
# GET /api/clip: the bundled MP4, byte for byte, and still a playable H.264 video.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server

size=$(wc -c <"$CAT_MP4" | tr -d ' ')

echo "GET /api/clip"
request "$BASE/api/clip"
check_eq "status is 200" 200 "$STATUS"
check_eq "content-type is video/mp4" video/mp4 "$(header content-type)"
check_eq "content-length is the file's size ($size)" "$size" "$(header content-length)"
check "the download is byte-identical to Resources/cat.mp4" cmp "$BODY" "$CAT_MP4"

clip="$WORK/clip.mp4"
cp "$BODY" "$clip"
check_eq "ffprobe reads the video stream as h264" h264 \
    "$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name -of default=noprint_wrappers=1:nokey=1 "$clip")"
check_match "ffprobe reads the container as mp4/mov" '(^|,)(mp4|mov)(,|$)' \
    "$(ffprobe -v error -show_entries format=format_name -of default=noprint_wrappers=1:nokey=1 "$clip")"
check_match "ffprobe reads a duration of about 3 s" '^(2\.9|3\.0)' \
    "$(ffprobe -v error -show_entries format=duration -of default=noprint_wrappers=1:nokey=1 "$clip")"
check "ffmpeg decodes every frame without an error" \
    bash -c "[[ -z \$(ffmpeg -nostdin -v error -i '$clip' -f null - 2>&1) ]]"

echo "Two clips on one connection"
out=$("${CURL[@]}" -o "$WORK/c1" -o "$WORK/c2" --write-out '%{http_code} %{num_connects}\n' \
    "$BASE/api/clip" "$BASE/api/clip" 2>&1 || true)
check_eq "both 200, the second on the first's connection" $'200 1\n200 0' "$out"
check "both copies are byte-identical to Resources/cat.mp4" bash -c "cmp '$WORK/c1' '$CAT_MP4' && cmp '$WORK/c2' '$CAT_MP4'"
