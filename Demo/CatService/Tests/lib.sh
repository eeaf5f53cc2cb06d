# lib.sh: helpers for the cat-service curl tests. Each test script starts with
#
#     source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# and is run by run-all.sh (or alone: `bash emoji.sh path/to/cat-service`).
#
# What it gives a script:
#   start_server [ARGS...]   start cat-service on 127.0.0.1, port 0, wait for its "listening on" line;
#                            sets SERVER_PID, PORT, BASE (http://127.0.0.1:PORT), SERVER_OUT, SERVER_ERR
#   stop_server [SIGNAL]     stop it (default TERM), bounded; sets EXIT_CODE
#   request ARGS... URL      one curl request; sets STATUS, HEADERS (file), BODY (file)
#   header NAME              a header's value from the last request's HEADERS (case-insensitive)
#   wait_for_line RE FILE    the first line of FILE matching RE, waited for as it is written (bounded)
#   raw_request BYTES        send BYTES (printf %b escapes) on a new TCP connection, print the reply
#   free_port                a TCP port of 127.0.0.1 free right now (for nginx and HAProxy, which cannot take 0)
#   wait_for_port PORT       wait (bounded) until something accepts connections on 127.0.0.1:PORT
#   check DESC CMD...        PASS if CMD succeeds; check_eq, check_contains, check_match for values
#   problem_errors FILE      the "errors" of a problem+json body (request validation), one per line
#   problem_detail FILE      the "detail" of a problem+json body
#   bad_setting DESC TEXT VAR=VALUE... -- ARGS...
#                            cat-service with those variables and arguments refuses to start, saying TEXT
# On exit the trap stops every server still running with SIGTERM and checks that it exited 0,
# and, with CAT_SERVICE_CONTRACT_CHECK=true (run-all.sh sets it), that no server logged a
# contract violation; then prints the script's tally; the script fails if any check did.

set -euo pipefail
export LC_ALL=C.UTF-8

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEMO_DIR=$(cd "$TESTS_DIR/.." && pwd)
CAT_MP4="$DEMO_DIR/Sources/CatServiceCore/Resources/cat.mp4"
SCRIPT_NAME=$(basename "$0")

CAT_SERVICE=${CAT_SERVICE:-${1:-}}
if [[ -z $CAT_SERVICE || ! -x $CAT_SERVICE ]]; then
    echo "usage: $SCRIPT_NAME PATH/TO/cat-service   (or set CAT_SERVICE)" >&2
    exit 2
fi

# The cats that GET /api/emoji picks from (CatHandler.cats, the WWDC23 talk's set); each is 4 bytes of UTF-8.
CATS="🐱😹😻🙀😿😽😸😺😾😼"

# Every request goes to 127.0.0.1, never through a proxy, and gives up after 10 seconds.
CURL=(curl --silent --show-error --noproxy '*' --max-time 10)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cat-service-test.XXXXXX")
PASSED=0
FAILED=0
SERVER_PIDS=()
SERVER_COUNT=0

# run-all.sh sets CAT_TEST_RESULTS to a file that collects one PASS or FAIL line per check.
RESULTS_FILE=${CAT_TEST_RESULTS:-}

pass() {
    PASSED=$((PASSED + 1))
    echo "  PASS  $1"
    if [[ -n $RESULTS_FILE ]]; then echo PASS >>"$RESULTS_FILE"; fi
}

fail() {
    FAILED=$((FAILED + 1))
    echo "  FAIL  $1${2:+  -- $2}"
    if [[ -n $RESULTS_FILE ]]; then echo FAIL >>"$RESULTS_FILE"; fi
}

