#!/usr/bin/env python3
"""check.py BIN_DIR SCRATCH [NAME...]: runs each of the generator's examples, as built in the scratch
package (extract.sh, then swift build), on Whisker, without and with validation, and checks it the
way its README and its client example use it, over HTTP/1.1 and h2c (curl --http2-prior-knowledge
and the `h2` package: h2c is not in URLSession on Linux). Loopback only; each server on a port of
its own (port 0); every wait bounded.

Prints one line per example and mode ("PASS hello-world-vapor [validation off]" or "FAIL ...:
reason"), then "N passed, M failed"; exits 0 only when none failed. NAME... runs only those
examples (see CHECKS at the end).
"""
import email.parser
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time

BIN, SCRATCH = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
START_TIMEOUT = 60


class Failure(Exception):
    pass


def expect(condition, reason):
    if not condition:
        raise Failure(reason)


class Server:
    """An example's binary on 127.0.0.1 at a port it picks; its output collected line by line."""

    def __init__(self, product, validate, env=None):
        self.lines = []
        self.cond = threading.Condition()
        environment = dict(os.environ, EXAMPLE_PORT="0", EXAMPLE_VALIDATE="1" if validate else "0", **(env or {}))
        self.process = subprocess.Popen([os.path.join(BIN, product)], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, env=environment)
        threading.Thread(target=self._read, daemon=True).start()
        line = self.wait_for(r"^listening on ", START_TIMEOUT)
        if line is None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        expect(line is not None, "%s did not start listening within %d s: %s" % (product, START_TIMEOUT, self.output()[-400:]))
        self.port = int(line.rsplit(":", 1)[1])

    def _read(self):
        for raw in self.process.stdout:
            with self.cond:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        """The first output line matching `pattern`, waiting up to `timeout` seconds; None if none."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines:
                    if re.search(pattern, line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    return None
                self.cond.wait(left)

    def output(self):
        with self.cond:
            return "\n".join(self.lines)

    def wait_count(self, line, count, timeout):
        """Whether `line` appears `count` times in the output within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.lines.count(line) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        """SIGTERM; the server must drain and exit 0 (a crash is a failure, unless one is reported already)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                if kind is None:
                    raise Failure("did not drain and exit within 15 s of SIGTERM")
        if kind is None:
            expect(self.process.returncode == 0, "exited with %s: %s" % (self.process.returncode, self.output()[-300:]))
        return False


def request(port, method, path, body=None, headers=None):
    """HTTP/1.1: (status, headers as a lower-cased dict, body bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def curl_h2c(port, method, path, body=None, headers=None):
    """h2c with prior knowledge, through curl: (status, headers, body bytes)."""
    command = ["curl", "-sS", "--http2-prior-knowledge", "-X", method, "-D", "-", "--max-time", "20",
               "http://127.0.0.1:%d%s" % (port, path)]
    for name, value in (headers or {}).items():
        command += ["-H", "%s: %s" % (name, value)]
    if body is not None:
        command += ["--data-binary", "@-"]
    result = subprocess.run(command, input=body, capture_output=True, timeout=30)
    expect(result.returncode == 0, "curl h2c %s %s: exit %d %s" % (method, path, result.returncode, result.stderr.decode()[:200]))
    head, _, data = result.stdout.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    expect(lines[0].startswith("HTTP/2 "), "curl h2c %s %s: not HTTP/2: %r" % (method, path, lines[0]))
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), fields, data


def both(port, method, path, body=None, headers=None):
    """The same request over HTTP/1.1 and h2c: [(protocol, status, headers, body)]."""
    return [("HTTP/1.1",) + request(port, method, path, body, headers),
            ("h2c",) + curl_h2c(port, method, path, body, headers)]


def run_client(product, port, timeout=60):
    result = subprocess.run([os.path.join(BIN, product)], capture_output=True, timeout=timeout,
                            env=dict(os.environ, EXAMPLE_SERVER_URL="http://127.0.0.1:%d/api" % port))
    output = result.stdout.decode("utf-8", "replace")
    expect(result.returncode == 0, "the client example %s exited %d: %s" % (
        product, result.returncode, (output + result.stderr.decode("utf-8", "replace"))[-400:]))
    return output


# --- hello-world (the Vapor and Hummingbird examples share one document and one handler) ---

