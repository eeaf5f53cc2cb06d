#!/usr/bin/env bash
# systemd.sh: cat-service under systemd's protocols, without systemd running. Socket activation
# with systemd-socket-activate (Debian `systemd`): two inherited sockets, "http" and "https"
# (TLS), started lazily by the first connection, which is served; readiness to a fake notify
# socket (READY=1, STOPPING=1 on SIGTERM, then exit 0); the settings that cannot go with an
# inherited socket; and the units in Demo/systemd checked with `systemd-analyze verify` (and
# `security`, for the sandbox).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

UNITS_DIR=$(cd "$DEMO_DIR/../systemd" && pwd)
for tool in systemd-socket-activate systemd-analyze perl; do
    if ! command -v "$tool" >/dev/null; then
        fail "$tool is installed (make deps installs Debian's systemd)"
        exit 1
    fi
done

CERTS="$WORK/certs"
"$DEMO_DIR/../../Scripts/make-dev-certificates.sh" "$CERTS" >/dev/null
TLS_ARGS=(--tls-certificate "$CERTS/localhost.pem" --tls-private-key "$CERTS/localhost-key.pem")
TLS_CURL=(--cacert "$CERTS/ca.pem")

# The fake notify socket: a Unix datagram socket that perl (Debian's perl-base, always there)
# binds, writing each message it receives to NOTIFY_LOG as one line (newlines become spaces).
NOTIFY_SOCKET_PATH="$WORK/notify.sock"
NOTIFY_LOG="$WORK/notify.log"
: >"$NOTIFY_LOG"
perl -MIO::Socket::UNIX -MSocket -e '
    alarm 240;    # a last guard: the script kills it when it is done
    my $socket = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $ARGV[0]) or die "notify socket $ARGV[0]: $!\n";
    open(my $log, ">>", $ARGV[1]) or die "$ARGV[1]: $!\n";
    $log->autoflush(1);
    while (defined $socket->recv(my $message, 4096)) { $message =~ s/\n/ /g; print $log "$message\n"; }
' "$NOTIFY_SOCKET_PATH" "$NOTIFY_LOG" &
NOTIFY_PID=$!
trap 'rc=$?; kill "$NOTIFY_PID" 2>/dev/null || true; wait "$NOTIFY_PID" 2>/dev/null || true; (exit $rc); finish' EXIT

# wait_for DESC SECONDS CMD...: polls CMD (every 50 ms, at most SECONDS) until it succeeds.
wait_for() {
    local desc=$1 seconds=$2
    local deadline=$((SECONDS + seconds))
    shift 2
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            fail "$desc" "not within $seconds s"
            return 1
        fi
        sleep 0.05
    done
}
wait_for "the fake notify socket is bound" 10 test -S "$NOTIFY_SOCKET_PATH" || exit 1

echo "Socket activation: two inherited sockets, http and https"
# systemd-socket-activate binds the sockets, waits for the first connection on either, then
# execs cat-service (same pid) with LISTEN_FDS=2, LISTEN_PID and LISTEN_FDNAMES=http:https.
SERVER_OUT="$WORK/activated.out" SERVER_ERR="$WORK/activated.err"
for attempt in 1 2 3; do
    HTTP_PORT=$(free_port) HTTPS_PORT=$(free_port)
    systemd-socket-activate -l "127.0.0.1:$HTTP_PORT" -l "127.0.0.1:$HTTPS_PORT" --fdname=http:https \
        -E "NOTIFY_SOCKET=$NOTIFY_SOCKET_PATH" "$CAT_SERVICE" "${TLS_ARGS[@]}" >"$SERVER_OUT" 2>"$SERVER_ERR" &
    SERVER_PID=$!
    SERVER_PIDS+=("$SERVER_PID")
    deadline=$((SECONDS + 10))
    while is_running "$SERVER_PID" && (($(grep -c '^Listening on ' "$SERVER_ERR") < 2)) && ((SECONDS < deadline)); do sleep 0.05; done
    if (($(grep -c '^Listening on ' "$SERVER_ERR") == 2)); then break; fi
    # A port taken between free_port and the bind: try two others.
    kill "$SERVER_PID" 2>/dev/null || true
    wait_exit "$SERVER_PID" 5
done
check_contains "systemd-socket-activate listens on the http port as fd 3" "Listening on 127.0.0.1:$HTTP_PORT as 3." "$(cat "$SERVER_ERR")"
check_contains "systemd-socket-activate listens on the https port as fd 4" "Listening on 127.0.0.1:$HTTPS_PORT as 4." "$(cat "$SERVER_ERR")"
check_eq "cat-service is not started before the first connection (no listening line)" "" "$(cat "$SERVER_OUT")"
check_eq "... and has sent nothing to the notify socket" "" "$(cat "$NOTIFY_LOG")"

