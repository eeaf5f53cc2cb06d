#!/usr/bin/env bash
# newcomer.sh: a new package made from README.md alone, built and served, as a newcomer's first
# hour goes (issue 40). `make test-newcomer` runs it; `make test` too.
#
# From README.md's "Use it in your own generated server" it takes, by text, so that a README change
# that breaks a newcomer breaks this test:
#   - the local-checkout dependency line, `.package(name: "whisker", path: "...")`, pointed at this
#     checkout (whose folder need not be named whisker: that is what the line is for);
#   - the target's `dependencies:` line and its `plugins: [...]` lines (the generator's plugin and
#     WhiskerEmbedDocument);
#   - the `main` snippet (`import Whisker` ... `try await server.run()`), with only its port changed
#     (to the server's first argument, a free port).
# It writes the rest as a newcomer would: Package.swift around those lines, the issue's
# openapi.yaml (GET /greet/{name}?shout=bool), the generator's configuration, and MyHandler.
# Then it builds the package in NEWCOMER_DIR (default .build-newcomer: the package in greeter/,
# its build folder in build/; the library's own .build is not touched), starts it on a free port
# of 127.0.0.1, and checks: ?shout=maybe is a 400 whose body names shout, ?shout=true a 200, a
# name over the document's maxLength a 400 (which only the document's checks refuse), the
# document at /api/openapi.yaml and /api/openapi.json, the docs page at /api/docs.
# Files are rewritten only when they change, so a second run is an incremental build. The build
# is bounded by NEWCOMER_BUILD_SECONDS (1200); the times of the build are printed.
set -euo pipefail
export LC_ALL=C.UTF-8

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${NEWCOMER_DIR:-$ROOT/.build-newcomer}
PACKAGE=$DIR/greeter
SCRATCH=$DIR/build
BUILD_SECONDS=${NEWCOMER_BUILD_SECONDS:-1200}
# make's own variables are left out of swift's environment (as the Makefile's SWIFT does): the
# generator's plugin is rebuilt whenever the environment differs from its last build.
SWIFT=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MAKE_TERMOUT -u MAKE_TERMERR swift)
CURL=(curl --silent --show-error --noproxy '*' --max-time 10)

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "  PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); echo "  FAIL  $1${2:+  -- $2}"; }

# write FILE: standard input into FILE, only if it differs (an unchanged file keeps its time, and
# the build stays incremental).
write() {
    local new
    new=$(cat; echo x)
    new=${new%x}
    if [[ ! -f $1 || $(cat "$1"; echo x) != "${new}x" ]]; then printf '%s' "$new" >"$1"; fi
}

mkdir -p "$PACKAGE/Sources/greeter" "$SCRATCH"

# The README's lines, or the test fails saying which is missing.
python3 - "$ROOT/README.md" "$ROOT" "$DIR/readme.json" <<'EOF'
import json, re, sys
readme, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(readme, encoding="utf-8").read()
start = text.find("## Use it in your own generated server")
if start < 0:
    sys.exit("newcomer: README.md has no section 'Use it in your own generated server'")
end = text.find("\n## ", start + 1)
section = text[start:end if end > 0 else len(text)]
blocks = re.findall(r"```swift\n(.*?)```", section, re.S)
found = {}
for block in blocks:
    lines = block.splitlines()
    for index, line in enumerate(lines):
        if re.match(r'\s*\.package\(name: "whisker", path: "[^"]*"', line):
            found["dependency"] = re.sub(r'path: "[^"]*"', "path: " + json.dumps(root), line.strip()).rstrip(",")
        if line.strip().startswith("dependencies: [") and '.product(name: "Whisker", package: "whisker")' in line:
            found["product"] = line.strip().rstrip(",")
        if line.strip().startswith("plugins: ["):
            plugin = []
            for following in lines[index:]:
                plugin.append(following)
                if following.strip().startswith("]"):
                    break
            found["plugins"] = "\n".join(plugin)
    if block.startswith("import Whisker\n") and "registerHandlers" in block and "server.run()" in block:
        found["main"] = block
for key in ("dependency", "product", "plugins", "main"):
    if key not in found:
        sys.exit(f"newcomer: README.md's section has no {key} line to take (see Scripts/newcomer.sh)")
if "WhiskerEmbedDocument" not in found["plugins"]:
    sys.exit("newcomer: README.md's plugins line does not list WhiskerEmbedDocument")
json.dump(found, open(out, "w"))
EOF
readme() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]], end="")' "$DIR/readme.json" "$1"; }

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
MAIN=$(readme main)
if [[ $MAIN != *"port: 8080"* ]]; then
    echo "newcomer: README.md's snippet no longer says 'port: 8080', which this test replaces by a free port" >&2
    exit 1
fi

write "$PACKAGE/Package.swift" <<EOF
// swift-tools-version: 6.2
// Written by Scripts/newcomer.sh from README.md's lines.
import PackageDescription

let package = Package(
    name: "greeter",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        $(readme dependency)
    ],
    targets: [
        .executableTarget(
            name: "greeter",
            $(readme product),
            $(readme plugins | sed '2,$s/^/            /')
        ),
    ]
)
EOF

# The issue's document: one operation, a path parameter and a boolean query parameter.
write "$PACKAGE/Sources/greeter/openapi.yaml" <<'EOF'
openapi: '3.1.0'
info:
  title: Greeter
  version: 1.0.0
servers:
  - url: http://127.0.0.1:8080/api
paths:
  /greet/{name}:
    get:
      operationId: greet
      parameters:
        - name: name
          in: path
          required: true
          schema:
            type: string
            maxLength: 16
        - name: shout
          in: query
          schema:
            type: boolean
      responses:
        '200':
          description: A greeting.
          content:
            text/plain:
              schema:
                type: string
