#!/usr/bin/env python3
"""extract.py EXAMPLES_DIR SCRATCH_DIR: lays out the scratch package's Sources/ from the generator's
files (EXAMPLES_DIR holds what `git archive` of the generator's checkout gave: Examples/ and the
reference petstore.yaml) and our bootstraps (Bootstraps/ beside this script).

For each example target the authors' files are copied as they are, except:
- a server's file with `@main`: the `@main struct ... { ... }` at its end is cut (the bootstrap,
  which ours replaces), and its imports of Vapor and Hummingbird go: `import Vapor` becomes
  `import Foundation` (which Vapor re-exports and the handlers use), `import OpenAPIVapor`,
  `import OpenAPIHummingbird` and `import Hummingbird` are dropped;
- a client's file: `URL(string: "http://localhost:8080/api")!` becomes `URL(string: exampleServerURL)!`.
Then it checks that nothing else changed: the file's lines, with those edits undone, are the
original's, and the handlers' part (all but the imports and the cut `@main`) hashes the same in
both. Each edit is listed in SCRATCH_DIR/extract.log. Any other difference, or a file where a
rule does not apply as expected, stops it with the reason.
"""
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BOOTSTRAPS = os.path.join(HERE, "Bootstraps")
examples, scratch = sys.argv[1], sys.argv[2]
E = os.path.join(examples, "Examples")

# target: (kind, the authors' folder under Examples/ or a file, our bootstrap folder or None)
TARGETS = {
    "HelloWorldVapor": ("server", "hello-world-vapor-server-example/Sources/HelloWorldVaporServer"),
    "HelloWorldHummingbird": ("server", "hello-world-hummingbird-server-example/Sources/HelloWorldHummingbirdServer"),
    "HelloWorldClient": ("client", "hello-world-urlsession-client-example/Sources/HelloWorldURLSessionClient"),
    "ContentTypes": ("server", "various-content-types-server-example/Sources/ContentTypesServer"),
    "ContentTypesClient": ("client", "various-content-types-client-example/Sources/ContentTypesClient"),
    "EventStreams": ("server", "event-streams-server-example/Sources/EventStreamsServer"),
    "EventStreamsClient": ("client", "event-streams-client-example/Sources/EventStreamsClient"),
    "BidirectionalEventStreams": ("server", "bidirectional-event-streams-server-example/Sources/BidirectionalEventStreamsServer"),
    "AuthenticationServerMiddleware": ("library", "auth-server-middleware-example/Sources/AuthenticationServerMiddleware"),
    "AuthServer": ("server", "auth-server-middleware-example/Sources/HelloWorldVaporServer"),
    "Types": ("library", "shared-types-client-server-example/Sources/Types"),
    "SharedTypesServer": ("server", "shared-types-client-server-example/Sources/Server"),
    "SharedTypesClient": ("client", "shared-types-client-server-example/Sources/Client"),
    "SwaggerUI": ("server", "swagger-ui-endpoint-example/Sources/SwaggerUIEndpointsServer"),
}
DROPPED_IMPORTS = {"import OpenAPIVapor", "import OpenAPIHummingbird", "import Hummingbird"}
REPLACED_IMPORTS = {"import Vapor": "import Foundation"}
AUTHORS_URL = 'URL(string: "http://localhost:8080/api")!'
OUR_URL = "URL(string: exampleServerURL)!"

log = []


def fail(message):
    sys.exit("extract.py: " + message)


def digest(lines):
    return hashlib.sha256("".join(lines).encode()).hexdigest()[:16]