# The connection that starts it waits in the inherited socket's queue and is served.
request "http://127.0.0.1:$HTTP_PORT/api/emoji?count=2"
check_eq "the first connection, which started it, is served: 200" 200 "$STATUS"
check_eq "... with two cats" 2 "$(count_cats "$(cat "$BODY")")"
wait_for "cat-service prints a listening line for each inherited socket" 10 test "$(grep -c 'listening on' "$SERVER_OUT")" -eq 2
check_eq "listening line for the http socket (fd 3), in the format scripts read" \
    "cat-service listening on http://127.0.0.1:$HTTP_PORT" "$(sed -n 1p "$SERVER_OUT")"
check_eq "listening line for the https socket (fd 4)" \
    "cat-service listening on https://127.0.0.1:$HTTPS_PORT" "$(sed -n 2p "$SERVER_OUT")"
check_contains "systemd-socket-activate's pid now runs cat-service (exec, so LISTEN_PID matched)" \
    "$CAT_SERVICE" "$(tr '\0' ' ' <"/proc/$SERVER_PID/cmdline")"
wait_for "READY=1 reaches the notify socket" 10 grep -q '^READY=1' "$NOTIFY_LOG"
check_match "READY=1 with STATUS naming both inherited addresses" \
    "^READY=1 STATUS=listening on 127\.0\.0\.1:$HTTP_PORT, 127\.0\.0\.1:$HTTPS_PORT$" "$(head -n1 "$NOTIFY_LOG")"
check_contains "the log says the http listener was inherited" 'inherited=fd 3 ("http")' "$(cat "$SERVER_ERR")"
check_contains "the log says the https listener was inherited" 'inherited=fd 4 ("https")' "$(cat "$SERVER_ERR")"

request "${TLS_CURL[@]}" --http1.1 "https://localhost:$HTTPS_PORT/api/emoji?count=3"
check_eq "https on the inherited \"https\" socket: 200" 200 "$STATUS"
check_eq "... with three cats" 3 "$(count_cats "$(cat "$BODY")")"
request "${TLS_CURL[@]}" "https://localhost:$HTTPS_PORT/api/clip"
check_eq "h2 by ALPN on the inherited TLS socket: the clip, byte-identical" \
    "200 $(sha256sum <"$CAT_MP4" | cut -d' ' -f1)" "$STATUS $(sha256sum <"$BODY" | cut -d' ' -f1)"
check_match "... over HTTP/2" '^HTTP/2 200' "$(head -n1 "$HEADERS")"
request "http://127.0.0.1:$HTTPS_PORT/api/emoji"
check_eq "plain HTTP on the inherited TLS socket: 400" 400 "$STATUS"
request --http2-prior-knowledge "http://127.0.0.1:$HTTP_PORT/api/emoji"
check_eq "h2c on the inherited http socket: 200" 200 "$STATUS"

stop_server TERM
check_eq "SIGTERM: exits 0" 0 "$EXIT_CODE"
wait_for "STOPPING=1 reaches the notify socket" 5 grep -q '^STOPPING=1' "$NOTIFY_LOG"
check_eq "the notify socket got READY=1, then STOPPING=1" "READY=1 STOPPING=1" "$(cut -d' ' -f1 "$NOTIFY_LOG" | paste -sd' ')"
request "http://127.0.0.1:$HTTP_PORT/api/emoji"
check_eq "after exit, the inherited port no longer answers" 000 "$STATUS"

echo "Settings that cannot go with the inherited sockets: exit 1, one line naming them"
# The environment systemd sets, without systemd: `exec env` keeps the pid that LISTEN_PID names.
# Descriptor 3 is /dev/null: these are refused before any descriptor is looked at, except the
# last, which looks and finds no socket there.
activated_error() {
    local desc=$1 expected=$2 variables=$3 rc=0
    shift 3
    # shellcheck disable=SC2016
    timeout 20 sh -c 'exec env LISTEN_PID=$$ '"$variables"' "$0" "$@"' "$CAT_SERVICE" "$@" \
        3</dev/null >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
    local err
    err=$(cat "$WORK/bad.err")
    if ((rc == 1)) && [[ $err == "cat-service: $expected"* && $(wc -l <"$WORK/bad.err") -eq 1 && ! -s "$WORK/bad.out" ]]; then
        pass "$desc"
    else
        fail "$desc" "exit $rc, stdout '$(shorten "$(cat "$WORK/bad.out")")', stderr '$(shorten "$err")'"
    fi
}
activated_error "a TLS socket without a certificate names the socket and the flags" \
    'socket activation passed fd 3 ("https") for HTTPS, but no certificate is set: give --tls-certificate and --tls-private-key' \
    'LISTEN_FDS=1 LISTEN_FDNAMES=https'
