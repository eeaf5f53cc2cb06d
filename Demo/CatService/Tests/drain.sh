#!/usr/bin/env bash
# A rolling restart loses nothing: under a steady load (keep-alive HTTP/1.1 clients at a fixed
# rate, h2c clients multiplexing, and slow clip downloads in flight), SIGTERM stops the listener,
# every request the server received gets its whole response, later connections are refused, and
# the process exits 0 well within its --shutdown-grace-period.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

clip_size=$(stat -c %s "$CAT_MP4")
grace=20
# The access log tells which h2c requests the server answered (h2load only counts its own side).
start_server --shutdown-grace-period "$grace" --access-log

# One line per request: status, bytes, curl's exit code (7: could not connect).
format='%{http_code} %{size_download} %{exitcode}\n'
requests=1000

# keep_alive_client NAME: $requests sequential requests on one reused connection, 200 a second.
keep_alive_client() {
    local urls=() i
    for ((i = 0; i < requests; i++)); do urls+=(-o /dev/null "$BASE/api/emoji?count=3"); done
    "${CURL[@]}" --max-time 60 --rate 200/s -w "$format" "${urls[@]}" >"$WORK/$1.out" 2>/dev/null || true
}

echo "Load"
pids=()
for n in 1 2 3; do
    keep_alive_client "h1-$n" &
    pids+=($!)
done
# (curl 7.88 cannot reuse an h2c connection, curl/curl#10643: h2load is the h2c client.)
timeout 60 h2load -n $((2 * requests)) -c 2 -m 4 --rps 100 "$BASE/api/emoji?count=3" >"$WORK/h2c.out" 2>&1 &
pids+=($!)
# Clip downloads read at about 100 KB/s, so they are still arriving at the signal.
for n in 1 2; do
    "${CURL[@]}" --max-time 60 --limit-rate 100k -o "$WORK/clip-$n.mp4" -w "$format" "$BASE/api/clip" >"$WORK/clip-$n.out" 2>/dev/null &
    pids+=($!)
done

# The signal goes out mid-load: once every client has had some answers and the clips are arriving.
deadline=$((SECONDS + 30))
lines() { if [[ -f $WORK/$1.out ]]; then wc -l <"$WORK/$1.out"; else echo 0; fi; }
while ((SECONDS < deadline)); do
    if (($(lines h1-1) >= 20 && $(lines h1-2) >= 20 && $(lines h1-3) >= 20)) &&
        [[ -s $WORK/clip-1.mp4 && -s $WORK/clip-2.mp4 ]]; then break; fi
    sleep 0.05
done
check "every client was being answered before the signal" test "$SECONDS" -lt "$deadline"

started=$EPOCHREALTIME
kill -s TERM "$SERVER_PID"
wait_exit "$SERVER_PID" $((grace + 10))
elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
check_eq "SIGTERM mid-load: exits 0" 0 "$EXIT_CODE"
echo "  (exited ${elapsed} s after SIGTERM)"
check "it exits within the ${grace} s grace period" awk -v e="$elapsed" -v g="$grace" 'BEGIN { exit !(e < g) }'
for pid in "${pids[@]}"; do wait "$pid" || true; done

echo "Every request received was answered"
for n in 1 2; do
    check_eq "slow clip download $n, still arriving at the signal, is complete" "200 $clip_size 0" "$(cat "$WORK/clip-$n.out")"
    check "clip $n is the whole file" cmp -s "$CAT_MP4" "$WORK/clip-$n.mp4"
done
answered=0 refused=0 other=()
for name in h1-1 h1-2 h1-3; do
    while read -r code size exitcode; do
        if [[ $code == 200 && $size == 12 && $exitcode == 0 ]]; then
            answered=$((answered + 1))
        elif [[ $code == 000 && $size == 0 && $exitcode == 7 ]]; then
            refused=$((refused + 1))
        else
            other+=("$name: $code $size $exitcode")
        fi
    done <"$WORK/$name.out"
done
echo "  ($answered answered in full, $refused refused after the listener closed)"
check_eq "no HTTP/1.1 request was cut short, reset or answered with an error" "" "${other[*]:0:5}"
check_eq "every HTTP/1.1 request is accounted for" $((3 * requests)) $((answered + refused + ${#other[@]}))
check "the signal came mid-load: some requests were answered, later ones refused" test "$answered" -gt 0 -a "$refused" -gt 0
# h2load: "requests: N total, N started, N done, N succeeded, ...". It counts a request as started
# when it submits it; one submitted just after the shutdown notice arrived is never sent (nghttp2
# refuses new streams once a GOAWAY is in), and one on its way when the final GOAWAY went out is
# refused unprocessed, which RFC 9113 §6.8 lets the client retry: at most the 8 in flight
# (-c 2 -m 4). What must hold: every request the server answered (its access log) reached h2load
# whole, and nothing else is missing.
summary=$(grep -m1 '^requests:' "$WORK/h2c.out" || true)
echo "  (h2c: ${summary:-no summary})"
if [[ $summary =~ ([0-9]+)\ total,\ ([0-9]+)\ started,\ ([0-9]+)\ done,\ ([0-9]+)\ succeeded ]]; then
    answered_h2=$(grep -c 'protocol=HTTP/2 .*GET /api/emoji' "$SERVER_OUT" "$SERVER_ERR" | awk -F: '{ n += $2 } END { print n }')
    check_eq "h2c: every request the server answered succeeded at the client" "$answered_h2" "${BASH_REMATCH[4]}"
    check "h2c: the others (started, not answered) are at most the 8 in flight, refused unprocessed" \
        test $((BASH_REMATCH[2] - BASH_REMATCH[4])) -le 8
    check "h2c: the signal came mid-load" test "${BASH_REMATCH[2]}" -gt 0 -a "${BASH_REMATCH[2]}" -lt "${BASH_REMATCH[1]}"
else
    fail "h2load printed its summary" "$(shorten "$(cat "$WORK/h2c.out")")"
fi
check_contains "the log says it drained" "shutting down" "$(cat "$SERVER_ERR")"

echo "A request half received at the signal is answered"
start_server --shutdown-grace-period "$grace"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET /api/emoji?count=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&3
kill -s TERM "$SERVER_PID"
# The listener closes first: once a new connection is refused, the drain has begun.
deadline=$((SECONDS + 10))
while "${CURL[@]}" -o /dev/null "$BASE/api/emoji" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
check "the listener closed after SIGTERM" test "$SECONDS" -lt "$deadline"
printf 'User-Agent: drain.sh\r\n\r\n' >&3 || true  # fails only if the server dropped the connection
reply=$(timeout 10 cat <&3 | tr -d '\r' || true)
exec 3<&-
check_contains "it gets a 200" "HTTP/1.1 200 OK" "$reply"
check_contains "with Connection: close" "connection: close" "$(tr '[:upper:]' '[:lower:]' <<<"$reply")"
check_eq "and the whole body (two cats)" 2 "$(count_cats "${reply##*$'\n'}")"
wait_exit "$SERVER_PID" $((grace + 10))
check_eq "then it exits 0" 0 "$EXIT_CODE"
