#!/usr/bin/env bash
# deadline-memory.sh: an operation with a deadline costs nothing once its requests are done. The
# event stream's deadline is 600 s by default (getEmojiStream); 100,000 one-event streams in a row
# (h2load over HTTP/1.1, 4 keep-alive connections, loopback) must leave cat-service's resident
# memory within 1 MiB of where it stood after a warm-up. At 6112b08 each request held ~1.4 KB until
# its deadline passed (a cancelled Task.sleep): 100,000 requests, 140 MB for ten minutes.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
URL="$BASE/api/emoji/stream?count=1&interval_ms=0"
resident_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER_PID/status"; }
load() { timeout 120 h2load --h1 -n "$1" -c 4 -t 1 "$URL" 2>&1; }

# The warm-up grows what a server grows once (worker threads' arenas, caches, the allocator).
load 20000 >"$WORK/warmup.txt"
before=$(resident_kib)
load 100000 >"$WORK/load.txt"
after=$(resident_kib)
check_match "100,000 one-event streams, each with a 600 s deadline, all answered 2xx" \
    'status codes: 100000 2xx' "$(grep 'status codes' "$WORK/load.txt" || cat "$WORK/load.txt")"
growth=$((after - before))
echo "  resident: ${before} KiB after the warm-up, ${after} KiB after 100,000 more ($growth KiB)"
within=no
if ((growth < 1024)); then within=yes; fi
check_eq "resident memory within 1 MiB of where it started (grew $growth KiB)" yes "$within"
check "cat-service is alive after the load" is_running "$SERVER_PID"
