#!/usr/bin/env bash
# Benchmarks/Shared/make-clip.sh: how clip-1MiB.mp4 (the benchmark's 1 MiB /api/clip body) was made.
#
# A 10-second 640x480 25 fps H.264 clip of ffmpeg's testsrc2 pattern, two-pass at 835 kb/s, which
# lands at 1,049,119 bytes (1 MiB + 543) with ffmpeg 5.1.9 (Debian 12) / libx264; no audio, no
# metadata, moov atom first. The committed file is what the benchmark serves (bench.sh passes it to
# every server through CAT_CLIP); rerunning this script with another ffmpeg or x264 may give a few
# bytes more or less.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=(-f lavfi -i testsrc2=size=640x480:rate=25 -t 10 -c:v libx264 -preset medium -b:v 835k -passlogfile "$tmp/pass")
ffmpeg -v error -y "${src[@]}" -pass 1 -an -f mp4 /dev/null
ffmpeg -v error -y "${src[@]}" -pass 2 -pix_fmt yuv420p -movflags +faststart -map_metadata -1 \
    -fflags +bitexact -flags:v +bitexact "$tmp/clip.mp4"
mv "$tmp/clip.mp4" clip-1MiB.mp4
stat -c '%s bytes: %n' clip-1MiB.mp4
