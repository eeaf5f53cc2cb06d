#!/usr/bin/env bash
# The daemon itself: --help, the listening line, SIGTERM and SIGINT, and a port that is taken.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

echo "--help"
rc=0
help=$(timeout 20 "$CAT_SERVICE" --help 2>&1) || rc=$?
check_eq "--help exits 0" 0 "$rc"
check_contains "--help prints usage" "USAGE: cat-service" "$help"
for option in --host --port --log-level; do
    check_contains "--help describes $option" "$option" "$help"
done
# In an 80-column terminal nothing is wrapped twice: the overview and the discussion are written to fit,
# so ArgumentParser prints them as they are at any width (only the options' help is wrapped, once, by it).
narrow=$(COLUMNS=80 timeout 20 "$CAT_SERVICE" --help 2>&1 | sed '/^OPTIONS:/,$d')
wide=$(COLUMNS=400 timeout 20 "$CAT_SERVICE" --help 2>&1 | sed '/^OPTIONS:/,$d')
check_eq "--help: the overview reads the same at 80 columns as at 400 (no second wrapping)" "$wide" "$narrow"
longest=$(COLUMNS=80 timeout 20 "$CAT_SERVICE" --help 2>&1 | awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')
check_eq "--help: no line is wider than 80 columns" yes "$([[ $longest -le 80 ]] && echo yes || echo "no ($longest)")"

echo "Bad arguments"
rc=0
timeout 20 "$CAT_SERVICE" --port 70000 >/dev/null 2>&1 || rc=$?
check_ne "--port 70000 is refused" 0 "$rc"
rc=0
timeout 20 "$CAT_SERVICE" --log-level loud >/dev/null 2>&1 || rc=$?
check_ne "--log-level loud is refused" 0 "$rc"

echo "SIGTERM"
start_server
request "$BASE/api/emoji"
check_eq "it serves before the signal" 200 "$STATUS"
check_eq "exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server TERM
check_eq "SIGTERM: exits 0" 0 "$EXIT_CODE"
request "$BASE/api/emoji"
check_eq "after exit, the port no longer answers" 000 "$STATUS"

echo "SIGINT"
start_server --log-level debug
request "$BASE/api/clip"
check_eq "it serves before the signal" 200 "$STATUS"
stop_server INT
check_eq "SIGINT: exits 0" 0 "$EXIT_CODE"

echo "A second signal during the drain exits at once"
start_server --shutdown-grace-period 60
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET /api/emoji HTTP/1.1\r\n' >&3   # half a request: the drain waits for the rest
kill -s TERM "$SERVER_PID"
deadline=$((SECONDS + 10))
while "${CURL[@]}" -o /dev/null "$BASE/api/emoji" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
check "the first SIGTERM starts the drain (the listener closes)" test "$SECONDS" -lt "$deadline"
check "the drain waits for the half-sent request" is_running "$SERVER_PID"
started=$SECONDS
stop_server TERM
check_eq "the second SIGTERM exits 1 without draining" 1 "$EXIT_CODE"
check "well before the 60 s grace period" test $((SECONDS - started)) -lt 10
check_contains "and says so" "second SIGTERM received, exiting without draining" "$(cat "$SERVER_ERR")"
exec 3<&-

echo "A port already in use"
start_server
taken=$PORT
rc=0
timeout 20 "$CAT_SERVICE" --host 127.0.0.1 --port "$taken" >"$WORK/second.out" 2>"$WORK/second.err" || rc=$?
check_eq "a second cat-service on port $taken exits 1" 1 "$rc"
check_eq "it prints nothing on stdout" "" "$(cat "$WORK/second.out")"
check_match "its error names the address 127.0.0.1:$taken" "^cat-service: .*127\.0\.0\.1:$taken" "$(cat "$WORK/second.err")"
request "$BASE/api/emoji"
check_eq "the first one still answers" 200 "$STATUS"