EOF

write "$PACKAGE/Sources/greeter/openapi-generator-config.yaml" <<'EOF'
generate:
  - types
  - server
accessModifier: internal
EOF

write "$PACKAGE/Sources/greeter/MyHandler.swift" <<'EOF'
import OpenAPIRuntime

struct MyHandler: APIProtocol {
    func greet(_ input: Operations.greet.Input) async throws -> Operations.greet.Output {
        let greeting = "Hello, \(input.path.name)!"
        return .ok(.init(body: .plainText(HTTPBody(input.query.shout == true ? greeting.uppercased() : greeting))))
    }
}
EOF

# The port is the server's first argument (not written into the file, which stays the same from run
# to run, so that a second run builds nothing).
write "$PACKAGE/Sources/greeter/main.swift" <<<"${MAIN//port: 8080/port: Int(CommandLine.arguments[1])!}"

echo "newcomer: building $PACKAGE (build folder $SCRATCH)"
# SwiftPM keeps a package's build plan while its manifest is unchanged and does not see a file added
# to a path dependency (Whisker, here, "has no member" after a pull): the plan is dropped when the
# library's list of files changed since the last build. Only then: a dropped plan rebuilds
# everything, the generator's plugin included (about 180 steps, 40 s here, against 2 s).
files=$(cd "$ROOT" && find Package.swift Sources Plugins -type f -o -type l | LC_ALL=C sort | cksum)
if [[ $files != "$(cat "$DIR/files" 2>/dev/null)" ]]; then rm -f "$SCRATCH"/*/debug/description.json; fi
start=$SECONDS
if ! timeout "$BUILD_SECONDS" "${SWIFT[@]}" build --package-path "$PACKAGE" --scratch-path "$SCRATCH" --product greeter >"$DIR/build.log" 2>&1; then
    tail -40 "$DIR/build.log"
    echo "newcomer: the package made from README.md does not build (within ${BUILD_SECONDS} s); the log: $DIR/build.log" >&2
    exit 1
fi
echo "newcomer: built in $((SECONDS - start)) s"
echo "$files" >"$DIR/files"
BINARY=$("${SWIFT[@]}" build --package-path "$PACKAGE" --scratch-path "$SCRATCH" --show-bin-path)/greeter

"$BINARY" "$PORT" >"$DIR/server.out" 2>"$DIR/server.err" &
SERVER_PID=$!
stop() {
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
}
trap stop EXIT
deadline=$((SECONDS + 20))
until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    if ((SECONDS >= deadline)) || ! kill -0 "$SERVER_PID" 2>/dev/null; then
        cat "$DIR/server.err" >&2
        echo "newcomer: the server did not listen on 127.0.0.1:$PORT" >&2
        exit 1
    fi
    sleep 0.05
done
BASE="http://127.0.0.1:$PORT"

# request PATH: sets STATUS and BODY (a file).
BODY=$DIR/body
request() { STATUS=$("${CURL[@]}" -o "$BODY" -w '%{http_code}' "$BASE$1"); }

request '/api/greet/cat?shout=maybe'
if [[ $STATUS == 400 ]]; then pass "?shout=maybe: 400"; else fail "?shout=maybe: 400" "got $STATUS: $(cat "$BODY")"; fi
if grep -q 'shout' "$BODY"; then pass "?shout=maybe: the body names shout ($(cat "$BODY"))"; else fail "?shout=maybe: the body names shout" "$(cat "$BODY")"; fi

request '/api/greet/cat?shout=true'
if [[ $STATUS == 200 && $(cat "$BODY") == "HELLO, CAT!" ]]; then pass "?shout=true: 200 HELLO, CAT!"; else fail "?shout=true: 200 HELLO, CAT!" "got $STATUS: $(cat "$BODY")"; fi

request '/api/greet/cat'
if [[ $STATUS == 200 && $(cat "$BODY") == "Hello, cat!" ]]; then pass "no shout: 200 Hello, cat!"; else fail "no shout: 200 Hello, cat!" "got $STATUS: $(cat "$BODY")"; fi

# Only the document's checks know maxLength (the generated code takes any string): the snippet
# enforces the document, not only the generated types.
request '/api/greet/abcdefghijklmnopq'
if [[ $STATUS == 400 ]] && grep -q '"parameter":"name"' "$BODY"; then
    pass "a 17-character name: 400 naming name (the document's maxLength, enforced)"
else
    fail "a 17-character name: 400 naming name (the document's maxLength, enforced)" "got $STATUS: $(cat "$BODY")"
fi
request '/api/greet/abcdefghijklmnop'
if [[ $STATUS == 200 ]]; then pass "a 16-character name: 200"; else fail "a 16-character name: 200" "got $STATUS: $(cat "$BODY")"; fi

request '/api/openapi.yaml'
if [[ $STATUS == 200 ]] && cmp -s "$BODY" "$PACKAGE/Sources/greeter/openapi.yaml"; then
    pass "/api/openapi.yaml: the target's openapi.yaml, byte for byte"
else
    fail "/api/openapi.yaml: the target's openapi.yaml, byte for byte" "got $STATUS"
fi

request '/api/openapi.json'
if [[ $STATUS == 200 ]] && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["paths"]["/greet/{name}"]["get"]["operationId"] == "greet"' "$BODY" 2>/dev/null; then
    pass "/api/openapi.json: the document as JSON"
else
    fail "/api/openapi.json: the document as JSON" "got $STATUS"
fi

request '/api/docs'
if [[ $STATUS == 200 ]] && grep -qi '<html' "$BODY"; then pass "/api/docs: the docs page"; else fail "/api/docs: the docs page" "got $STATUS"; fi

stop
trap - EXIT
echo "newcomer: $PASSED passed, $FAILED failed"
((FAILED == 0))
