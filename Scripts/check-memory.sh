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
#   - uses more than MAX_IDLE_RSS_KIB (24576, 24 MiB) of resident memory once it answers (VmRSS,
#     as Benchmarks/bench.sh reads idle RSS). The issue's goal is 20 MiB; the server idles at 23.1 MiB
#     (25.7 before the static runtime and the schema patterns' own matcher, 33.4 with Foundation), so
#     the bound holds what was won with a margin for the machine and comes down as the rest does
#     (Performance.md, "What each MiB is", says where the MiB are).
# On failure it prints the mapped libraries and /proc/PID/smaps_rollup, to say what grew.
# It uses the demo tests' helpers (Demo/CatService/Tests/lib.sh) but is not one of run-all.sh's
# scripts: those run the debug build, whose memory says nothing about a deployed server.
source "$(dirname "${BASH_SOURCE[0]}")/../Demo/CatService/Tests/lib.sh"

MAX_IDLE_RSS_KIB=${MAX_IDLE_RSS_KIB:-24576}

start_server
request "$BASE/api/emoji"
check_eq "GET /api/emoji answers before the server's memory is read" 200 "$STATUS"

libraries=$(awk '$6 ~ /\.so/ { print $6 }' "/proc/$SERVER_PID/maps" | sort -u)
foundation=$(grep -E '/(lib_FoundationICU|libFoundationInternationalization|libFoundation)\.so' <<<"$libraries" || true)
check_eq "no ICU nor libFoundation mapped (FoundationEssentials at most)" "" "$foundation"
# Linked statically: Foundation's and FoundationInternationalization's Swift symbols, ICU's C++ ones.
linked=$(nm "$CAT_SERVICE" 2>/dev/null | grep -E -m 3 ' [$]s(10Foundation|30FoundationInternationalization)[0-9A-Z]|icu_[0-9]+' || true)
check_eq "no ICU nor libFoundation linked in (FoundationEssentials at most)" "" "$linked"

rss_kib=$(awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status")
echo "  idle RSS: $rss_kib KiB ($(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB), limit $MAX_IDLE_RSS_KIB KiB"
if ((rss_kib <= MAX_IDLE_RSS_KIB)); then
    pass "idle RSS at most $MAX_IDLE_RSS_KIB KiB"
else
    fail "idle RSS at most $MAX_IDLE_RSS_KIB KiB" "got $rss_kib KiB"
fi

if ((FAILED > 0)); then
    echo "  mapped libraries:"
    sed 's/^/    /' <<<"$libraries"
    echo "  /proc/$SERVER_PID/smaps_rollup:"
    sed 's/^/    /' "/proc/$SERVER_PID/smaps_rollup"
fi
