#!/usr/bin/env bash
# policy.sh: each operation's policy, over HTTP/1.1 and HTTP/2. adoptCat's rate limit (a token
# bucket per client address): the allowed requests say the limit in RateLimit-Policy and RateLimit,
# the next gets 429 with Retry-After, and another client address has its own bucket. The event
# stream's deadline ends a long stream cleanly (curl sees a complete response of whole events); the
# census' deadline answers 503 to an upload too slow for it, the count abandoned. Each logged.
# Behind a trusted proxy that sets Forwarded (--forwarding-field), the buckets are the clients it names.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

start_server --log-level debug --adoption-rate-limit 3/60 --stream-deadline 1.5 --census-deadline 1

# Each protocol from its own client address (127.0.0.1 and 127.0.0.2, both loopback): one bucket each.
declare -A FROM=([--http1.1]=127.0.0.1 [--http2-prior-knowledge]=127.0.0.2)
for http in --http1.1 --http2-prior-knowledge; do
    from=${FROM[$http]}
    echo "POST /api/adopt over $http from $from: 3 a minute"
    for n in 1 2 3; do
        request "$http" --interface "$from" -H 'Content-Type: application/json' -d "{\"name\": \"Tom $n\"}" "$BASE/api/adopt"
        check_eq "adoption $n: 201, $((3 - n)) left" "201 \"adoptCat\";q=3;w=60 r=$((3 - n))" \
            "$STATUS $(header RateLimit-Policy) $(header RateLimit | sed -E 's/^"adoptCat";(r=[0-9]+);t=[0-9]+$/\1/')"
    done
    request "$http" --interface "$from" -H 'Content-Type: application/json' -d '{"name": "Tom 4"}' "$BASE/api/adopt"
    check_eq "the fourth: 429 as problem details" "429 application/problem+json" "$STATUS $(header Content-Type)"
    retry=$(header Retry-After)
    in_range=no
    if [[ $retry =~ ^[0-9]+$ ]] && ((retry >= 1 && retry <= 20)); then in_range=yes; fi
    check_eq "... with Retry-After, 1 to 20 s (a token comes back every 20 s): $retry" yes "$in_range"
    check_eq "... and RateLimit saying none is left, back in Retry-After seconds" "\"adoptCat\";r=0;t=$retry" "$(header RateLimit)"
    check_match "... and a detail saying why" '^more than 3 requests in 60' "$(problem_detail "$BODY")"
done
request --interface 127.0.0.3 -H 'Content-Type: application/json' -d '{"name": "Tom 5"}' "$BASE/api/adopt"
check_eq "a third client address still adopts" 201 "$STATUS"
check_match "the refusals are logged by operation" 'operation=adoptCat status=429' "$(grep -m1 'status=429' "$SERVER_ERR" || true)"

for http in --http1.1 --http2-prior-knowledge; do
    echo "GET /api/emoji/stream over $http: 100 events 200 ms apart, a 1.5 s deadline"
    request "$http" -N "$BASE/api/emoji/stream?count=100&interval_ms=200"
    events=$(grep -c '^data: ' "$BODY" || true)
    check_eq "200, and curl saw a complete response" "200 0" "$STATUS $(wc -c <"$WORK/curl.err")"
    in_range=no
    if ((events >= 3 && events <= 12)); then in_range=yes; fi
    check_eq "... ended at the deadline: 3 to 12 of the 100 events ($events)" yes "$in_range"
    check_eq "... each whole (the body ends with a blank line)" "$(printf '\n\n' | od -c | head -n1)" "$(tail -c2 "$BODY" | od -c | head -n1)"
done
check_eq "each logged as a deadline that ended its stream cleanly" 2 \
    "$(grep 'deadline passed' "$SERVER_ERR" | grep 'operation=getEmojiStream' | grep -c 'ended=cleanly' || true)"

# 32 KiB of cats at 8 KiB/s: 4 s, past the census' 1 s deadline.
python3 -c 'import sys; sys.stdout.write("🐱" * 8192)' >"$WORK/cats.txt"
for http in --http1.1 --http2-prior-knowledge; do
    echo "POST /api/census over $http: an upload slower than the 1 s deadline"
    request "$http" --limit-rate 8K -H 'Content-Type: text/plain' --data-binary "@$WORK/cats.txt" "$BASE/api/census"
    check_eq "503 as problem details" "503 application/problem+json" "$STATUS $(header Content-Type)"
    check_match "... saying the deadline passed" 'did not answer within its deadline \(1 s\)' "$(problem_detail "$BODY")"
    request "$http" -H 'Content-Type: text/plain' -d '🐱🐱' "$BASE/api/census"
    check_eq "a census in time still counts" "200 2" \
        "$STATUS $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cats"])' "$BODY" 2>/dev/null || echo "?")"
done
check_eq "each logged as a missed deadline, 503" 2 "$(grep 'deadline passed' "$SERVER_ERR" | grep 'operation=countCats' | grep -c 'status=503' || true)"
request "$BASE/api/emoji?count=1"
check_eq "the server is alive" 200 "$STATUS"
stop_server

echo "Settings"
bad_setting "--adoption-rate-limit must be REQUESTS/SECONDS" "--adoption-rate-limit must be REQUESTS/SECONDS" -- --adoption-rate-limit 5
bad_setting "CAT_SERVICE_ADOPTION_RATE_LIMIT is checked too" "CAT_SERVICE_ADOPTION_RATE_LIMIT must be REQUESTS/SECONDS" \
    CAT_SERVICE_ADOPTION_RATE_LIMIT=0/60 --
bad_setting "--stream-deadline must be positive" "--stream-deadline must be a number of seconds above 0" -- --stream-deadline 0
CAT_SERVICE_ADOPTION_RATE_LIMIT=1/60 start_server
request -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$BASE/api/adopt"
request -H 'Content-Type: application/json' -d '{"name": "Jerry"}' "$BASE/api/adopt"
check_eq "CAT_SERVICE_ADOPTION_RATE_LIMIT=1/60: the second adoption is refused" "429 \"adoptCat\";q=1;w=60" "$STATUS $(header RateLimit-Policy)"
stop_server

echo "Behind a trusted proxy that sets Forwarded: a bucket for each client its Forwarded field names"
start_server --trusted-proxy 127.0.0.1 --forwarding-field Forwarded --adoption-rate-limit 1/60
for http in --http1.1 --http2-prior-knowledge; do
    client=192.0.2.${FROM[$http]##*.}
    request "$http" -H "Forwarded: for=$client" -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$BASE/api/adopt"
    first=$STATUS
    request "$http" -H "Forwarded: for=$client" -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$BASE/api/adopt"
    check_eq "$http: for=$client adopts once, then 429" "201 429" "$first $STATUS"
done