def check_hello_world(product):
    def check(validate):
        with Server(product, validate) as server:
            for protocol, status, fields, data in both(server.port, "GET", "/api/greet?name=Jane"):
                expect(status == 200, "%s GET /api/greet?name=Jane: %d" % (protocol, status))
                expect(json.loads(data) == {"message": "Hello, Jane!"}, "%s greeting: %r" % (protocol, data))
            for protocol, status, fields, data in both(server.port, "GET", "/api/greet"):
                expect(json.loads(data) == {"message": "Hello, Stranger!"}, "%s greeting without a name: %r" % (protocol, data))
            output = run_client("HelloWorldClient", server.port)
            expect(output == "Hello, Stranger!\n", "the URLSession client example printed %r" % output[:200])
            status, _, _ = request(server.port, "GET", "/api/nowhere")
            expect(status == 404, "GET /api/nowhere: %d, not 404" % status)
    return check


# --- various-content-types: its URLSession client example, then each content type by hand ---

MULTIPART_NAMES = [("Frank", "en_US"), ("Not Frank", None)]


def parse_multipart(content_type, data):
    message = email.parser.BytesParser().parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + data)
    expect(message.is_multipart(), "not a multipart body: %r" % data[:120])
    return [(dict((k.lower(), v) for k, v in part.items()), part.get_payload(decode=True)) for part in message.get_payload()]


def check_content_types(validate):
    with Server("ContentTypes", validate) as server:
        output = run_client("ContentTypesClient", server.port)
        for line in ["Received greeting: Hello, CLI!", "Sent JSON greeting: Hello, Stranger!",
                     "Received text: A snow log.", "Sent plain text",
                     "Received a JSON greeting with the message: Hello, Stranger!",
                     "Sent multiple content types: JSON", "Sent URLEncoded greeting: Hello, Stranger!",
                     "Received chunk: [115, 110, 111, 119, 10]", "Sent binary",
                     "Received a template message: Hello, {name}!",
                     "Received a name: 'Frank', header value: 'en_US'",
                     "Received a name: 'Not Frank', header value: '<nil>'", "Sent multipart"]:
            expect(line in output, "the client example did not print %r: %s" % (line, output[-300:]))
        for pattern in [r"Greeting a person with the name: CLI", r"Received a greeting with the message: 'Hello, Stranger!'",
                        r"Received text: A snow log\.", r"Received a JSON greeting with the message: Hello, Stranger!",
                        r"Received chunk: \[115, 110, 111, 119, 10\]", r"Received a template message: Hello, \{name\}!",
                        r"Received a name: 'Frank', header value: 'en_US'", r"Received a name: 'Not Frank', header value: '<nil>'"]:
            expect(server.wait_for(pattern, 5), "the server did not print /%s/ for the client's requests" % pattern)

        if validate:
            # The document enforced: a greeting without its required message never reaches the handler.
            for protocol, status, _, data in both(server.port, "POST", "/api/exampleJSON", b"{}", {"Content-Type": "application/json"}):
                expect(status == 400 and b"message" in data, "%s POST {} to exampleJSON: %d %r" % (protocol, status, data[:200]))
        for protocol, status, fields, data in both(server.port, "GET", "/api/exampleRawBytes"):
            expect(status == 200 and data == b"snow\n", "%s raw bytes: %d %r" % (protocol, status, data))
        for protocol, status, fields, data in both(server.port, "GET", "/api/examplePlainText"):
            expect(data.startswith(b"A snow log.\n---\n") and fields.get("content-type", "").startswith("text/plain"),
                   "%s plain text: %r %r" % (protocol, fields.get("content-type"), data[:40]))
        for protocol, status, fields, data in both(server.port, "GET", "/api/exampleMultipleContentTypes", headers={"Accept": "text/plain"}):
            expect(data == b"Hello, Stranger!", "%s Accept: text/plain chose %r" % (protocol, data))
        for protocol, status, fields, data in both(server.port, "POST", "/api/exampleURLEncoded", b"message=Hi%20form",
                                                   {"Content-Type": "application/x-www-form-urlencoded"}):
            expect(status == 202, "%s form: %d %r" % (protocol, status, data[:200]))
        expect(server.wait_for(r"Received a greeting with the message: 'Hi form'", 5), "the form's message did not reach the handler")

        # The multipart response, part by part, byte for byte (boundary aside: the runtime picks it).
        for protocol, status, fields, data in both(server.port, "GET", "/api/exampleMultipart"):
            expect(status == 200, "%s GET multipart: %d" % (protocol, status))
            parts = parse_multipart(fields.get("content-type", ""), data)
            expect(len(parts) == 3, "%s multipart: %d parts, not 3" % (protocol, len(parts)))
            headers, body = parts[0]
            expect('name="greetingTemplate"' in headers.get("content-disposition", "") and headers.get("content-type", "").split(";")[0] == "application/json"
                   and json.loads(body) == {"message": "Hello, {name}!"}, "%s part 1: %r %r" % (protocol, headers, body))
            for (headers, body), (name, locale) in zip(parts[1:], MULTIPART_NAMES):
                expect('name="names"' in headers.get("content-disposition", "") and headers.get("content-type", "").split(";")[0] == "text/plain"
                       and body == name.encode() and headers.get("x-name-locale") == locale,
                       "%s names part: %r %r, not %r %r" % (protocol, headers, body, name, locale))

        # A multipart upload of our own, UTF-8 names, sent in 7-byte pieces (parts cut across reads).
        boundary = "whisker-check-boundary"
        names = ["Zoë", "名前", "a" * 300]
        upload = ("--%s\r\nContent-Disposition: form-data; name=\"greetingTemplate\"\r\nContent-Type: application/json\r\n\r\n"
                  "{\"message\":\"Hi, {name}!\"}\r\n" % boundary)
        for n, name in enumerate(names):
            upload += "--%s\r\nContent-Disposition: form-data; name=\"names\"\r\nContent-Type: text/plain\r\n%s\r\n%s\r\n" % (
                boundary, "x-name-locale: loc%d\r\n" % n, name)
        upload = (upload + "--%s--\r\n" % boundary).encode()
        content_type = "multipart/form-data; boundary=%s" % boundary
        chunked_post(server.port, "/api/exampleMultipart", upload, content_type, piece=7)
        _, _, _ = curl_h2c(server.port, "POST", "/api/exampleMultipart", upload, {"Content-Type": content_type})
        for n, name in enumerate(names):
            line = "Received a name: '%s', header value: 'loc%d'" % (name, n)
            expect(server.wait_count(line, 2, 5), "the server did not receive %r byte for byte over both protocols" % name[:20])


