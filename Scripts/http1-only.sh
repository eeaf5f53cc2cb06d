#!/usr/bin/env bash
# http1-only.sh PATH/TO/HTTP1OnlyExample: serves the HTTP/1.1-only example (WhiskerCore and
# OpenAPIWhisker, no TLS or HTTP/2 linked) on a free loopback port and checks it as a client would:
# a GET gets its answer, an HTTP/2 prior-knowledge client gets an HTTP/1.1 error (nothing of HTTP/2
# is there to answer it), SIGTERM stops it with status 0. Prints its idle RSS and stripped size.
# `make test` runs it; exits non-zero on the first failed check.
set -euo pipefail
binary=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/http1-only.XXXXXX")
pid=
cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "http1-only: FAIL: $*"; exit 1; }

"$binary" 0 >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 100); do
    grep -q "listening on" "$work/out" && break
    kill -0 "$pid" 2>/dev/null || fail "exited before listening: $(cat "$work/err")"
    sleep 0.1
done
address=$(sed -n 's/^listening on //p' "$work/out")
[[ -n $address ]] || fail "no 'listening on' line within 10 s"

curl=(curl --silent --show-error --noproxy '*' --max-time 10)
body=$("${curl[@]}" "http://$address/hello/world")
[[ $body == "hello world" ]] || fail "GET /hello/world answered '$body'"
status=$("${curl[@]}" -o /dev/null -w '%{http_code}' "http://$address/nope")
[[ $status == 404 ]] || fail "GET /nope answered $status, not 404"
if "${curl[@]}" --http2-prior-knowledge -o /dev/null "http://$address/hello/world" 2>/dev/null; then
    fail "an HTTP/2 prior-knowledge request succeeded on an HTTP/1.1-only server"
fi

rss_kib=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
cp "$binary" "$work/stripped" && strip "$work/stripped"
size_kib=$(( $(stat -c %s "$work/stripped") / 1024 ))

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[[ $status == 0 ]] || fail "SIGTERM: exit status $status"
echo "http1-only: GET, 404, HTTP/2 refused, clean SIGTERM; idle RSS ${rss_kib} KiB, stripped binary ${size_kib} KiB"
