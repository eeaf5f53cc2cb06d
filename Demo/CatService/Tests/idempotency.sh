#!/usr/bin/env bash
# idempotency.sh: adoptCat's Idempotency-Key (the document's `x-idempotency: optional`), over
# HTTP/1.1 and HTTP/2: a retry with the same key and the same cat gets the first answer again
# (Idempotent-Replayed: true) and the cat is adopted once (the report counts); the same key with
# another cat is 422; a key too long 400 (a broken quoted string is a bare key); 50 retries sent at once adopt one cat (the others are
# replayed, or 409 while the first runs). Without a key an adoption runs every time, as before.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REPORTER=reporter-token
start_server --log-level debug --adoption-rate-limit 1000/60 --report-token "$REPORTER"

# adoptions: the report's count of adoptions so far.
adoptions() {
    "${CURL[@]}" -H "Authorization: Bearer $REPORTER" "$BASE/api/report" | python3 -c 'import json,sys; print(json.load(sys.stdin)["adoptions"])'
}
adopt() {  # adopt HTTP KEY NAME
    request "$1" -H 'Content-Type: application/json' -H "Idempotency-Key: $2" -d "{\"name\": \"$3\"}" "$BASE/api/adopt"
}

for http in --http1.1 --http2-prior-knowledge; do
    echo "POST /api/adopt with an Idempotency-Key over $http"
    before=$(adoptions)
    adopt "$http" "\"adopt-tom$http\"" Tom
    check_eq "the first: 201, not a replay" "201 " "$STATUS $(header Idempotent-Replayed)"
    first=$(cat "$BODY")
    adopt "$http" "\"adopt-tom$http\"" Tom
    check_eq "a retry: 201 again, Idempotent-Replayed: true" "201 true" "$STATUS $(header Idempotent-Replayed)"
    check_eq "... with the first answer's body" "$first" "$(cat "$BODY")"
    check_eq "... and its RateLimit fields (the limit counted the retry too)" "yes" "$([[ -n $(header RateLimit) ]] && echo yes || echo no)"
    adopt "$http" "adopt-tom$http" Tom
    check_eq "the same key unquoted is the same key" "201 true" "$STATUS $(header Idempotent-Replayed)"
    check_eq "one cat adopted for the three" "$((before + 1))" "$(adoptions)"

    adopt "$http" "\"adopt-tom$http\"" Felix
    check_eq "the same key with another cat: 422 as problem details" "422 application/problem+json" "$STATUS $(header Content-Type)"
    check_match "... saying why" 'used with another request' "$(problem_detail "$BODY")"
    adopt "$http" "$(printf 'k%.0s' {1..256})" Tom
    check_eq "a key of 256 characters: 400" 400 "$STATUS"
    check_eq "neither adopted a cat" "$((before + 1))" "$(adoptions)"
    adopt "$http" "\"unterminated$http" Tom
    adopt "$http" "\"unterminated$http" Tom
    check_eq "a broken quoted string is a bare key, quotes and all: replayed" "201 true" "$STATUS $(header Idempotent-Replayed)"
    check_eq "... and one more cat adopted" "$((before + 2))" "$(adoptions)"

    request "$http" -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$BASE/api/adopt"
    request "$http" -H 'Content-Type: application/json' -d '{"name": "Tom"}' "$BASE/api/adopt"
    check_eq "without a key, each adoption runs (optional)" "201 $((before + 4))" "$STATUS $(adoptions)"

    echo "50 retries at once, one key, over $http"
    before=$(adoptions)
    seq 50 | xargs -P 50 -I{} "${CURL[@]}" "$http" -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
        -H "Idempotency-Key: burst$http" -d '{"name": "Felix"}' "$BASE/api/adopt" >"$WORK/burst" 2>>"$WORK/curl.err" || true
    check_eq "each answered 201 (the first, or a replay) or 409 (while it ran)" 50 "$(grep -cE '^(201|409)$' "$WORK/burst" || true)"
    check_eq "one cat adopted" "$((before + 1))" "$(adoptions)"
    echo "  ($(grep -c "^201$" "$WORK/burst" || true) answered 201, $(grep -c "^409$" "$WORK/burst" || true) 409)"
done
check_match "refusals are logged with the operation and the reason" \
    'error=idempotency key: this Idempotency-Key was used with another request.* operation=adoptCat status=422' \
    "$(grep -m1 'status=422' "$SERVER_ERR" || true)"