def chunked_post(port, path, body, content_type, piece):
    """POST `body` chunked, in `piece`-byte chunks each in its own write; returns the status."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nTransfer-Encoding: chunked\r\n"
                   "Connection: close\r\n\r\n" % (path, content_type)).encode())
        for i in range(0, len(body), piece):
            chunk = body[i:i + piece]
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            time.sleep(0.001)
        s.sendall(b"0\r\n\r\n")
        answer = b""
        while True:
            data = s.recv(65536)
            if not data:
                break
            answer += data
    status = int(answer.split(b" ", 2)[1])
    expect(status == 202, "chunked multipart POST: %d %r" % (status, answer[:300]))


# --- event-streams: JSON Lines, JSON Sequence, SSE, each event as it is yielded ---

COUNT = 3


def h1_stream(port, path, headers):
    """HTTP/1.1 GET; yields (arrival, bytes) as the body arrives (chunked framing removed)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n" % (
        path, "".join("%s: %s\r\n" % kv for kv in headers.items()))).encode())
    response = http.client.HTTPResponse(s)
    response.begin()
    expect(response.status == 200, "HTTP/1.1 GET %s: %d" % (path, response.status))
    while True:
        data = response.read1(65536)
        if not data:
            break
        yield time.monotonic(), data
    s.close()


def h2c_stream(port, path, headers):
    """h2c GET through curl -N; yields (arrival, bytes) as curl writes them."""
    command = ["curl", "-sSN", "--http2-prior-knowledge", "--max-time", "30", "http://127.0.0.1:%d%s" % (port, path)]
    for kv in headers.items():
        command += ["-H", "%s: %s" % kv]
    client = subprocess.Popen(command, stdout=subprocess.PIPE)
    while True:
        data = os.read(client.stdout.fileno(), 65536)
        if not data:
            break
        yield time.monotonic(), data
    expect(client.wait() == 0, "curl h2c GET %s failed" % path)


