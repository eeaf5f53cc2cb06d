#!/usr/bin/env bash
# log-forging.sh: what a client sends cannot add a field to cat-service's log (issue 38). The text
# `x" peer=6.6.6.6 status=299 y="` goes in an Expect, a Host, a Content-Length, a User-Agent, an
# X-Request-ID, a request target, a query value the document refuses (HTTP/1.1 and h2c), with a
# percent-encoded CR LF and a U+2028 LINE SEPARATOR as line-break attempts (a raw vertical tab is
# refused by the parser). Every
# line of the log (debug level, access log on) is then read with logfmt's rules: none has a
# `peer=6.6.6.6` or `status=299` field, no line starts with the forged text, and the values that
# carry it are there, quoted and escaped.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The quote breaks out of the quotes a reason puts around a value (unsupported expectation "...").
FORGED='x" peer=6.6.6.6 status=299 y="'
# lq TEXT: TEXT as a logfmt value: in double quotes, \ and " escaped.
lq() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
start_server --access-log --log-level debug
raw() { raw_request "$1" >"$WORK/raw.out"; head -n1 "$WORK/raw.out" | cut -d' ' -f2; }
check_eq "Expect: x $FORGED: 417" 417 "$(raw "GET /api/emoji HTTP/1.1\r\nHost: x\r\nExpect: x $FORGED\r\n\r\n")"
check_eq "a vertical tab in a field value: refused by the parser, 400" 400 "$(raw "GET /api/emoji HTTP/1.1\r\nHost: x\r\nExpect: x\x0b$FORGED\r\n\r\n")"
check_eq "Host: a $FORGED: 400" 400 "$(raw "GET /api/emoji HTTP/1.1\r\nHost: a $FORGED\r\n\r\n")"
check_eq "Content-Length: 1 $FORGED: 400" 400 "$(raw "POST /api/census HTTP/1.1\r\nHost: x\r\nContent-Length: 1 $FORGED\r\n\r\n")"
check_eq "a target in authority form that reads like a field: refused" 400 "$(raw "GET $FORGED HTTP/1.1\r\nHost: x\r\n\r\n" | tr -d '\r')"
REQUEST_ID='x"peer=6.6.6.6'
request -H "User-Agent: curl $FORGED" -H "X-Request-ID: $REQUEST_ID" "$BASE/api/emoji"
check_eq "User-Agent and X-Request-ID with it: 200" 200 "$STATUS"
for http in --http1.1 --http2-prior-knowledge; do
    request "$http" "$BASE/api/emoji?count=x%22%20peer%3D6.6.6.6%20status%3D299%20y%3D%22"
    check_eq "a query value with it ($http): 400" 400 "$STATUS"
    request "$http" "$BASE/api/emoji?count=x%0D%0Apeer%3D6.6.6.6%20status%3D299"
    check_eq "... after a percent-encoded CR LF ($http): 400" 400 "$STATUS"
    request "$http" "$BASE/api/emoji?count=x%E2%80%A8peer%3D6.6.6.6%20status%3D299"
    check_eq "... after a U+2028 LINE SEPARATOR ($http): 400" 400 "$STATUS"
done
request "$BASE/api/emoji"
wait_for_line 'GET /api/emoji 200' "$SERVER_ERR" >/dev/null

# Every line, read as logfmt, left to right: KEY=VALUE with VALUE bare or "quoted, \" escaped";
# a quoted word that is no value (a message's) is skipped whole.
cat >"$WORK/logfmt.py" <<'PY'
import sys

def pairs(line):
    i, n, found = 0, len(line), []
    while i < n:
        while i < n and line[i] == " ":
            i += 1
        start = i
        while i < n and line[i] not in ' ="':
            i += 1
        key = line[start:i]
        if i < n and line[i] == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            continue
        if i >= n or line[i] != "=":
            continue
        i += 1
        value = ""
        if i < n and line[i] == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                value += line[i]
                i += 1
            i += 1
        else:
            while i < n and line[i] != " ":
                value += line[i]
                i += 1
        found.append((key, value))
    return found

for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("peer=6.6.6.6") or any(p in (("peer", "6.6.6.6"), ("status", "299")) for p in pairs(line)):
        print(line)
PY
forged_fields=$(python3 "$WORK/logfmt.py" "$SERVER_ERR")
check_eq "no log line has a forged peer= or status= field" "" "$forged_fields"
log=$(cat "$SERVER_ERR")
check_contains "the Expect value is quoted in the reason" "reason=$(lq "unsupported expectation \"x $FORGED\"")" "$log"
check_contains "the Host value is quoted" "reason=$(lq "invalid Host \"a $FORGED\"")" "$log"
check_contains "the Content-Length value is quoted" "reason=$(lq "invalid Content-Length \"1 $FORGED\"")" "$log"
check_contains "the request id is quoted" "request_id=$(lq "$REQUEST_ID")" "$log"
check_contains "the refused query value is quoted" "error=$(lq 'query parameter count: must be an integer, got a string ("x\" peer=6.6.6.6 status=299 y=\"")')" "$log"
check_contains "... a CR LF in it escaped" 'got a string (\"x\\r\\npeer=6.6.6.6' "$log"
check_contains "... a LINE SEPARATOR in it escaped" 'got a string (\"x\u{2028}peer=6.6.6.6' "$log"
check_eq "the User-Agent is in no log line" 0 "$(grep -c "curl $FORGED" "$SERVER_ERR" || true)"
check "the server is alive after" is_running "$SERVER_PID"
