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
