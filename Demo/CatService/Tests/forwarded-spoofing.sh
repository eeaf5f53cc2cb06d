#!/usr/bin/env bash
# forwarded-spoofing.sh: issue 38's spoofed forwarding fields through a real nginx (the demo's own
# configuration, Demo/proxies/nginx.conf, which appends X-Forwarded-For) and a real HAProxy in
# `mode http` (option forwardfor; and one appending Forwarded, for an instance told
# --forwarding-field Forwarded). A client sends a new spoofed Forwarded or X-Forwarded-For with each of 25 adoptions:
# cat-service believes only the field its proxy appends, so the access log shows the real client
# and the rate limit (20 a minute) admits 20 of 25, not 25 (at 6112b08 a spoofed Forwarded through
# nginx was believed: 25 of 25, the log showing 203.0.113.x).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CERTS=$(cd "$DEMO_DIR/../../Tests/Certificates" && pwd)
if ! command -v nginx >/dev/null || ! command -v haproxy >/dev/null; then
    fail "nginx and haproxy are installed (make deps)"
    exit 1
fi

# X: behind proxies that append X-Forwarded-For (the default field).
start_server --access-log --trusted-proxy 127.0.0.1
X_PORT=$PORT X_ERR=$SERVER_ERR

NGINX_PORT=$(free_port) HAPROXY_XFF_PORT=$(free_port) HAPROXY_FORWARDED_PORT=$(free_port)
mkdir -p "$WORK/nginx"
# The demo's nginx.conf with both upstreams on instance X (one bucket table, as one instance has).
sed -e "s|@WORK@|$WORK/nginx|g" -e "s|@CERTS@|$CERTS|g" -e "s|@A_PORT@|$X_PORT|g" -e "s|@B_PORT@|$X_PORT|g" \
    -e "s|@PORT@|$NGINX_PORT|g" -e "s|@USER@|$( ((EUID == 0)) && echo "user root;")|" \
    "$DEMO_DIR/../proxies/nginx.conf" >"$WORK/nginx/nginx.conf"
start_nginx || exit 1
HAPROXY_PIDS=()
trap 'rc=$?; kill -TERM ${HAPROXY_PIDS[@]+"${HAPROXY_PIDS[@]}"} $NGINX_PID 2>/dev/null || true; wait ${HAPROXY_PIDS[@]+"${HAPROXY_PIDS[@]}"} $NGINX_PID 2>/dev/null || true; (exit $rc); finish' EXIT

# start_haproxy NAME PORT LINE BACKEND-PORT: HAProxy in mode http on PORT with LINE in its frontend
# (option forwardfor, or an http-request rule) in front of 127.0.0.1:BACKEND-PORT.
start_haproxy() {
    printf '%s\n' "global" "    log stderr format short local0 notice" "defaults" "    mode http" "    log global" \
        "    timeout connect 5s" "    timeout client 30s" "    timeout server 30s" \
        "frontend web" "    bind 127.0.0.1:$2" "    $3" "    default_backend cats" \
        "backend cats" "    server cat1 127.0.0.1:$4" >"$WORK/haproxy-$1.cfg"
    haproxy -f "$WORK/haproxy-$1.cfg" -db >"$WORK/haproxy-$1.out" 2>&1 &
    HAPROXY_PIDS+=($!)
    if ! wait_for_port "$2"; then
        fail "haproxy ($1) starts" "$(shorten "$(cat "$WORK/haproxy-$1.out")")"
        exit 1
    fi
}
start_haproxy forwardfor "$HAPROXY_XFF_PORT" "option forwardfor" "$X_PORT"