activated_error "a certificate without a TLS socket names the flag and the names" \
    '--tls-certificate (or CAT_SERVICE_TLS_CERTIFICATE) is set, but socket activation passed no socket named "https" or "tls" to serve HTTPS on (LISTEN_FDNAMES: http)' \
    'LISTEN_FDS=1 LISTEN_FDNAMES=http' "${TLS_ARGS[@]}"
activated_error "--no-cleartext with a cleartext socket names both" \
    '--no-cleartext (or CAT_SERVICE_CLEARTEXT=false): the inherited socket fd 3 ("unknown") would serve cleartext HTTP, but cleartext is off' \
    'LISTEN_FDS=1' --no-cleartext "${TLS_ARGS[@]}"
activated_error "a malformed LISTEN_FDS names the variable and its value" \
    'socket activation: LISTEN_FDS must be a number of descriptors (a whole number, 0 or more), got "two"' \
    'LISTEN_FDS=two'
activated_error "LISTEN_FDNAMES with the wrong number of names is refused" \
    'socket activation: LISTEN_FDNAMES must have one colon-separated name per descriptor: LISTEN_FDS is 1, but it has 2, got "http:https"' \
    'LISTEN_FDS=1 LISTEN_FDNAMES=http:https'
activated_error "a descriptor that is not a listening socket names the descriptor" \
    'cannot serve the inherited socket fd 3 ("http"): getsockopt(inherited descriptor 3, SO_TYPE) failed: Socket operation on non-socket' \
    'LISTEN_FDS=1 LISTEN_FDNAMES=http'

activated_error "--proxy-protocol-socket naming no inherited socket names the flag and the names" \
    '--proxy-protocol-socket (or CAT_SERVICE_PROXY_PROTOCOL_SOCKETS) names "lb", but socket activation passed no socket with that name (LISTEN_FDNAMES: http)' \
    'LISTEN_FDS=1 LISTEN_FDNAMES=http' --trusted-proxy 127.0.0.1 --proxy-protocol-socket lb

echo "Socket activation with the PROXY protocol on the socket named lb"
SERVER_OUT="$WORK/proxied.out" SERVER_ERR="$WORK/proxied.err"
LB_PORT=$(free_port)
systemd-socket-activate -l "127.0.0.1:$LB_PORT" --fdname=lb "$CAT_SERVICE" --access-log --trusted-proxy 127.0.0.1 \
    --proxy-protocol-socket lb >"$SERVER_OUT" 2>"$SERVER_ERR" &
