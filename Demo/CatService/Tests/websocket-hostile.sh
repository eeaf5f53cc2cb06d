#!/usr/bin/env bash
# websocket-hostile.sh: frames that break RFC 6455 sent to /ws/echo over a raw socket
# (websocket/hostile.py): unmasked, RSV bits, reserved opcodes, oversized control frames,
# 64-bit lengths with the high bit, frames and messages over the 1 MiB limits (refused from the
# header, before the payload), invalid UTF-8 (also in a first fragment), fragment rules, invalid
# close codes and reasons, a flood of 10,000 pings; with permessage-deflate negotiated, RSV1 on
# control and continuation frames, bytes that are not DEFLATE, and the bomb (100 KB inflating to
# 100 MB: 1009, and the server's peak memory grows by less than 32 MB), beside a 1,000,000-byte
# compressible message echoed. Each gets its close code and a TCP close,
# beside the legitimate frame of the same shape; the server logs a readable line for each and
# stays up (a request after them is answered).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server
while IFS= read -r line; do
    case $line in
        PASS\ *) pass "${line#PASS }" ;;
        FAIL\ *) fail "${line#FAIL }" ;;
        *) echo "  ($line)" ;;
    esac
done < <(timeout 120 python3 "$TESTS_DIR/websocket/hostile.py" 127.0.0.1 "$PORT" "$SERVER_PID" 2>&1 || echo "FAIL hostile.py exited with status $?")
check_match "a readable log line names the breach" 'WebSocket failed with 1002 \(protocol error\): the peer sent an unmasked client frame' "$(cat "$SERVER_OUT" "$SERVER_ERR")"
request "$BASE/api/emoji"
check_eq "the server still answers after them" 200 "$STATUS"
check_match "a readable log line names the bomb" 'WebSocket failed with 1009 \(message too big\): the peer sent a compressed message that inflates past the limit of 1048576 bytes' "$(cat "$SERVER_OUT" "$SERVER_ERR")"
