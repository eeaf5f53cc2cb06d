#!/usr/bin/env bash
# config-file.sh: cat-service's settings through swift-configuration with Whisker's key table: from
# a JSON file alone, a YAML file alone, and environment variables alone (no flags); flags beat the
# environment, which beats the file; a bad value in the file stops the start naming key and file;
# SIGHUP reads the file again: the log level changes at once, other changes are named as needing
# a restart, and the server keeps serving. The server's keys are read by the modules themselves
# (cors.exposedHeaders reaches cat-service too), and a flag still wins over the file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# start_bare [VAR=VALUE...] -- [ARGS...]: starts cat-service with exactly those variables and
# arguments (no --host or --port: the port comes from the settings) and waits, bounded, for its
# "listening on http://" line; sets SERVER_PID, PORT, BASE, SERVER_OUT and SERVER_ERR.
start_bare() {
    local assignments=() line
    while [[ $1 != -- ]]; do assignments+=("$1"); shift; done
    shift
    SERVER_COUNT=$((SERVER_COUNT + 1))
    SERVER_OUT="$WORK/server$SERVER_COUNT.out"
    SERVER_ERR="$WORK/server$SERVER_COUNT.err"
    : >"$SERVER_OUT"
    env "${assignments[@]}" "$CAT_SERVICE" "$@" >"$SERVER_OUT" 2>"$SERVER_ERR" &
    SERVER_PID=$!
    SERVER_PIDS+=("$SERVER_PID")
    line=$(wait_for_line 'listening on http://' "$SERVER_OUT" 20)
    if [[ ! $line =~ http://127\.0\.0\.1:([0-9]+)$ ]]; then
        fail "cat-service ${assignments[*]} $* starts" "stdout: '$(shorten "$(cat "$SERVER_OUT")")', stderr: '$(shorten "$(cat "$SERVER_ERR")")'"
        exit 1
    fi
    PORT=${BASH_REMATCH[1]}
    BASE="http://127.0.0.1:$PORT"
    echo "  (cat-service pid $SERVER_PID listening on $BASE)"
}

help=$("$CAT_SERVICE" --help 2>&1 || true)
check_contains "--help documents --config" "--config <file>" "$help"
check_contains "--help documents CAT_SERVICE_CONFIG" "CAT_SERVICE_CONFIG" "$help"

LONG_HEADER="X-Padding: $(printf 'a%.0s' {1..3000})"

echo "A JSON file alone"
json_port=$(free_port)
cat >"$WORK/cats.json" <<JSON
{
  "port": $json_port,
  "requestIDs": true,
  "reportTokens": ["rt-from-the-file"],
  "limits": {"maxHeaderBytes": 2048},
  "cors": {"origins": ["https://cats.example"]},
  "compression": {"enabled": false}
}
JSON
start_bare -- --config "$WORK/cats.json"
check_eq "the port is the file's" "$json_port" "$PORT"
request -H "$LONG_HEADER" "$BASE/api/emoji"
check_eq "limits.maxHeaderBytes 2048: a 3 KB header gets 431" 431 "$STATUS"
request --compressed -H "Origin: https://cats.example" "$BASE/api/emoji?count=100"
check_eq "cors.origins: Access-Control-Allow-Origin names the file's origin" https://cats.example "$(header Access-Control-Allow-Origin)"
check_eq "compression.enabled false: no Content-Encoding" "" "$(header content-encoding)"
check_match "requestIDs true: an X-Request-ID comes back" '.' "$(header X-Request-ID)"
request -H "Authorization: Bearer rt-from-the-file" "$BASE/api/report"
check_eq "cat-service's own key reportTokens: the file's token reads the report" 200 "$STATUS"
check_eq "... and is in no log line" 0 "$(grep -c rt-from-the-file "$SERVER_ERR" || true)"
stop_server
check_eq "it stops cleanly" 0 "$EXIT_CODE"

echo "A YAML file alone (CAT_SERVICE_CONFIG, no flags)"
yaml_port=$(free_port)
cat >"$WORK/cats.yaml" <<YAML
port: $yaml_port
health:
  enabled: false
limits:
  maxHeaderBytes: 2048
cors:
  origins:
    - https://yaml.example
YAML
start_bare CAT_SERVICE_CONFIG="$WORK/cats.yaml" --
check_eq "the port is the file's" "$yaml_port" "$PORT"
request "$BASE/healthz"
check_eq "health.enabled false: /healthz is no route (404)" 404 "$STATUS"
request -H "$LONG_HEADER" "$BASE/api/emoji"
check_eq "limits.maxHeaderBytes 2048: a 3 KB header gets 431" 431 "$STATUS"
request -H "Origin: https://yaml.example" "$BASE/api/emoji"
check_eq "cors.origins from a YAML list" https://yaml.example "$(header Access-Control-Allow-Origin)"
request --compressed "$BASE/api/emoji?count=100"
check_eq "compression stays on (the default; the file does not say)" zstd "$(header content-encoding)"
stop_server

echo "Environment variables alone"
env_port=$(free_port)
start_bare CAT_SERVICE_PORT="$env_port" CAT_SERVICE_MAX_HEADER_BYTES=2048 CAT_SERVICE_CORS_ORIGINS=https://env.example CAT_SERVICE_COMPRESSION=false --
check_eq "the port is CAT_SERVICE_PORT's" "$env_port" "$PORT"
request -H "$LONG_HEADER" "$BASE/api/emoji"
check_eq "CAT_SERVICE_MAX_HEADER_BYTES=2048: a 3 KB header gets 431" 431 "$STATUS"
request --compressed -H "Origin: https://env.example" "$BASE/api/emoji?count=100"
check_eq "CAT_SERVICE_CORS_ORIGINS: the origin is allowed" https://env.example "$(header Access-Control-Allow-Origin)"
check_eq "CAT_SERVICE_COMPRESSION=false: no Content-Encoding" "" "$(header content-encoding)"
stop_server

echo "Flags beat the environment, which beats the file"
flag_port=$(free_port)
start_bare CAT_SERVICE_MAX_HEADER_BYTES=4096 -- --config "$WORK/cats.json" --port "$flag_port" --compression
check_eq "--port beats the file's port" "$flag_port" "$PORT"
request --compressed "$BASE/api/emoji?count=100"
check_eq "--compression beats the file's compression.enabled false" zstd "$(header content-encoding)"
request -H "$LONG_HEADER" "$BASE/api/emoji"
check_eq "CAT_SERVICE_MAX_HEADER_BYTES=4096 beats the file's 2048: a 3 KB header is fine" 200 "$STATUS"
stop_server

echo "Each module reads its own keys from the file, and a flag still wins over them"
cat >"$WORK/modules.yaml" <<YAML
cors:
  origins: [https://cats.example]
  exposedHeaders: [ETag]
health:
  enabled: false
YAML
start_server --config "$WORK/modules.yaml" --health-checks
request -H "Origin: https://cats.example" "$BASE/api/emoji"
check_eq "cors.exposedHeaders from the file: pages may read ETag" ETag "$(header Access-Control-Expose-Headers)"
request "$BASE/healthz"
check_eq "--health-checks beats the file's health.enabled false" 200 "$STATUS"
stop_server
start_server --config "$WORK/cats.json"
request -H "Origin: https://cats.example" "$BASE/api/emoji"
check_eq "without cors.exposedHeaders: cat-service's own default, X-Request-ID" X-Request-ID "$(header Access-Control-Expose-Headers)"
stop_server

echo "Bad values in a file stop the start, naming the key and the file"
printf 'limits:\n  maxConnections: lots\n' >"$WORK/bad.yaml"
bad_setting "a YAML value that is not a number" \
    "limits.maxConnections in $WORK/bad.yaml must be a whole number between 1 and 1000000, got \"lots\"" X=1 -- --config "$WORK/bad.yaml"
printf '{"tls": {"port": "x"}}' >"$WORK/bad.json"
bad_setting "a JSON port that is not a port" "tls.port in $WORK/bad.json must be a whole number between 0 and 65535, got \"x\"" \
    CAT_SERVICE_CONFIG="$WORK/bad.json" --
printf '{"logLevel": "loud"}' >"$WORK/level.json"
bad_setting "cat-service's own keys too" \
    "logLevel in $WORK/level.json must be trace, debug, info, notice, warning, error or critical, got \"loud\"" X=1 -- --config "$WORK/level.json"
printf '{"http2": {"enabled": true}, "timeouts": {"idle": 0}}' >"$WORK/zero.json"
bad_setting "a zero timeout" "timeouts.idle in $WORK/zero.json must be a number of seconds above 0 and at most 86400, got \"0\"" \
    X=1 -- --config "$WORK/zero.json"
bad_setting "a file that is not there" "the configuration file $WORK/none.yaml cannot be read" X=1 -- --config "$WORK/none.yaml"
bad_setting "a file of another kind" '--config (or CAT_SERVICE_CONFIG) must name a .json, .yaml or .yml file, got' X=1 -- --config "$WORK/cats.toml"
bad_setting "the environment's bad value is named as before" 'CAT_SERVICE_PORT must be a whole number between 0 and 65535, got "abc"' \
    CAT_SERVICE_PORT=abc -- --config "$WORK/cats.json"

echo "SIGHUP reads the file again"
printf 'logLevel: warning\nlimits:\n  maxConnections: 100\n' >"$WORK/reload.yaml"
start_server --config "$WORK/reload.yaml"
printf 'logLevel: debug\nlimits:\n  maxConnections: 200\n' >"$WORK/reload.yaml"
kill -HUP "$SERVER_PID"
check_match "the new log level is applied and logged" 'log level is now debug' "$(wait_for_line 'log level is now' "$SERVER_ERR")"
check_match "a notice, below the old level warning, is logged now" 'no TLS certificate to reload' \
    "$(wait_for_line 'no TLS certificate to reload' "$SERVER_ERR")"
check_match "the key that needs a restart is named" 'take effect only when cat-service restarts: limits.maxConnections$' \
    "$(wait_for_line 'take effect only when' "$SERVER_ERR")"
printf 'logLevel: [not, a, level]\n' >"$WORK/reload.yaml"
kill -HUP "$SERVER_PID"
check_contains "a bad file on SIGHUP is logged, naming the key and the file" "logLevel in $WORK/reload.yaml must be" \
    "$(wait_for_line 'was not applied' "$SERVER_ERR")"
request "$BASE/api/emoji"
check_eq "the server keeps serving" 200 "$STATUS"
stop_server
check_eq "and stops cleanly" 0 "$EXIT_CODE"