SERVER_PID=$!
SERVER_PIDS+=("$SERVER_PID")
wait_for "systemd-socket-activate listens on the lb socket" 10 grep -q "^Listening on 127.0.0.1:$LB_PORT" "$SERVER_ERR"
PORT=$LB_PORT
reply=$(raw_request 'PROXY TCP4 192.0.2.44 127.0.0.1 40404 80\r\nGET /api/emoji?count=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
check_match "a request after a PROXY header on the inherited lb socket: 200" '^HTTP/1.1 200 OK' "$reply"
check_match "the access log's client is the header's source" 'client=192\.0\.2\.44:40404 ' "$(wait_for_line 'GET /api/emoji\?count=3 ' "$SERVER_ERR")"
check_eq "a request without the header there: closed unanswered" "" "$(raw_request 'GET /api/emoji HTTP/1.1\r\nHost: x\r\n\r\n')"
stop_server TERM
check_eq "SIGTERM: exits 0" 0 "$EXIT_CODE"

echo "Socket activation of a Unix domain socket (ListenStream=/run/x.sock)"
SERVER_OUT="$WORK/unix.out" SERVER_ERR="$WORK/unix.err"
UNIX_SOCKET="$WORK/activated.sock"
systemd-socket-activate -l "$UNIX_SOCKET" --fdname=web "$CAT_SERVICE" --access-log >"$SERVER_OUT" 2>"$SERVER_ERR" &
SERVER_PID=$!
SERVER_PIDS+=("$SERVER_PID")
wait_for "systemd-socket-activate listens on the Unix socket" 10 grep -q "^Listening on $UNIX_SOCKET" "$SERVER_ERR"
request --unix-socket "$UNIX_SOCKET" "http://localhost/api/emoji?count=4"
check_eq "the inherited Unix domain socket is served: 200 with four cats" "200 4" "$STATUS $(count_cats "$(cat "$BODY")")"
wait_for "cat-service prints its listening line" 10 grep -q 'listening on' "$SERVER_OUT"
check_eq "... naming the socket's path" "cat-service listening on unix:$UNIX_SOCKET" "$(sed -n 1p "$SERVER_OUT")"
check_contains "the log says it was inherited" 'inherited=fd 3 ("web")' "$(cat "$SERVER_ERR")"
stop_server TERM
check_eq "SIGTERM: exits 0" 0 "$EXIT_CODE"
check "the inherited socket's file is systemd's: left in place" test -S "$UNIX_SOCKET"

echo "LISTEN_PID of another process: the variables are ignored, host and port are bound"
LISTEN_PID=1 LISTEN_FDS=1 LISTEN_FDNAMES=https start_server
request "$BASE/api/emoji"
check_eq "it serves on --port as usual" 200 "$STATUS"
stop_server
check_eq "SIGTERM: exits 0" 0 "$EXIT_CODE"

help=$("$CAT_SERVICE" --help 2>&1 || true)
check_contains "--help explains socket activation" "Socket activation (systemd)" "$help"
check_contains "--help names the TLS socket names and where they come from" '"https" or "tls" (FileDescriptorName=, LISTEN_FDNAMES)' "$(tr -s ' \n' ' ' <<<"$help")"

echo "The units in Demo/systemd: systemd-analyze verify"
# verify insists that ExecStart's binary exists: check copies that point at the binary under test.
# Unknown keys and similar mistakes are only warnings (exit 0), so its output must be empty too.
verify_units() {
    local desc=$1 dir=$2 rc=0
    shift 2
    (cd "$dir" && timeout 60 systemd-analyze verify --man=no "$@") >"$WORK/verify.out" 2>&1 || rc=$?
    if ((rc == 0)) && [[ ! -s "$WORK/verify.out" ]]; then
        pass "$desc"
    else
        fail "$desc" "exit $rc: $(shorten "$(cat "$WORK/verify.out")")"
    fi
}
EXEC_START=$(cd "$(dirname "$CAT_SERVICE")" && pwd)/$(basename "$CAT_SERVICE")    # absolute, as units need
mkdir -p "$WORK/units" "$WORK/units-https/cat-service.service.d"
for dir in "$WORK/units" "$WORK/units-https"; do
    cp "$UNITS_DIR/cat-service.socket" "$UNITS_DIR/cat-service-https.socket" "$dir/"
    sed "s|^ExecStart=/usr/local/bin/cat-service|ExecStart=$EXEC_START|" "$UNITS_DIR/cat-service.service" >"$dir/cat-service.service"
done
cp "$UNITS_DIR/https.conf" "$WORK/units-https/cat-service.service.d/"
check_contains "the copy's ExecStart is the binary under test" "ExecStart=$EXEC_START" "$(cat "$WORK/units/cat-service.service")"
verify_units "systemd-analyze verify: cat-service.socket and cat-service.service, no warnings" "$WORK/units" \
    ./cat-service.socket ./cat-service.service
verify_units "systemd-analyze verify: with cat-service-https.socket and the https.conf drop-in, no warnings" "$WORK/units-https" \
    ./cat-service.socket ./cat-service-https.socket ./cat-service.service
# verify reads the drop-in: a mistake in it is reported (so the check above means something).
echo "Bogus=1" >>"$WORK/units-https/cat-service.service.d/https.conf"
(cd "$WORK/units-https" && timeout 60 systemd-analyze verify --man=no ./cat-service.service) >"$WORK/verify.out" 2>&1 || true
check_contains "verify reads the drop-in (a bad key in it is reported)" "Unknown key 'Bogus'" "$(cat "$WORK/verify.out")"
# The sandbox, scored offline (0 is the most confined, 10 the least): it must stay "OK" or better.
rc=0
(cd "$WORK/units" && timeout 60 systemd-analyze security --offline=yes --threshold=20 --no-pager ./cat-service.service) \
    >"$WORK/security.out" 2>&1 || rc=$?
check_eq "systemd-analyze security: exposure at most 2.0 ($(grep -o 'exposure level for cat-service.service: .*' "$WORK/security.out" | cut -d' ' -f5-))" 0 "$rc"
check "the service is Type=notify" grep -qx 'Type=notify' "$UNITS_DIR/cat-service.service"
check "the service takes notifications from its main process only" grep -qx 'NotifyAccess=main' "$UNITS_DIR/cat-service.service"
check_contains "the https socket's descriptors are named https" "FileDescriptorName=https" "$(cat "$UNITS_DIR/cat-service-https.socket")"