def cut_server(path, text):
    """The authors' file without its bootstrap: returns the kept text."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("@main struct ")]
    if len(starts) != 1:
        fail("%s: expected one `@main struct` at the start of a line, found %d" % (path, len(starts)))
    start = starts[0]
    # The bootstrap must be the file's last declaration: its closing brace, then nothing.
    rest = "".join(lines[start:])
    if not rest.rstrip().endswith("}") or any(l.startswith(("struct ", "extension ", "final class ", "actor ", "enum ", "func ")) for l in lines[start + 1:]):
        fail("%s: the `@main struct` is not the file's last declaration" % path)
    kept, undo = [], []
    for i, line in enumerate(lines[:start]):
        bare = line.strip()
        if bare in DROPPED_IMPORTS:
            undo.append((len(kept), line, None))
            log.append("%s:%d: dropped %r" % (path, i + 1, bare))
        elif bare in REPLACED_IMPORTS:
            new = line.replace(bare, REPLACED_IMPORTS[bare])
            undo.append((len(kept), line, new))
            kept.append(new)
            log.append("%s:%d: %r -> %r" % (path, i + 1, bare, REPLACED_IMPORTS[bare]))
        else:
            kept.append(line)
    log.append("%s:%d-%d: cut the @main bootstrap (%d lines)" % (path, start + 1, len(lines), len(lines) - start))
    # Check: undo the import edits and get the original's lines before @main, byte for byte.
    rebuilt = list(kept)
    for index, original, new in reversed(undo):
        if new is None:
            rebuilt.insert(index, original)
        else:
            assert rebuilt[index] == new
            rebuilt[index] = original
    if rebuilt != lines[:start]:
        fail("%s: the kept part differs from the authors' beyond the imports" % path)
    handlers_original = [l for l in lines[:start] if not l.startswith("import ")]
    handlers_kept = [l for l in kept if not l.startswith("import ")]
    if digest(handlers_original) != digest(handlers_kept):
        fail("%s: the handlers' hash differs" % path)
    log.append("%s: handlers byte for byte the authors' (%d lines, sha256 %s)" % (path, len(handlers_kept), digest(handlers_kept)))
    return "".join(kept)


def point_client(path, text):
    if text.count(AUTHORS_URL) != 1:
        fail("%s: expected the authors' server URL once, found %d" % (path, text.count(AUTHORS_URL)))
    new = text.replace(AUTHORS_URL, OUR_URL)
    if new.replace(OUR_URL, AUTHORS_URL) != text:
        fail("%s: the client differs beyond its server URL" % path)
    log.append("%s: %s -> %s; the rest byte for byte (sha256 %s)" % (path, AUTHORS_URL, OUR_URL, digest([text])))
    return new


# Everything is laid out in memory first, then written where it differs: an unchanged file keeps
# its time, so that a second run rebuilds nothing.
files = {}  # path under SCRATCH: bytes


def read(path):
    with open(path, "rb") as f:
        return f.read()


def add_folder(source, destination):
    for folder, _, names in os.walk(source):
        for name in names:
            path = os.path.join(folder, name)
            files[os.path.join(destination, os.path.relpath(path, source))] = read(path)


for target, (kind, folder) in TARGETS.items():
    source_dir = os.path.join(E, folder)
    if not os.path.isdir(source_dir):
        fail("%s: no folder %s in the generator's Examples" % (target, folder))
    out = os.path.join("Sources", target)
    for name in sorted(os.listdir(source_dir)):
        path = os.path.join(source_dir, name)
        relative = os.path.relpath(path, examples)
        text = read(path).decode("utf-8")
        if name.endswith(".swift") and kind == "server" and re.search(r"^@main struct ", text, re.M):
            text = cut_server(relative, text)
        elif name.endswith(".swift") and kind == "client":
            text = point_client(relative, text)
        files[os.path.join(out, name)] = text.encode("utf-8")
    if kind == "server":
        add_folder(os.path.join(BOOTSTRAPS, target), out)
    elif kind == "client":
        files[os.path.join(out, "ExampleServerURL.swift")] = read(os.path.join(BOOTSTRAPS, "Shared", "ExampleServerURL.swift"))

# The swagger-ui example's Public folder, served by its bootstrap.
add_folder(os.path.join(E, "swagger-ui-endpoint-example", "Public"), "Public")
# Ours: the support library, and the petstore target on the generator's reference document.
add_folder(os.path.join(BOOTSTRAPS, "ExampleSupport"), os.path.join("Sources", "ExampleSupport"))
add_folder(os.path.join(BOOTSTRAPS, "Petstore"), os.path.join("Sources", "Petstore"))
files[os.path.join("Sources", "Petstore", "openapi.yaml")] = read(
    os.path.join(examples, "Tests/OpenAPIGeneratorReferenceTests/Resources/Docs/petstore.yaml"))

written = 0
for top in ("Sources", "Public"):
    for folder, _, names in os.walk(os.path.join(scratch, top), topdown=False):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.relpath(path, scratch) not in files:
                os.remove(path)
        if not os.listdir(folder):
            os.rmdir(folder)
for relative, data in files.items():
    path = os.path.join(scratch, relative)
    if os.path.exists(path) and read(path) == data:
        continue
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    written += 1

with open(os.path.join(scratch, "extract.log"), "w") as f:
    f.write("\n".join(log) + "\n")
print("extract.py: %d targets in %s, %d files written (edits: %s)" % (
    len(TARGETS) + 2, os.path.join(scratch, "Sources"), written, os.path.join(scratch, "extract.log")))