# check DESC CMD...: passes when CMD exits 0.
check() {
    local desc=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$desc"; else fail "$desc" "command failed: $*"; fi
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
    if [[ $3 == "$2" ]]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# check_ne DESC UNEXPECTED ACTUAL
check_ne() {
    if [[ $3 != "$2" ]]; then pass "$1"; else fail "$1" "did not expect '$2'"; fi
}

# check_contains DESC NEEDLE HAYSTACK
check_contains() {
    if [[ $3 == *"$2"* ]]; then pass "$1"; else fail "$1" "'$2' not in '$(shorten "$3")'"; fi
}

# check_match DESC EXTENDED-REGEX ACTUAL
check_match() {
    if [[ $3 =~ $2 ]]; then pass "$1"; else fail "$1" "'$(shorten "$3")' does not match /$2/"; fi
}

shorten() {
    local s=${1//$'\r'/}
    s=${s//$'\n'/ | }
    if ((${#s} > 300)); then s="${s:0:300}..."; fi
    printf '%s' "$s"
}

# count_cats STRING: how many characters STRING has if every one is a cat from CATS, else -1.
count_cats() {
    local s=$1 i c
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        if [[ $CATS != *"$c"* ]]; then
            echo -1
            return
        fi
    done
    echo "${#s}"
}

# distinct_characters STRING: how many different characters STRING has.
distinct_characters() {
    local s=$1 i seen=""
    for ((i = 0; i < ${#s}; i++)); do
        if [[ $seen != *"${s:i:1}"* ]]; then seen+=${s:i:1}; fi
    done
    echo "${#seen}"
}

# is_running PID: true while PID is alive and not yet a zombie.
is_running() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

# wait_exit PID SECONDS: waits (bounded) for PID to exit and sets EXIT_CODE;
# after SECONDS it kills it with SIGKILL and sets EXIT_CODE=timeout.
wait_exit() {
    local pid=$1 deadline=$((SECONDS + $2))
    while is_running "$pid" && ((SECONDS < deadline)); do sleep 0.05; done
    if is_running "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        EXIT_CODE=timeout
    else
        EXIT_CODE=0
        wait "$pid" || EXIT_CODE=$?
    fi
    forget_server "$pid"
}

forget_server() {
    local pid keep=()
    for pid in "${SERVER_PIDS[@]}"; do
        if [[ $pid != "$1" ]]; then keep+=("$pid"); fi
    done
    SERVER_PIDS=("${keep[@]}")
}

# start_server [ARGS...]: starts cat-service on 127.0.0.1 with port 0 (ARGS may override either)
# and waits, for at most 20 seconds, for its "listening on" lines: http:// unless ARGS has
# --no-cleartext, https:// if ARGS has --tls-certificate. Fails the script if they never come.
# Sets PORT and BASE for cleartext, TLS_PORT and TLS_BASE (https://localhost:TLS_PORT) for HTTPS.
start_server() {
    SERVER_COUNT=$((SERVER_COUNT + 1))
    SERVER_OUT="$WORK/server$SERVER_COUNT.out"
    SERVER_ERR="$WORK/server$SERVER_COUNT.err"
    local wants_http=1 wants_https=0 arg
    PORT="" BASE="" TLS_PORT="" TLS_BASE=""
    for arg in "$@"; do
        case $arg in --no-cleartext) wants_http=0 ;; --tls-certificate) wants_https=1 ;; esac
    done
    "$CAT_SERVICE" --host 127.0.0.1 --port 0 "$@" >"$SERVER_OUT" 2>"$SERVER_ERR" &
    SERVER_PID=$!
    SERVER_PIDS+=("$SERVER_PID")
    local deadline=$((SECONDS + 20)) http="" https=""
    while ((SECONDS < deadline)); do
        http=$(grep -m1 'listening on http://' "$SERVER_OUT" || true)
        https=$(grep -m1 'listening on https://' "$SERVER_OUT" || true)
        if { ((!wants_http)) || [[ -n $http ]]; } && { ((!wants_https)) || [[ -n $https ]]; }; then break; fi
        if ! is_running "$SERVER_PID"; then break; fi
        sleep 0.05
    done
    local address='(127\.0\.0\.1|\[[0-9a-fA-F:.]+\]):([0-9]+)$'
    if { ((wants_http)) && [[ ! $http =~ ^cat-service\ listening\ on\ http://$address ]]; } ||
        { ((wants_https)) && [[ ! $https =~ ^cat-service\ listening\ on\ https://$address ]]; }; then
        local how="no listening line within 20 s"
        if ! is_running "$SERVER_PID"; then
            wait_exit "$SERVER_PID" 0
            how="exited with status $EXIT_CODE"
        fi
        fail "cat-service $* starts and prints its 'cat-service listening on' lines" \
            "$how; stdout: '$(shorten "$(cat "$SERVER_OUT")")', stderr: '$(shorten "$(cat "$SERVER_ERR")")'"
        exit 1
    fi
    if ((wants_http)); then
        [[ $http =~ $address ]]
        PORT=${BASH_REMATCH[2]}
        BASE="http://${BASH_REMATCH[1]}:$PORT"
    fi
    if ((wants_https)); then
        [[ $https =~ $address ]]
        TLS_PORT=${BASH_REMATCH[2]}
        TLS_BASE="https://localhost:$TLS_PORT"
    fi
    echo "  (cat-service pid $SERVER_PID listening on ${BASE:-} ${TLS_BASE:-})"
}

# stop_server [SIGNAL] [PID]: sends SIGNAL (default TERM) and waits at most 15 s; sets EXIT_CODE.
stop_server() {
    local sig=${1:-TERM} pid=${2:-$SERVER_PID}
    kill -s "$sig" "$pid"
    wait_exit "$pid" 15
}

# request CURL-ARGS... URL: one request; sets STATUS (000 if curl failed), HEADERS and BODY (files).
request() {
    HEADERS="$WORK/headers"
    BODY="$WORK/body"
    : >"$HEADERS"
    : >"$BODY"
    STATUS=$("${CURL[@]}" --dump-header "$HEADERS" --output "$BODY" --write-out '%{http_code}' "$@" 2>"$WORK/curl.err") || true
    STATUS=${STATUS:-000}
}

# header NAME [FILE]: the value of the last NAME field in FILE (default: the last request's headers).
header() {
    local file=${2:-$HEADERS}
    grep -i "^$1:" "$file" | tail -n1 | sed -e 's/^[^:]*:[[:space:]]*//' -e 's/[[:space:]]*$//' | tr -d '\r'
}

# normalized_headers FILE: status line and fields, CR removed, names lower-cased, Date dropped,
# sorted: two responses with the same headers give the same text.
normalized_headers() {
    tr -d '\r' <"$1" | sed -e '/^$/d' -e 's/^\([^:]*\):/\L\1:/' | grep -iv '^date:' | sort
}

# wait_for_line PATTERN FILE [SECONDS]: prints the first line of FILE that matches the extended
# regular expression PATTERN, as soon as it is written (tail -f), or nothing after SECONDS (default 5).
wait_for_line() {
    grep -m1 -E -- "$1" < <(timeout "${3:-5}" tail -n +1 -f "$2" 2>/dev/null) || true
}

# raw_request BYTES: opens a TCP connection to the server, writes BYTES (with printf %b escapes such
# as \r\n), and prints everything the server sends until it closes the connection or 5 s pass.
raw_request() {
    (
        exec 3<>"/dev/tcp/127.0.0.1/$PORT"
        printf '%b' "$1" >&3
        timeout 5 cat <&3 || true
    )
}

# free_port: a port of 127.0.0.1 that nothing listens on now: the kernel picks it, and it is
# released for the caller to bind (another process could take it in between; on loopback in a test
# run, nothing does).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for_port PORT [SECONDS]: returns once 127.0.0.1:PORT accepts a connection, or fails after
# SECONDS (default 10).
wait_for_port() {
    local deadline=$((SECONDS + ${2:-10}))
    while ((SECONDS < deadline)); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    return 1
}

# bytes_after_head FILE: how many bytes of a raw response follow its header block (CRLF CRLF).
bytes_after_head() {
    local LC_ALL=C all rest
    all=$(cat "$1" 2>/dev/null; echo x)
    all=${all%x}
    if [[ $all != *$'\r\n\r\n'* ]]; then
        echo "no-header-block"
        return
    fi
    rest=${all#*$'\r\n\r\n'}
    echo "${#rest}"
}

# bad_setting DESC EXPECTED-TEXT VAR=VALUE... -- ARGS...: the service refuses to start, says why.
bad_setting() {
    local desc=$1 expected=$2 rc=0
    shift 2
    local assignments=()
    while [[ $1 != -- ]]; do assignments+=("$1"); shift; done
    shift
    env "${assignments[@]}" timeout 10 "$CAT_SERVICE" "$@" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
    if ((rc != 0)) && [[ $(cat "$WORK/bad.err") == *"$expected"* ]]; then
        pass "$desc (exit $rc)"
    else
        fail "$desc" "exit $rc, stderr '$(shorten "$(cat "$WORK/bad.err")")'"
    fi
}

# start_nginx: runs nginx with $WORK/nginx/nginx.conf in the foreground of a background job
# (NGINX_PID), stopped when the script exits, and waits for it on $NGINX_PORT; fails (status 1,
# with nginx's own words) if it does not come up.
start_nginx() {
    nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >"$WORK/nginx/out" 2>&1 &
    NGINX_PID=$!
    trap 'rc=$?; kill -TERM $NGINX_PID 2>/dev/null || true; wait $NGINX_PID 2>/dev/null || true; (exit $rc); finish' EXIT
    if ! wait_for_port "$NGINX_PORT"; then
        fail "nginx starts" "$(shorten "$(cat "$WORK/nginx/out" "$WORK/nginx/error.log" 2>/dev/null)")"
        return 1
    fi
}

# problem_errors FILE: the "errors" of a problem+json body, one "IN NAME: DETAIL" per line
# (NAME is the parameter, or the JSON pointer into the body); the body itself if it is not one.
problem_errors() {
    python3 -c 'import json,sys
text = open(sys.argv[1], encoding="utf-8").read()
try:
    errors = json.loads(text)["errors"]
    print("\n".join("%s %s: %s" % (e["in"], e.get("parameter", e.get("pointer", "")), e["detail"]) for e in errors))
except Exception:
    print(text)' "$1"
}

# problem_detail FILE: the "detail" of a problem+json body.
problem_detail() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1], encoding="utf-8"))["detail"])' "$1" 2>/dev/null || cat "$1"
}

finish() {
    local rc=$? pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -s TERM "$pid" 2>/dev/null || true
        wait_exit "$pid" 15
        check_eq "cat-service (pid $pid) exits 0 on SIGTERM" 0 "$EXIT_CODE"
    done
    # run-all.sh turns the contract check on: a response the OpenAPI document does not describe
    # is a failed check, whatever the script was testing.
    if [[ ${CAT_SERVICE_CONTRACT_CHECK:-} == true ]] && ((SERVER_COUNT > 0)); then
        check_eq "every response is one the OpenAPI document describes (--contract-check)" "" \
            "$(grep -h 'contract violation' "$WORK"/server*.err 2>/dev/null | head -5 || true)"
    fi
    rm -rf "$WORK"
    echo "== $SCRIPT_NAME: $PASSED checks passed, $FAILED checks failed"
    if ((FAILED > 0)); then exit 1; fi
    exit "$rc"
}
trap finish EXIT
