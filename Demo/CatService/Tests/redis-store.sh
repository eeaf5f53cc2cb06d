#!/usr/bin/env bash
# redis-store.sh: three cat-service instances behind a real HAProxy (round robin, PROXY protocol
# v2) share adoptCat's rate limit in a real redis-server (Debian's, from `make deps`), both started
# here on loopback: a limit of N a minute admits N ± 5% in all, not 3N, and an Idempotency-Key's
# answer is replayed by whichever instance a retry reaches. Then Redis is killed
# mid-test: instances that fail open keep adopting (unlimited, and say so in no RateLimit field),
# one that fails closed answers 503 with Retry-After; each logs that Redis is unavailable, counts
# it in its metrics, does not crash, and counts again once Redis is back. Bad store settings are
# refused at start, naming the flag, the variable or the key.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for tool in redis-server haproxy; do
    if ! command -v "$tool" >/dev/null; then
        fail "$tool is installed (make deps)"
        exit 1
    fi
done

REDIS_PORT=$(free_port)
REDIS_PID=""
# start_redis: a redis-server on 127.0.0.1:REDIS_PORT without persistence, waited for.
start_redis() {
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --dir "$WORK" >>"$WORK/redis.out" 2>&1 &
    REDIS_PID=$!
    if ! wait_for_port "$REDIS_PORT"; then
        fail "redis-server starts on 127.0.0.1:$REDIS_PORT" "$(shorten "$(cat "$WORK/redis.out")")"
        exit 1
    fi
}
start_redis

N=100
STORE="redis://127.0.0.1:$REDIS_PORT"
PORTS=() ERRS=() PIDS=()
for n in 1 2 3; do
    start_server --access-log --adoption-rate-limit "$N/60" --store "$STORE" --trusted-proxy 127.0.0.1 --proxy-protocol http
    PORTS+=("$PORT") ERRS+=("$SERVER_ERR") PIDS+=("$SERVER_PID")
done
# A fourth instance, reached directly: it fails closed, and serves its metrics.
start_server --adoption-rate-limit "$N/60" --store "$STORE" --store-failure refuse --metrics
CLOSED_BASE=$BASE CLOSED_ERR=$SERVER_ERR

FRONT_PORT=$(free_port)
# Demo/proxies/haproxy-replicas.cfg, the one Sources/Whisker/Whisker.docc/SharedRateLimits.md shows, with this run's ports.
sed -e "s|@FRONT_PORT@|$FRONT_PORT|g" -e "s|@PORT1@|${PORTS[0]}|g" -e "s|@PORT2@|${PORTS[1]}|g" -e "s|@PORT3@|${PORTS[2]}|g" \
    "$DEMO_DIR/../proxies/haproxy-replicas.cfg" >"$WORK/haproxy.cfg"
check_eq "every placeholder of haproxy-replicas.cfg is filled" "" "$(grep -o '@[A-Z0-9_]*@' "$WORK/haproxy.cfg" || true)"
haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.out" 2>&1 &
HAPROXY_PID=$!
trap 'rc=$?; kill -TERM $HAPROXY_PID ${REDIS_PID:-} 2>/dev/null || true; wait $HAPROXY_PID ${REDIS_PID:-} 2>/dev/null || true; (exit $rc); finish' EXIT
if ! wait_for_port "$FRONT_PORT"; then
    fail "haproxy starts" "$(shorten "$(cat "$WORK/haproxy.out")")"
    exit 1
fi
FRONT="http://127.0.0.1:$FRONT_PORT"

# adopt_many COUNT FILE: COUNT adoptions from 127.0.0.2 through HAProxy, 8 at a time, each on a
# connection of its own (so that round robin spreads them); their statuses go to FILE.
adopt_many() {
    seq "$1" | xargs -P 8 -I{} "${CURL[@]}" --interface 127.0.0.2 -o /dev/null -w '%{http_code}\n' \
        -H 'Content-Type: application/json' -d '{"name": "Tom {}"}' "$FRONT/api/adopt" >"$2" 2>>"$WORK/curl.err" || true
}

echo "$((3 * N)) adoptions from one client through HAProxy to 3 instances, a limit of $N a minute in Redis"
started=$SECONDS
adopt_many $((3 * N)) "$WORK/codes"
elapsed=$((SECONDS - started))
admitted=$(grep -c '^201$' "$WORK/codes" || true)
refused=$(grep -c '^429$' "$WORK/codes" || true)
check_eq "every request was answered 201 or 429" "$((3 * N))" "$((admitted + refused))"
# The bucket refills at N a minute while the test runs: N/60 per second more at most.
in_range=no
if ((admitted * 100 >= N * 95 && admitted * 100 <= N * 105)); then in_range=yes; fi
check_eq "$admitted admitted in ${elapsed} s: $N ± 5%, not $((3 * N))" yes "$in_range"
echo "  (admitted $admitted of $((3 * N)), refused $refused)"
for n in 0 1 2; do
    served=$(grep -c 'POST /api/adopt ' "${ERRS[$n]}" || true)
    in_range=no
    if ((served >= N / 2)); then in_range=yes; fi
    check_eq "instance $((n + 1)) served a share of them ($served)" yes "$in_range"
