#!/usr/bin/env bash
# static-files.sh: cat-service --static DIR serves DIR at / beside the API, which keeps /api: a file
# with its type, length and validators, HEAD, a range, 304, .zst and .gz siblings for curl --compressed, the
# index of a folder, the 301 of a folder without its slash (query kept), over HTTP/1.1, h2c and TLS;
# the traversal corpus (Tests/WhiskerStaticFilesTests/TraversalCorpus.txt) and dotfiles refused;
# CAT_SERVICE_STATIC as the flag.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CORPUS="$DEMO_DIR/../../Tests/WhiskerStaticFilesTests/TraversalCorpus.txt"
ROOT="$WORK/site"
mkdir -p "$ROOT/docs" "$ROOT/deep/a/b" "$WORK/outside"
printf 'TOPSECRET-outside-the-root' >"$WORK/outside/secret.txt"
printf 'hello static\n' >"$ROOT/hello.txt"
printf '<h1>cats</h1>\n' >"$ROOT/index.html"
printf '<h1>docs</h1>\n' >"$ROOT/docs/index.html"
printf 'deep\n' >"$ROOT/deep/a/b/c.txt"
printf 'spaced\n' >"$ROOT/with space.txt"
printf 'DOTFILE-SECRET' >"$ROOT/.env"
ln -s ../outside/secret.txt "$ROOT/link-out"
python3 -c 'import sys; sys.stdout.write("console.log(\"cats\");\n" * 200)' >"$ROOT/app.js"
gzip -9 -k -n "$ROOT/app.js"
zstd -19 -q -k "$ROOT/app.js"

start_server --static "$ROOT" --tls-certificate "$DEMO_DIR/../../Tests/Certificates/localhost.pem" --tls-private-key "$DEMO_DIR/../../Tests/Certificates/localhost-key.pem" --tls-port 0
CA="$DEMO_DIR/../../Tests/Certificates/ca.pem"

echo "A file, HEAD, a range, 304"
request "$BASE/hello.txt"
check_eq "GET /hello.txt: 200" 200 "$STATUS"
check_eq "its bytes" "hello static" "$(cat "$BODY")"
check_eq "Content-Type by extension" "text/plain; charset=utf-8" "$(header content-type)"
check_eq "Content-Length" 13 "$(header content-length)"
check_match "a strong ETag" '^"[0-9a-f.-]+"$' "$(header etag)"
check_match "Last-Modified" ' GMT$' "$(header last-modified)"
ETAG=$(header etag)
request --head "$BASE/hello.txt"
check_eq "HEAD: 200 with the same ETag and length" "200 $ETAG 13" "$STATUS $(header etag) $(header content-length)"
raw_request 'HEAD /hello.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >"$WORK/raw"
check_eq "HEAD (raw): no byte after the head" 0 "$(bytes_after_head "$WORK/raw")"
request -H 'Range: bytes=6-11' "$BASE/hello.txt"
check_eq "Range: bytes=6-11: 206 'static'" "206 static" "$STATUS $(cat "$BODY")"
check_eq "Content-Range" "bytes 6-11/13" "$(header content-range)"
request -H "If-None-Match: $ETAG" "$BASE/hello.txt"
check_eq "If-None-Match with its ETag: 304" 304 "$STATUS"

echo "The API keeps /api"
request "$BASE/api/emoji"
check_eq "GET /api/emoji: 200 from the API" 200 "$STATUS"
request "$BASE/api/openapi.yaml"
check_eq "GET /api/openapi.yaml: the document" 200 "$STATUS"

