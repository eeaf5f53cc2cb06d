#!/usr/bin/env bash
# slow-clients.sh: slowloris, slow POST and slow read (Debian's slowhttptest) against cat-service
# with its default limits (but a 3 s request-header timeout, so the first attack ends soon). Each
# attack holds many connections that trickle; a normal request must still be answered while it
# runs, and the server must end the trickling connections itself: slowloris by the header timeout
# (which runs from a head's first byte, so a trickle does not extend it), slow POST and slow read
# by the minimum data rates (240 bytes/s after 5 s: --min-request-body-rate, --min-response-rate),
# well before the 30 s stall timeouts that every trickle would otherwise reset.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server --request-header-timeout 3

# established_to_server: the server's established connections on its port (what the attack holds).
established_to_server() {
    ss -tnH state established "( sport = :$PORT )" | wc -l
}

# wait_established MIN SECONDS: waits (bounded) until the attack holds at least MIN connections.
wait_established() {
    local deadline=$((SECONDS + $2))
    while (($(established_to_server) < $1 && SECONDS < deadline)); do sleep 0.1; done
}

# wait_released SECONDS: waits (bounded) until the server holds no established connection; prints
# how long it waited.
wait_released() {
    local start=$SECONDS deadline=$((SECONDS + $1))
    while (($(established_to_server) > 0 && SECONDS < deadline)); do sleep 0.2; done
    echo $((SECONDS - start))
}

# served_during NAME: a normal request while the attack runs.
served_during() {
    request "$BASE/api/emoji?count=2"
    check_eq "$1: a normal request is answered during the attack" "200" "$STATUS"
}

# attack NAME SLOWHTTPTEST-ARGS...: runs slowhttptest in the background (bounded by its -l and a
# timeout), its report in $WORK/NAME.txt; sets ATTACK_PID.
attack() {
    local name=$1
    shift
    timeout 60 slowhttptest "$@" -p 3 -g -o "$WORK/$name" >"$WORK/$name.txt" 2>&1 &
    ATTACK_PID=$!
}

log_count() { grep -c -- "$1" "$SERVER_ERR" || true; }

# Slowloris: 100 connections each sending a header line every second, never the blank line.
attack slowloris -H -c 100 -r 100 -i 1 -x 8 -l 12 -u "$BASE/api/emoji"
wait_established 90 10
check "slowloris: the attack holds its connections" test "$(established_to_server)" -ge 90
served_during slowloris
waited=$(wait_released 10)
echo "  (slowloris: every connection released ${waited} s after the attack was at full strength)"
check "slowloris: the server closed every trickling connection (header timeout, 3 s)" test "$(established_to_server)" -eq 0
check "slowloris: 408 sent for the unfinished heads" test "$(log_count 'request header not received')" -ge 90
wait "$ATTACK_PID" || true

# Slow POST: 100 connections sending a 100,000-byte body 10 bytes a second.
attack slowpost -B -c 100 -r 100 -i 1 -x 10 -s 100000 -t POST -f text/plain -l 15 -u "$BASE/api/census"
wait_established 90 10
served_during "slow POST"
waited=$(wait_released 14)
echo "  (slow POST: every connection released ${waited} s after the attack was at full strength)"
check "slow POST: the server ended every trickling body before the 30 s stall timeout" test "$(established_to_server)" -eq 0
check "slow POST: 408 for bodies slower than 240 bytes/s" test "$(log_count 'request body slower than 240 bytes/s')" -ge 90
check "slow POST: no handler's cancellation is logged as a failure" test "$(log_count 'request failed')" -eq 0
wait "$ATTACK_PID" || true

# Slow read: 50 connections asking for the clip ten times each and reading 8 bytes a second
# through a window of a few bytes.
attack slowread -X -c 50 -r 50 -w 1 -y 4 -n 1 -z 8 -k 10 -l 16 -u "$BASE/api/clip"
wait_established 45 10
served_during "slow read"
waited=$(wait_released 15)
echo "  (slow read: every connection released ${waited} s after the attack was at full strength)"
check "slow read: the server reset every connection that reads too slowly" test "$(established_to_server)" -eq 0
check "slow read: each was logged" test "$(log_count 'reads the response too slowly')" -ge 45
wait "$ATTACK_PID" || true

request "$BASE/api/emoji"
check_eq "after the attacks cat-service serves as before" "200" "$STATUS"
stop_server
check_eq "cat-service exits 0 after the attacks" "0" "$EXIT_CODE"
