#!/usr/bin/env bash
# check-memory.sh PATH/TO/cat-service: the memory of a small server, held (issue 41). Run by
# `make test-memory` (part of `make test`) on the release cat-service that `make run` builds, started
# as `make run` starts it (validation on). It fails if the server:
#   - maps or links ICU or the rest of Foundation: lib_FoundationICU, libFoundationInternationalization,
#     libFoundation.so, or their code linked in (the release demo links the Swift runtime and
#     FoundationEssentials statically, the Makefile's DEMO_STATIC_STDLIB, so a static libFoundation.a
#     would not show as a mapping: the binary's symbols are read too). Whisker and the demo use
#     FoundationEssentials at most; one `import Foundation`, a `resources:` list's Bundle.module, or a
#     dependency's default trait brings all three back;
#   - links the shared libstdc++ (the demo's Package.swift links GCC's libstdc++.a through
#     Demo/CatService/StaticLibraries, a link to GCC 12's: with another GCC the link quietly takes the
#     shared library, 1.1 MiB more);
#   - uses more than MAX_IDLE_RSS_KIB (20480, 20 MiB) of resident memory once it answers (VmRSS, as
#     Benchmarks/bench.sh reads idle RSS; started with its binary out of the page cache, see below),
#     or more than MAX_PEAK_RSS_KIB (22528, 22 MiB) at its peak (VmHWM) after a bounded load of the
#     bench's shapes (h2load over HTTP/1.1: /api/emoji and ?count=3 over 64 connections,
#     ?count=100 compressed with Brotli, gzip and zstd, the clip over 8). Issue 41's goals are 20
#     and 22 MiB; the server idles at 19.3 to 19.6 and peaks at 21.1 to 21.3 since issue 42's zstd
#     load (20.5 before it; 22.4 and 23.5 before the demo's lean link, 33.4 with Foundation):
#     Performance.md, "What each MiB is", says where the MiB are.
# On failure it prints the mapped libraries and /proc/PID/smaps_rollup, to say what grew.
# It uses the demo tests' helpers (Demo/CatService/Tests/lib.sh) but is not one of run-all.sh's
# scripts: those run the debug build, whose memory says nothing about a deployed server.
source "$(dirname "${BASH_SOURCE[0]}")/../Demo/CatService/Tests/lib.sh"

MAX_IDLE_RSS_KIB=${MAX_IDLE_RSS_KIB:-20480}
MAX_PEAK_RSS_KIB=${MAX_PEAK_RSS_KIB:-22528}

# The binary is dropped from the page cache first, so that the server starts as after a reboot and
# its pages are read back from disk. How the file entered the cache otherwise moves idle RSS by up to
# 1.4 MiB (Performance.md, "What each MiB is"): a file just written, by the linker or by `cp`, sits
# in large folios that a page fault maps whole, code the server never runs included (a `cp` of the
# same binary idles at 20.7 MiB, its eviction at 19.2 to 19.6 on one machine). `sync FILE` writes
# the linker's dirty pages first, since only clean ones can be dropped; fincore says it worked.
sync -- "$CAT_SERVICE"
dd if="$CAT_SERVICE" iflag=nocache count=0 status=none
cached=$(fincore --noheadings --output PAGES "$CAT_SERVICE" 2>/dev/null | tr -d ' ' || true)
check_eq "the binary is out of the page cache before it starts (fincore: pages cached)" 0 "$cached"

start_server
request "$BASE/api/emoji"
check_eq "GET /api/emoji answers before the server's memory is read" 200 "$STATUS"

libraries=$(awk '$6 ~ /\.so/ { print $6 }' "/proc/$SERVER_PID/maps" | sort -u)
foundation=$(grep -E '/(lib_FoundationICU|libFoundationInternationalization|libFoundation)\.so' <<<"$libraries" || true)
check_eq "no ICU nor libFoundation mapped (FoundationEssentials at most)" "" "$foundation"
# Linked statically: Foundation's and FoundationInternationalization's Swift symbols, ICU's C++ ones.
linked=$(nm "$CAT_SERVICE" 2>/dev/null | grep -E -m 3 ' [$]s(10Foundation|30FoundationInternationalization)[0-9A-Z]|icu_[0-9]+' || true)
check_eq "no ICU nor libFoundation linked in (FoundationEssentials at most)" "" "$linked"

stdcxx=$(grep -E '/libstdc\+\+\.so' <<<"$libraries" || true)
check_eq "libstdc++ linked statically, not mapped (Demo/CatService/StaticLibraries)" "" "$stdcxx"

# status_kib FIELD: a /proc/PID/status field of the server, in KiB; mib KIB: it in MiB.
status_kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$SERVER_PID/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# at_most DESC KIB LIMIT: passes when KIB <= LIMIT.
at_most() {
    echo "  $1: $2 KiB ($(mib "$2") MiB), limit $3 KiB"
    if (($2 <= $3)); then pass "$1 at most $3 KiB"; else fail "$1 at most $3 KiB" "got $2 KiB"; fi
}

at_most "idle RSS" "$(status_kib VmRSS)" "$MAX_IDLE_RSS_KIB"

# The bench's load shapes, bounded by count (a few seconds in all), one core for the client.
# load N CONNECTIONS PATH [HEADER]: h2load over HTTP/1.1; every request must succeed.
load() {
    local n=$1 c=$2 path=$3 out
    out=$(timeout 60 h2load --h1 -n "$n" -c "$c" -t 1 ${4:+-H "$4"} "$BASE$path" 2>&1 || true)
    check_match "$n requests to $path over $c connections${4:+ ($4)} succeed" \
        "requests: $n total, $n started, $n done, $n succeeded" "$(grep -m1 '^requests:' <<<"$out" || true)"
}
load 40000 64 /api/emoji
load 20000 64 '/api/emoji?count=3'
load 4000 64 '/api/emoji?count=100' 'accept-encoding: br'
load 4000 64 '/api/emoji?count=100' 'accept-encoding: gzip'
load 4000 64 '/api/emoji?count=100' 'accept-encoding: zstd'
load 400 8 /api/clip
at_most "peak RSS (VmHWM) after the load" "$(status_kib VmHWM)" "$MAX_PEAK_RSS_KIB"

if ((FAILED > 0)); then
    echo "  mapped libraries:"
    sed 's/^/    /' <<<"$libraries"
    echo "  /proc/$SERVER_PID/smaps_rollup:"
    sed 's/^/    /' "/proc/$SERVER_PID/smaps_rollup"
fi
