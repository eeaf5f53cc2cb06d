#!/usr/bin/env bash
# orphans.sh: slow readers must not leave the server's kernel holding their responses after the
# close (issue 38, defect 6). 20 clients pipelining three clips (975 KB) and reading 16 bytes a
# second: everything is in the server's send buffers at once, so the connections go idle, and at
# 6112b08 the idle close turned them into 20 orphaned sockets in FIN-WAIT-1 holding 19.4 MB that
# the kernel went on delivering at the clients' pace. Now an idle connection whose client still
# has bytes to take is looked at again one idle period later and reset (SO_LINGER 0) unless the
# client took them at the minimum response rate (IdleDrainCheck). The same shape read fast
# enough must stay whole: a slow download that keeps going, and a `Connection: close` response
# (a FIN after the body, never a reset). With --idle-timeout 1 the whole script takes ~15 s.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PROBE=(timeout 60 python3 "$TESTS_DIR/slowread.py")

# (--request-body-timeout 1: HTTP/2 finds its idle deadline at its next check of the streams, which
# runs at the shortest of the body and write timeouts and the body rate's grace period.)
start_server --idle-timeout 1 --request-body-timeout 1
answer=$("${PROBE[@]}" "$PORT" orphans 20 5 2>&1 || true)
echo "  ($answer, 5 s after the requests, the idle timeout 1 s)"
check_match "20 slow readers of pipelined clips: no socket of the server holds unsent bytes 5 s on" \
    '^sockets holding: 0 ' "$answer"

answer=$("${PROBE[@]}" "$PORT" orphans-h2 20 5 2>&1 || true)
echo "  (h2c: $answer)"
check_match "the same over h2c (windows opened to 2 GB): no socket of the server holds unsent bytes 5 s on" \
    '^sockets holding: 0 ' "$answer"
check "each slow h2c reader's connection was reset, and logged" \
    test "$(grep -c 'stopped reading its responses; resetting' "$SERVER_OUT" "$SERVER_ERR" | awk -F: '{ n += $2 } END { print n }')" -ge 20

answer=$("${PROBE[@]}" "$PORT" whole close 2>&1 || true)
check_eq "Connection: close, read at 160 KB/s through a 16 KB window (past the idle timeout): the clip arrives whole, then a FIN" \
    "body: 325054 of 325054 bytes, then EOF" "$answer"
answer=$("${PROBE[@]}" "$PORT" whole keep 2>&1 || true)
check_eq "keep-alive, read at 160 KB/s (three idle periods): the clip arrives whole, then the idle close is a FIN" \
    "body: 325054 of 325054 bytes, then EOF" "$answer"

request "$BASE/api/emoji"
check_eq "after the slow readers cat-service serves as before" "200" "$STATUS"
stop_server
check_eq "cat-service exits 0 after the slow readers" "0" "$EXIT_CODE"