# adoptions NAME URL FROM FIELD ERR [CURL-ARGS...]: 25 adoptions from the client address FROM, each
# with a new spoofed FIELD (Forwarded: for=203.0.113.N, or X-Forwarded-For: 198.51.100.N); checks
# that 20 are admitted and that the access log names FROM, never a spoofed address.
adoptions() {
    local name=$1 url=$2 from=$3 field=$4 err=$5 n admitted=0 value lines before
    shift 5
    before=$(wc -l <"$err")
    for n in $(seq 1 25); do
        if [[ $field == Forwarded ]]; then value="for=203.0.113.$n"; else value="198.51.100.$n"; fi
        request "$@" --interface "$from" -H "$field: $value" -H 'Content-Type: application/json' -d "{\"name\": \"Tom $n\"}" "$url/api/adopt"
        if [[ $STATUS == 201 ]]; then admitted=$((admitted + 1)); fi
    done
    echo "    $name, a spoofed $field each time: $admitted of 25 admitted"
    check_eq "$name, spoofed $field: 20 of 25 adoptions admitted (the limit is the real client's)" 20 "$admitted"
    # The series' 25 access-log lines, as soon as they are written (bounded).
    grep -m 25 -F 'POST /api/adopt ' < <(timeout 5 tail -n +$((before + 1)) -f "$err" 2>/dev/null) >"$WORK/series" || true
    lines=$(grep -E "client=${from//./\\.}(:[0-9]+)? " "$WORK/series" || true)
    check_eq "$name, spoofed $field: the access log names the real client $from for all 25" 25 "$(grep -c . <<<"$lines" || true)"
    check_eq "$name, spoofed $field: no log line names a spoofed address" "" \
        "$(grep -E 'client=(203\.0\.113|198\.51\.100)\.' "$WORK/series" | head -3 || true)"
}

echo "Through nginx (the demo's configuration: X-Forwarded-For appended)"
VIA=(--cacert "$CERTS/ca.pem" --resolve "localhost:$NGINX_PORT:127.0.0.1")
adoptions nginx "https://localhost:$NGINX_PORT" 127.0.0.3 Forwarded "$X_ERR" "${VIA[@]}"
adoptions nginx "https://localhost:$NGINX_PORT" 127.0.0.4 X-Forwarded-For "$X_ERR" "${VIA[@]}"

echo "Through HAProxy, mode http, option forwardfor (X-Forwarded-For appended)"
adoptions "HAProxy forwardfor" "http://127.0.0.1:$HAPROXY_XFF_PORT" 127.0.0.5 Forwarded "$X_ERR"
adoptions "HAProxy forwardfor" "http://127.0.0.1:$HAPROXY_XFF_PORT" 127.0.0.6 X-Forwarded-For "$X_ERR"

echo "A new client behind nginx keeps a bucket of its own"
request "${VIA[@]}" --interface 127.0.0.9 -H 'Content-Type: application/json' -d '{"name": "Tom"}' "https://localhost:$NGINX_PORT/api/adopt"
check_eq "a new client through nginx adopts (its own bucket, not the spoofers')" 201 "$STATUS"

echo "Through HAProxy, mode http, appending Forwarded (cat-service --forwarding-field Forwarded)"
start_server --access-log --trusted-proxy 127.0.0.1 --forwarding-field Forwarded
F_PORT=$PORT F_ERR=$SERVER_ERR
# HAProxy 2.6 has no `option forwarded` (2.7 does): add-header appends a Forwarded element, as it would.
start_haproxy forwarded "$HAPROXY_FORWARDED_PORT" 'http-request add-header Forwarded for=%[src]' "$F_PORT"
adoptions "HAProxy forwarded" "http://127.0.0.1:$HAPROXY_FORWARDED_PORT" 127.0.0.7 Forwarded "$F_ERR"
adoptions "HAProxy forwarded" "http://127.0.0.1:$HAPROXY_FORWARDED_PORT" 127.0.0.8 X-Forwarded-For "$F_ERR"
request --interface 127.0.0.10 -H 'Content-Type: application/json' -d '{"name": "Tom"}' "http://127.0.0.1:$HAPROXY_FORWARDED_PORT/api/adopt"
check_eq "a new client through HAProxy (Forwarded) adopts" 201 "$STATUS"
check_match "and is logged as itself" 'client=127\.0\.0\.10(:[0-9]+)? ' "$(grep -F 'POST /api/adopt ' "$F_ERR" | tail -n1)"