def events_of(kind, chunks):
    """[(arrival of the event's last byte, the greeting's message)] from the stream's chunks."""
    events, pending = [], b""
    separator = {"jsonl": b"\n", "json-seq": b"\n", "sse": b"\n\n"}[kind]
    for arrival, data in chunks:
        pending += data
        while separator in pending:
            record, pending = pending.split(separator, 1)
            if kind == "json-seq":
                expect(record.startswith(b"\x1e"), "a JSON Sequence record without its RS: %r" % record[:40])
                record = record[1:]
            if kind == "sse":
                fields = dict(line.split(": ", 1) for line in record.decode().split("\n") if ": " in line)
                expect(fields.get("event") == "greeting" and fields.get("retry") == "10000" and fields.get("id"),
                       "an SSE event without the example's fields: %r" % record[:120])
                record = fields["data"].encode()
            events.append((arrival, json.loads(record)["message"]))
    expect(pending.strip() == b"", "bytes after the last event: %r" % pending[:60])
    return events


def check_event_streams(validate):
    spacing = []
    with Server("EventStreams", validate) as server:
        # The URLSession client example: three greetings in each of the three formats.
        output = run_client("EventStreamsClient", server.port)
        greetings = re.findall(r"^Got greeting: (.*)$", output, re.M)
        expect(len(greetings) == 9 and all("Example" in g for g in greetings), "the client example printed %r" % output[-300:])
        for kind, accept in [("jsonl", "application/jsonl"), ("json-seq", "application/json-seq"), ("sse", "text/event-stream")]:
            for protocol, stream in [("HTTP/1.1", h1_stream), ("h2c", h2c_stream)]:
                path = "/api/greetings?name=Whisker&count=%d" % COUNT
                start = time.monotonic()
                events = events_of(kind, stream(server.port, path, {"Accept": accept}))
                end = time.monotonic()
                label = "%s %s" % (protocol, kind)
                expect(len(events) == COUNT, "%s: %d events, not %d" % (label, len(events), COUNT))
                expect(all("Whisker" in message for _, message in events), "%s: a greeting without the name: %r" % (label, events))
                # The handler yields one greeting a second: each must arrive when yielded, spaced
                # by about a second, not bunched (a buffered response would deliver all at the end).
                # (A buffered stream's first event would come with the last, after about 3 s.)
                expect(events[0][0] - start < 1.5, "%s: the first event came after %.2f s" % (label, events[0][0] - start))
                gaps = [b[0] - a[0] for a, b in zip(events, events[1:])]
                spacing += gaps
                expect(all(0.6 < gap < 2.5 for gap in gaps), "%s: events spaced %s s, not about 1 s" % (
                    label, ", ".join("%.2f" % g for g in gaps)))
                expect(end - events[-1][0] > 0.5, "%s: the stream ended %.2f s after its last event, not about 1 s (the handler's sleep)"
                       % (label, end - events[-1][0]))
        status, _, data = request(server.port, "GET", "/api/greetings?count=notanumber")
        expect(status == 400, "GET ?count=notanumber: %d, not 400" % status)
        if validate:
            expect(b"count" in data, "GET ?count=notanumber: the 400 does not name count: %r" % data[:200])
    return "events spaced %.2f-%.2f s over HTTP/1.1 and h2c" % (min(spacing), max(spacing))


# --- bidirectional-event-streams: the client example's exchange, to its end ---

TEMPLATES = ["Hello, %s!", "Good morning, %s!", "Hi, %s!", "Greetings, %s!", "Hey, %s!", "Hi there, %s!", "Good evening, %s!"]
INTERVAL = 1.0  # the client example's pace: one message a second, seven messages