done
request --interface 127.0.0.3 -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$FRONT/api/adopt"
check_eq "another client has a bucket of its own" "201 \"adoptCat\";r=$((N - 1))" \
    "$STATUS $(header RateLimit | sed -E 's/;t=[0-9]+$//')"
key=$(redis-cli -p "$REDIS_PORT" --raw keys 'whisker:rl:adoptCat:*' | sort | tr '\n' ' ')
check_eq "Redis holds one key per client" "whisker:rl:adoptCat:4:127.0.0.2 whisker:rl:adoptCat:4:127.0.0.3 " "$key"

echo "An Idempotency-Key's answer, kept in Redis, replayed by whichever instance a retry reaches"
for n in 1 2 3 4; do
    request --interface 127.0.0.5 -H 'Content-Type: application/json' -H 'Idempotency-Key: "shared-key"' -d '{"name": "Tom"}' "$FRONT/api/adopt"
    echo "$STATUS $(header Idempotent-Replayed)" >>"$WORK/replays"
done
check_eq "the first 201, the three retries 201 replayed" "201 |201 true|201 true|201 true" "$(paste -sd'|' "$WORK/replays")"
check_eq "the four went to all three instances (round robin)" 3 \
    "$(for err in "${ERRS[@]}"; do grep -c 'client=127\.0\.0\.5' "$err" || true; done | grep -c '^[1-9]')"
check_eq "Redis holds the key's answer" 1 "$(redis-cli -p "$REDIS_PORT" --raw keys 'whisker:idem:adoptCat:4:127.0.0.5:shared-key' | grep -c .)"

echo "Redis killed mid-test"
kill -KILL "$REDIS_PID"
wait "$REDIS_PID" 2>/dev/null || true
REDIS_PID=""
adopt_many 9 "$WORK/down"
check_eq "fail open: 9 adoptions through HAProxy, all 201" "9" "$(grep -c '^201$' "$WORK/down" || true)"
request --interface 127.0.0.4 -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$FRONT/api/adopt"
check_eq "... unlimited, so no RateLimit field" "201 " "$STATUS $(header RateLimit)"
request -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$CLOSED_BASE/api/adopt"
check_eq "fail closed: 503 with Retry-After: 1, as problem details" "503 1 application/problem+json" \
    "$STATUS $(header Retry-After) $(header Content-Type)"
check_match "... saying why" 'rate limit cannot be checked' "$(problem_detail "$BODY")"
for err in "${ERRS[@]}" "$CLOSED_ERR"; do
    check_match "an instance logs Redis unavailable, once, as a warning" \
        "warning .*Redis store unavailable" "$(wait_for_line 'Redis store unavailable' "$err")"
done
check_eq "... once each, not once per request" 1 "$(grep -c 'Redis store unavailable' "${ERRS[0]}" || true)"
request "$CLOSED_BASE/metrics"
check_match "the failures are counted in whisker_store_failures" 'whisker_store_failures(_total)?\{[^}]*reason="(io|connect|unavailable)"[^}]*\} [1-9]' "$(cat "$BODY")"
check_match "whisker_store_up says 0" 'whisker_store_up\{store="redis"\} 0' "$(cat "$BODY")"
for pid in "${PIDS[@]}"; do
    check "instance $pid is still running" is_running "$pid"
done

echo "Redis back"
start_redis
# An instance retries a failed connection after 1 s: the first adoption to carry RateLimit again
# says it counts (a new Redis: full buckets).
deadline=$((SECONDS + 10)) back=""
while ((SECONDS < deadline)); do
    request --interface 127.0.0.2 -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$FRONT/api/adopt"
    back=$(header RateLimit)
    if [[ -n $back ]]; then break; fi
done
check_eq "adoptions count again once Redis is back" "201 \"adoptCat\";r=$((N - 1))" "$STATUS $(echo "$back" | sed -E 's/;t=[0-9]+$//')"
deadline=$((SECONDS + 10))
while ((SECONDS < deadline)); do
    request -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$CLOSED_BASE/api/adopt"
    if [[ $STATUS != 503 ]]; then break; fi
done
check_eq "the instance that failed closed adopts again" 201 "$STATUS"
check_match "... and logs that Redis is reachable again" 'notice .*Redis store reachable again' "$(wait_for_line 'reachable again' "$CLOSED_ERR")"

echo "Bad store settings"
bad_setting "a URL that is not Redis's" '--store: http://x is not a Redis URL: it starts with redis:// or unix://' -- --store http://x
bad_setting "a bad port, from the environment" 'CAT_SERVICE_STORE' CAT_SERVICE_STORE=redis://h:0 --
bad_setting "a password is never echoed" 'redis://…@h:0 is not a Redis URL' -- --store 'redis://u:hunter2@h:0'
bad_setting "a failure mode other than allow or refuse" 'allow or refuse' -- --store-failure maybe
echo 'store: "redis://h:0"' >"$WORK/bad-store.yaml"
bad_setting "a bad URL in the configuration file names the key and the file" "store in $WORK/bad-store.yaml: redis://h:0 is not a Redis URL" -- --config "$WORK/bad-store.yaml"
bad_setting "CAT_SERVICE_STORE_FAILURE is checked too" 'CAT_SERVICE_STORE_FAILURE must be allow or refuse' CAT_SERVICE_STORE_FAILURE=sometimes --
