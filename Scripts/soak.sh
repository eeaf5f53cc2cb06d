#!/usr/bin/env bash
# soak.sh PATH/TO/cat-service: a few minutes of mixed load on loopback (`make soak`; not part of
# `make test`). At once, for SOAK_SECONDS (180):
#   - HTTP/1.1 keep-alive, h2c and h2 over TLS (h2load, 8, 8 and 4 connections);
#   - 20 MiB uploads to /api/census, one after another;
#   - event-stream clients that leave after a second, midway through their events;
#   - clients that reset mid-clip (curl gives up after 0.2 s at 200 KB/s, over HTTP/1.1 and h2c);
#   - a certificate reload (SIGHUP, the renewed certificate and back) every 10 s.
# Every 10 s it samples the server's resident memory, threads and open descriptors. At the end it
# checks that no request failed that should not have (h2load: 0 failed, 0 errored; every upload
# counted; every event-stream client got events; every reload logged), that the server still
# answers, and that descriptors and threads come back to their count before the load.
set -euo pipefail
export LC_ALL=C

CAT_SERVICE=${1:?usage: soak.sh PATH/TO/cat-service}
SOAK_SECONDS=${SOAK_SECONDS:-180}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/whisker-soak.XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [[ -n ${SERVER:-} ]]; then kill -TERM "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
FAILURES=0
fail() { echo "  FAIL  $*"; FAILURES=$((FAILURES + 1)); }
pass() { echo "  PASS  $*"; }

cp "$ROOT/Tests/Certificates/localhost.pem" "$WORK/cert.pem"
cp "$ROOT/Tests/Certificates/localhost-key.pem" "$WORK/key.pem"
"$CAT_SERVICE" --host 127.0.0.1 --port 0 --tls-port 0 --tls-certificate "$WORK/cert.pem" --tls-private-key "$WORK/key.pem" \
    --no-access-log >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER=$!
for _ in $(seq 1 200); do
    grep -q 'listening on https://' "$WORK/server.out" 2>/dev/null && break
    sleep 0.05
done
PORT=$(sed -n 's|^cat-service listening on http://127.0.0.1:\([0-9]*\)$|\1|p' "$WORK/server.out")
TLS_PORT=$(sed -n 's|^cat-service listening on https://127.0.0.1:\([0-9]*\)$|\1|p' "$WORK/server.out")
[[ -n $PORT && -n $TLS_PORT ]] || { echo "cat-service did not start: $(cat "$WORK/server.err")"; exit 1; }
BASE="http://127.0.0.1:$PORT"