echo "Precompressed siblings, index files, the slash"
request --compressed "$BASE/app.js"
check_eq "curl --compressed (no .br there): the .zst sibling (Content-Encoding: zstd)" zstd "$(header content-encoding)"
check "decoded by curl, the same bytes as app.js" cmp -s "$BODY" "$ROOT/app.js"
check "sent as the file's own zstd bytes: $(header content-length) bytes" test "$(header content-length)" -eq "$(wc -c <"$ROOT/app.js.zst")"
request --compressed -H 'Accept-Encoding: gzip' "$BASE/app.js"
check_eq "Accept-Encoding: gzip: the .gz sibling (Content-Encoding: gzip)" gzip "$(header content-encoding)"
check_eq "Vary: Accept-Encoding" Accept-Encoding "$(header vary)"
check "decoded, the same bytes as app.js" cmp -s "$BODY" "$ROOT/app.js"
check "sent as the file's own gzip bytes (not compressed again): $(header content-length) bytes" test "$(header content-length)" -eq "$(wc -c <"$ROOT/app.js.gz")"
request "$BASE/"
check_eq "GET /: index.html" "200 <h1>cats</h1>" "$STATUS $(cat "$BODY")"
request "$BASE/docs?page=2"
check_eq "GET /docs?page=2: 301 to /docs/?page=2" "301 /docs/?page=2" "$STATUS $(header location)"
request -L "$BASE/docs"
check_eq "followed: the folder's index" "<h1>docs</h1>" "$(cat "$BODY")"
request "$BASE/with%20space.txt"
check_eq "a name with a space (%20)" "200 spaced" "$STATUS $(cat "$BODY")"
request "$BASE/deep/a/b/c.txt"
check_eq "a deep path" "200 deep" "$STATUS $(cat "$BODY")"

echo "Refused: dotfiles, links, the traversal corpus"
request "$BASE/.env"
check_eq "GET /.env: 404" 404 "$STATUS"
request "$BASE/link-out"
check_eq "a symbolic link out of the root: 404" 404 "$STATUS"
request -X POST "$BASE/hello.txt"
check_eq "POST a file: 405 Allow: GET, HEAD" "405 GET, HEAD" "$STATUS $(header allow)"
# Each target sent exactly as written (curl would normalise some), on its own connection.
verdicts=$(python3 - "$PORT" "$CORPUS" <<'PY'
import socket, sys
port, corpus = int(sys.argv[1]), sys.argv[2]
bad = []
count = 0
for line in open(corpus, encoding="utf-8"):
    target = line.rstrip("\n")
    if not target or target.startswith("#"):
        continue
    count += 1
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET " + target.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    status = reply.split(b" ", 2)[1] if reply.count(b" ") >= 2 else b"?"
    if status not in (b"400", b"404") or b"TOPSECRET" in reply or b"DOTFILE-SECRET" in reply or b"root:x:0:0" in reply:
        bad.append(f"{target} -> {status.decode(errors='replace')}")
print(f"{count} {len(bad)} {'; '.join(bad[:5])}")
PY
)
read -r corpus_count corpus_bad corpus_detail <<<"$verdicts"
check "the corpus has 100 paths or more ($corpus_count)" test "$corpus_count" -ge 100
check_eq "every corpus path gets 400 or 404 and no byte of a secret" "0" "$corpus_bad${corpus_detail:+ $corpus_detail}"
check_contains "a refusal is logged with its reason" 'reason="a dot segment"' "$(grep 'static file refused' "$SERVER_ERR" | head -50 || true)"

echo "h2c and TLS"
request --http2-prior-knowledge "$BASE/hello.txt"
check_eq "h2c: the file" "200 hello static" "$STATUS $(cat "$BODY")"
request --http2-prior-knowledge -H 'Range: bytes=0-4' "$BASE/hello.txt"
check_eq "h2c: a range" "206 hello" "$STATUS $(cat "$BODY")"
request --cacert "$CA" "$TLS_BASE/hello.txt"
check_eq "HTTPS (h2 by ALPN): the file" "200 hello static" "$STATUS $(cat "$BODY")"
request --cacert "$CA" --http1.1 "$TLS_BASE/app.js"
check "HTTPS HTTP/1.1: app.js whole ($(wc -c <"$BODY") bytes)" cmp -s "$BODY" "$ROOT/app.js"
stop_server

echo "CAT_SERVICE_STATIC"
export CAT_SERVICE_STATIC=$ROOT
start_server
unset CAT_SERVICE_STATIC
request "$BASE/hello.txt"
check_eq "CAT_SERVICE_STATIC=DIR serves DIR at /" "200 hello static" "$STATUS $(cat "$BODY")"
request "$BASE/nothing-here"
check_eq "a missing file: 404" 404 "$STATUS"
stop_server
start_server
request "$BASE/hello.txt"
check_eq "without --static: no files" 404 "$STATUS"