def bidirectional_h1(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(b"POST /api/greetings?name=Example HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/jsonl\r\n"
                  b"Accept: application/jsonl\r\nTransfer-Encoding: chunked\r\n\r\n")
        reader = s.makefile("rb")
        received = []
        head = None
        for n, template in enumerate(TEMPLATES):
            line = json.dumps({"message": template.replace("%s", "%@")}).encode() + b"\n"
            s.sendall(b"%x\r\n%s\r\n" % (len(line), line))
            if head is None:
                head = reader.readline()
                expect(head.startswith(b"HTTP/1.1 200"), "HTTP/1.1: %r" % head)
                while reader.readline() not in (b"\r\n", b""):
                    pass
            size = reader.readline()
            expect(size.strip() not in (b"", b"0"), "HTTP/1.1: the response ended after %d greetings" % n)
            received.append(json.loads(reader.read(int(size, 16)))["message"])
            reader.readline()
            time.sleep(INTERVAL)
        s.sendall(b"0\r\n\r\n")
        last = reader.readline()
        expect(last.strip() == b"0", "HTTP/1.1: no end of the response after the request's end: %r" % last)
        return received


def bidirectional_h2c(port):
    import h2.config
    import h2.connection
    import h2.events
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    connection.send_headers(1, [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"),
                                (":path", "/api/greetings?name=Example"), ("content-type", "application/jsonl"),
                                ("accept", "application/jsonl")])
    s.sendall(connection.data_to_send())
    received, pending, ended, status = [], b"", False, None

    def pump(until):
        nonlocal pending, ended, status
        while not until():
            readable, _, _ = select.select([s], [], [], 10)
            expect(readable, "h2c: nothing from the server for 10 s")
            data = s.recv(65536)
            expect(data, "h2c: the server closed the connection")
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = dict(event.headers)[b":status"]
                elif isinstance(event, h2.events.DataReceived):
                    pending += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, 1)
                    while b"\n" in pending:
                        line, pending = pending.split(b"\n", 1)
                        received.append(json.loads(line)["message"])
                elif isinstance(event, h2.events.StreamEnded):
                    ended = True
                elif isinstance(event, h2.events.StreamReset):
                    raise Failure("h2c: the server reset the stream (error %s) after %d greetings" % (event.error_code, len(received)))
            s.sendall(connection.data_to_send())

    for n, template in enumerate(TEMPLATES):
        connection.send_data(1, json.dumps({"message": template.replace("%s", "%@")}).encode() + b"\n")
        s.sendall(connection.data_to_send())
        pump(lambda: len(received) > n or ended)
        expect(len(received) == n + 1, "h2c: the response ended after %d greetings" % len(received))
        time.sleep(INTERVAL)
    connection.end_stream(1)
    s.sendall(connection.data_to_send())
    pump(lambda: ended)
    expect(status == b"200", "h2c: status %r" % status)
    s.close()
    return received


def check_bidirectional(validate):
    with Server("BidirectionalEventStreams", validate) as server:
        expected = [template % "Example" for template in TEMPLATES]
        took = []
        for protocol, driver in [("HTTP/1.1", bidirectional_h1), ("h2c", bidirectional_h2c)]:
            start = time.monotonic()
            received = driver(server.port)
            expect(received == expected, "%s: greetings %r, not %r" % (protocol, received, expected))
            took.append(time.monotonic() - start)
            expect(took[-1] > INTERVAL * (len(TEMPLATES) - 1), "%s: over too soon" % protocol)
        # The driver shape, fast: the whole request body at once, answered whole.
        status, _, data = request(server.port, "POST", "/api/greetings?name=X", b'{"message":"Yo, %@!"}\n',
                                  {"Content-Type": "application/jsonl"})
        expect(status == 200 and json.loads(data) == {"message": "Yo, X!"}, "one-shot POST: %d %r" % (status, data))
    return "7 greetings in %.1f s (HTTP/1.1), %.1f s (h2c)" % tuple(took)


# --- auth-server-middleware: its ServerMiddleware runs before the handler ---

def check_auth(validate):
    with Server("AuthServer", validate) as server:
        for protocol, status, _, data in both(server.port, "GET", "/api/greet?name=Jane", headers={"Authorization": "token_for_Frank"}):
            expect(status == 200 and json.loads(data) == {"message": "Hello, Jane! (Requested by: Frank)"},
                   "%s with the token: %d %r" % (protocol, status, data))
        for headers in [{}, {"Authorization": "token_for_Mallory"}]:
            for protocol, status, _, data in both(server.port, "GET", "/api/greet?name=Jane", headers=headers):
                expect(status == 401, "%s %s: %d, not 401" % (protocol, headers or "without a token", status))


# --- shared-types: the server and its URLSession client, one Types module between them ---

def check_shared_types(validate):
    with Server("SharedTypesServer", validate) as server:
        output = run_client("SharedTypesClient", server.port)
        expect("|Hello, Stranger!|" in output and output.count("+") >= 4, "the client example printed %r" % output[:300])
        for protocol, status, _, data in both(server.port, "GET", "/api/greet?name=Box"):
            expect(status == 200 and "|Hello, Box!|" in json.loads(data)["message"], "%s: %d %r" % (protocol, status, data))


# --- swagger-ui-endpoint: the Public folder at /, /openapi redirected, the API at /api ---