threads() { awk '/^Threads:/ { print $2 }' "/proc/$SERVER/status"; }
descriptors() { ls "/proc/$SERVER/fd" | wc -l; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$SERVER/status"; }
sample() { printf '  %5s s  rss %6d KiB  threads %3d  descriptors %4d\n' "$1" "$(rss_kib)" "$(threads)" "$(descriptors)"; }

# One request of each kind first, so that what the process makes once, lazily, exists before the
# baseline: the first event stream's timer, for one, makes libdispatch open a timerfd for good.
curl -s -o /dev/null "$BASE/api/emoji"
curl -s -o /dev/null --max-time 5 "$BASE/api/emoji/stream?count=2&interval_ms=10"
START_THREADS=$(threads)
START_FDS=$(descriptors)
echo "soak: cat-service pid $SERVER on $BASE and https://localhost:$TLS_PORT for ${SOAK_SECONDS} s"
sample 0

END=$((SECONDS + SOAK_SECONDS))
h2load --h1 -D "$SOAK_SECONDS" -c 8 "$BASE/api/emoji?count=3" >"$WORK/h1.txt" 2>&1 &
PIDS+=($!)
h2load -D "$SOAK_SECONDS" -c 8 -m 8 "$BASE/api/emoji?count=3" >"$WORK/h2c.txt" 2>&1 &
PIDS+=($!)
h2load -D "$SOAK_SECONDS" -c 4 -m 8 "https://127.0.0.1:$TLS_PORT/api/emoji" >"$WORK/h2.txt" 2>&1 &
PIDS+=($!)

head -c $((20 << 20)) /dev/zero | tr '\0' 'a' >"$WORK/upload.txt"
(
    while ((SECONDS < END)); do
        curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X POST -H 'Content-Type: text/plain' \
            --data-binary @"$WORK/upload.txt" "$BASE/api/census" >>"$WORK/uploads.txt" || echo "curl-$?" >>"$WORK/uploads.txt"
    done
) &
PIDS+=($!)
(
    while ((SECONDS < END)); do
        events=$(curl -s -N --max-time 1 "$BASE/api/emoji/stream?count=100&interval_ms=100" | grep -c '^data:' || true)
        echo "$events" >>"$WORK/events.txt"
    done
) &
PIDS+=($!)
(
    while ((SECONDS < END)); do
        curl -s -o /dev/null --max-time 0.2 --limit-rate 200K "$BASE/api/clip" || true
        curl -s -o /dev/null --max-time 0.2 --limit-rate 200K --http2-prior-knowledge "$BASE/api/clip" || true
        echo reset >>"$WORK/clip-resets.txt"
    done
) &
PIDS+=($!)

reloads=0
next_sample=$((SECONDS + 10))
while ((SECONDS < END)); do
    sleep 1
    if ((SECONDS >= next_sample)); then
        # The renewed certificate, then back: each reload is a real change.
        if ((reloads % 2 == 0)); then
            cp "$ROOT/Tests/Certificates/localhost-renewed.pem" "$WORK/cert.pem"
            cp "$ROOT/Tests/Certificates/localhost-renewed-key.pem" "$WORK/key.pem"
        else
            cp "$ROOT/Tests/Certificates/localhost.pem" "$WORK/cert.pem"
            cp "$ROOT/Tests/Certificates/localhost-key.pem" "$WORK/key.pem"
        fi
        kill -HUP "$SERVER"
        reloads=$((reloads + 1))
        sample $((SOAK_SECONDS - (END - SECONDS)))
        next_sample=$((next_sample + 10))
    fi
done
for pid in "${PIDS[@]}"; do wait "$pid" || true; done
PIDS=()
sample end

echo "soak: results"
for load in h1 h2c h2; do
    line=$(grep -E '^requests:' "$WORK/$load.txt" || true)
    echo "  $load: $line"
    failed=$(sed -n 's/.* \([0-9]*\) failed, \([0-9]*\) errored.*/\1 \2/p' <<<"$line")
    if [[ $failed == "0 0" ]]; then pass "$load: no request failed or errored"; else fail "$load: $line"; fi
done
uploads=$(wc -l <"$WORK/uploads.txt")
bad_uploads=$(grep -vc '^200$' "$WORK/uploads.txt" || true)
echo "  uploads of 20 MiB: $uploads, not 200: $bad_uploads"
if ((uploads > 0 && bad_uploads == 0)); then pass "every 20 MiB upload was counted (200)"; else fail "uploads: $(sort "$WORK/uploads.txt" | uniq -c | tr '\n' ' ')"; fi
streams=$(wc -l <"$WORK/events.txt")
empty=$(grep -c '^0$' "$WORK/events.txt" || true)
echo "  event-stream clients that left midway: $streams, with no event: $empty"
if ((streams > 0 && empty == 0)); then pass "every event-stream client got events before leaving"; else fail "event streams: $empty of $streams got nothing"; fi
echo "  clip downloads reset midway: $(($(wc -l <"$WORK/clip-resets.txt") * 2))"
logged_reloads=$(grep -c 'reloaded the TLS certificate' "$WORK/server.err" || true)
if ((logged_reloads == reloads)); then pass "$reloads certificate reloads, each logged"; else fail "$reloads reloads sent, $logged_reloads logged"; fi
if [[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/emoji") == 200 ]]; then pass "the server answers after the soak"; else fail "the server does not answer"; fi
errors=$(grep -cE ' (error|critical) ' "$WORK/server.err" || true)
if ((errors == 0)); then pass "no error logged"; else fail "$errors error lines: $(grep -E ' (error|critical) ' "$WORK/server.err" | head -3)"; fi

# Connections close (lingering closes end within 2 s) and Dispatch lets idle threads go: wait for
# both, bounded.
for _ in $(seq 1 60); do
    (($(descriptors) <= START_FDS && $(threads) <= START_THREADS)) && break
    sleep 0.5
done
sample settled
if (($(descriptors) <= START_FDS)); then pass "descriptors back to $START_FDS"; else fail "descriptors: $(descriptors), $START_FDS before the load"; fi
if (($(threads) <= START_THREADS)); then pass "threads back to $START_THREADS"; else fail "threads: $(threads), $START_THREADS before the load"; fi
echo "soak: $FAILURES failed"
((FAILURES == 0))