def check_swagger_ui(validate):
    public = os.path.join(SCRATCH, "Public")
    with Server("SwaggerUI", validate, env={"EXAMPLE_PUBLIC": public}) as server:
        for protocol, status, fields, _ in both(server.port, "GET", "/openapi"):
            expect(status == 301 and fields.get("location") == "openapi.html", "%s GET /openapi: %d %r" % (protocol, status, fields.get("location")))
        for name in ["openapi.html", "openapi.yaml"]:
            with open(os.path.join(public, name), "rb") as f:
                original = f.read()
            for protocol, status, fields, data in both(server.port, "GET", "/" + name):
                expect(status == 200 and data == original, "%s GET /%s: %d, %d bytes, not the file" % (
                    protocol, name, status, len(data)))
        for protocol, status, _, data in both(server.port, "GET", "/api/greet?name=UI"):
            expect(status == 200 and json.loads(data) == {"message": "Hello, UI!"}, "%s API: %d %r" % (protocol, status, data))


# --- the generator's reference petstore.yaml: a request per operation from the generated Client ---

# Requests petstore.yaml does not allow, each with the parameter its refusal must name.
PETSTORE_VIOLATIONS = [
    ("GET", "/api/pets", {}, "filter"),                                             # a required deepObject missing
    ("GET", "/api/pets?filter%5Bname%5D=Tom&limit=many", {}, "limit"),              # int32
    ("GET", "/api/pets?filter%5Bname%5D=Tom&habitat=sea", {}, "habitat"),           # enum
    ("GET", "/api/pets?filter%5Bname%5D=Tom&feeds=grass", {}, "feeds"),             # an array's enum items
    ("GET", "/api/pets?filter%5Bname%5D=Tom&since=yesterday", {}, "since"),         # date-time
    ("GET", "/api/pets?filter%5Bname%5D=Tom", {"My-Request-UUID": "not-a-uuid"}, "My-Request-UUID"),  # uuid
    ("PATCH", "/api/pets/forty-two", {}, "petId"),                                  # int64 in the path
]


def check_petstore(validate):
    if validate:
        # The violations first, each refused naming its parameter (the stubs only serving).
        with Server("Petstore", validate, env={"PETSTORE_SERVE": "1"}) as server:
            for method, path, headers, name in PETSTORE_VIOLATIONS:
                status, _, data = request(server.port, method, path, headers=headers)
                # Named, and nothing else: a filter that is there must not be reported missing. A
                # violation inside a parameter's value is named by the parameter and a JSON pointer
                # into it (`feeds/0`: the array's first item), as request validation names them.
                named = set(re.findall(r'"parameter":"([^"]*)"', data.decode("utf-8", "replace")))
                named = {n.split("/", 1)[0] if n.startswith(name + "/") else n for n in named}
                expect(status == 400 and named == {name}, "%s %s: %d naming %s, not a 400 naming %s only" % (
                    method, path, status, ", ".join(sorted(named)) or "nothing", name))
    environment = dict(os.environ, EXAMPLE_VALIDATE="1" if validate else "0", EXAMPLE_PORT="0")
    result = subprocess.run([os.path.join(BIN, "Petstore")], capture_output=True, timeout=120, env=environment)
    output = (result.stdout + result.stderr).decode("utf-8", "replace")
    failed = [line[:240] for line in output.splitlines() if line.startswith("FAIL")]
    expect(result.returncode == 0 and not failed, "; ".join(failed) or "exited %d: %s" % (result.returncode, output[-400:]))


CHECKS = [
    ("hello-world-vapor", check_hello_world("HelloWorldVapor")),
    ("hello-world-hummingbird", check_hello_world("HelloWorldHummingbird")),
    ("various-content-types", check_content_types),
    ("event-streams", check_event_streams),
    ("bidirectional-event-streams", check_bidirectional),
    ("auth-server-middleware", check_auth),
    ("shared-types", check_shared_types),
    ("swagger-ui-endpoint", check_swagger_ui),
    ("petstore", check_petstore),
]

passed = failed = 0
for name, check in CHECKS:
    if ONLY and name not in ONLY:
        continue
    for validate in (False, True):
        label = "%s [validation %s]" % (name, "on" if validate else "off")
        start = time.monotonic()
        try:
            note = check(validate)
            passed += 1
            print("PASS %s (%.1f s%s)" % (label, time.monotonic() - start, ": " + note if note else ""), flush=True)
        except (Failure, OSError, subprocess.TimeoutExpired, ValueError, KeyError, IndexError) as error:
            failed += 1
            print("FAIL %s: %s" % (label, error), flush=True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
