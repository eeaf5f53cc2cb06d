#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/), from the unit and
in-process tests' inputs: requests from HTTP1RequestParserTests, templates and paths from
RouterTests, Range values from ByteRangesTests, h2c heads from HTTP2UpgradeTests, and HTTP/2 frame
sequences like HTTP2AbuseTests and WhiskerTesting's HTTP2Frame write them. Run it after changing a
target's input format: `python3 Fuzz/make_corpus.py` (it replaces the seed folders)."""

import hashlib
import os
import shutil
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def raw(text):
    """A seed's bytes: `\\xNN` escapes in these strings are bytes (UTF-8 is spelled out as bytes)."""
    if isinstance(text, bytes):
        return text
    return text.encode("latin-1") if all(ord(c) < 256 for c in text) else text.encode("utf-8")


def write(target, seeds):
    folder = os.path.join(ROOT, target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, data in seeds:
        data = raw(data)
        digest = hashlib.sha1(data).hexdigest()[:8]
        with open(os.path.join(folder, f"{name}-{digest}"), "wb") as f:
            f.write(data)


# --- HTTP/1.1 parser: byte 0 limits preset (0 tiny, 1 small, 2 defaults, 3 tiny without a body
# limit), bytes 1-2 the cut point (little-endian), then the wire.

def h1(limits, cut, wire):
    return bytes([limits]) + struct.pack("<H", cut) + wire.encode("latin-1")


def chunked(body):
    return "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body


H1 = [
    ("get", 2, 20, "GET /pets?limit=2&tag=a%20b HTTP/1.1\r\nHost: example.com\r\n\r\n"),
    ("fields", 2, 30, "GET / HTTP/1.1\r\nHost: x\r\nX-Spaces:   a  b \t \r\nX-Tight:c\r\nX-Empty:\r\nX-Tab: one\ttwo\r\n\r\n"),
    ("length", 1, 45, "POST / HTTP/1.1\r\nhOsT: x\r\ncontent-LENGTH: 2\r\n\r\nab"),
    ("http10", 0, 5, "GET /old HTTP/1.0\r\n\r\n"),
    ("absolute", 2, 9, "GET http://example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: other.example\r\n\r\n"),
    ("asterisk", 2, 3, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("pipelined", 2, 70,
     "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
     "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
     "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
     "GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    ("leading-crlf", 2, 3, "\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
    ("continue", 1, 60, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\nhello world"),
    ("chunked-ext", 1, 80, chunked("5;ext=\"v\"\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\nX-Other: o\r\n\r\n")),
    ("chunked-zeros", 3, 66, chunked("00000000000000000005\r\nhello\r\n0\r\n\r\n")),
    ("chunked-next", 2, 100, chunked("5;name=value\r\nhello\r\n6 ; ext;quoted=\"a b\"\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")),
    ("cl-list", 2, 40, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello"),
    ("cl-te", 2, 50, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("cl-differ", 2, 50, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
    ("cl-huge", 2, 50, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"),
    ("te-gzip", 2, 50, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
    ("te-http10", 2, 30, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("obs-fold", 2, 28, "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"),
    ("space-colon", 2, 20, "GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
    ("nul-value", 2, 30, "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n"),
    ("two-hosts", 2, 30, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
    ("bare-lf", 2, 10, "GET / HTTP/1.1\nHost: x\n\n"),
    ("chunk-bare-lf", 2, 60, chunked("5\r\nhello\r\n0\r\nX-T: a\n\r\n")),
    ("chunk-size-big", 3, 60, chunked("FFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n")),
    ("chunk-no-crlf", 2, 60, chunked("5\r\nhelloXY0\r\n\r\n")),
    ("tls-hello", 2, 2, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
    ("partial-lines", 0, 7, "GET / HTTP/1.1\r\nHost: x\r\nBad Name"),
    ("long-line", 0, 30, "GET /" + "a" * 60 + " HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("many-fields", 0, 40, "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n"),
    ("trailer-limit", 0, 70, chunked("0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n")),
    ("body-limit", 0, 60, chunked("20\r\n" + "b" * 32 + "\r\n1\r\nc\r\n0\r\n\r\n")),
    ("version", 2, 12, "GET / HTTP/2.0\r\nHost: x\r\n\r\nGET / HTTP/1.2\r\nHost: x\r\n\r\n"),
    ("fragment", 2, 8, "GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("preface", 2, 10, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    ("h2c", 2, 40, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n"),
    ("route-405", 2, 25, "DELETE /pets HTTP/1.1\r\nHost: x\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"),
]

# --- Router: lines, `+METHOD /template` registers, `METHOD /path` matches.
ROUTER = [
    ("pets", "GET /pets\nGET /pets/\nGET /pets/7\nGET /pets/mine\nGET /pets/7/photos\nHEAD /pets/7\nPOST /pets/7\n"),
    ("files", "GET /files/x.tar.gz\nGET /files/x.gz\nGET /files/x.txt\nGET /files/a/b\nGET /files/a%2Fb\nGET /files/%41b%2fc\n"),
    ("file", "GET /file/archive.zip\nGET /file/a.b.zip\nGET /file/a.zip.zip\nGET /file/.zip\nGET /file/a.zip/info\nGET /file/a.zipx\n"),
    ("nested", "GET /users/u1/pets/p2/toys/t3.json\nGET /users//toys\nGET /users/u/toys\n"),
    ("dash", "GET /x-y\nGET /x-y-z\nGET /-y\nGET /x-\nGET /xy\n"),
    ("percent", "GET /api/%65moji\nGET /%61%70%69/%45moji\nGET /api%2Femoji\nGET /%7Eme\nGET /%7eme\nGET /files/%zz\nGET /files/100%\n"),
    ("utf8", "GET /files/caf%C3%A9%20au%20lait\nGET /files/caf\xc3\xa9\nGET /pets/\xe2\x84\xaa\n"),
    ("methods", "OPTIONS /clip\nHEAD /clip\nPURGE /cache/k\nPATCH /a/1/c2e/3\nDELETE /echo\nBREW /pets\n"),
    ("register", "+GET /things/{id}\n+GET /things/{other}\n+POST /things/{id}.json\nGET /things/7\nGET /things/7.json\nPOST /things/7.json\n"),
    ("register-bad", "+GET /a/{\n+GET /a/{}\n+GET /a/}\n+GET /a/{b{c}}\n+GET /a/b}c\n+GET /{a}{b}\n+GET /{id}/{id}\n+GET pets\nGET /a/x\n"),
    ("register-mixed", "+GET /m/{name}.ext{n}\n+GET /m/file.v{v}.ext{e}\nGET /m/file.v1.ext2\nGET /m/file.ext200\n"),
    ("no-slash", "GET pets\nGET \nGET\n"),
]

# --- Ranges: line 1 the length, line 2 the Range value, then fields.
RANGES = [
    ("simple", "10\nbytes=2-5\n"),
    ("suffix", "10\nbytes=-3\n:method: HEAD\n"),
    ("past-end", "10\nbytes=20-\n"),
    ("several", "10\nbytes=0-1,4-5\n"),
    ("open", "100\nbytes=500-\n"),
    ("list", "100\nbytes=0-1,,-3\n"),
    ("ows", "100\n  bytes=0-0  \n"),
    ("upper", "100\nBYTES=1-1\n"),
    ("malformed", "100\nbytes=1-+2\n"),
    ("overflow", "100\nbytes=99999999999999999999-\n"),
    ("fullwidth", "100\nbytes=\xef\xbc\x91-2\n"),
    ("if-range-etag", "100\nbytes=10-19\nIf-Range: \"v1\"\nETag: \"v1\"\n"),
    ("if-range-weak", "100\nbytes=10-19\nIf-Range: W/\"v1\"\nETag: W/\"v1\"\n"),
    ("if-range-date", "100\nbytes=10-19\nIf-Range: Sun, 22 Nov 2026 10:00:00 GMT\nLast-Modified: Sun, 22 Nov 2026 10:00:00 GMT\n"),
    ("encoded", "100\nbytes=0-1\nContent-Encoding: gzip\n"),
    ("none", "100\nbytes=0-1\nAccept-Ranges: none\n"),
    ("own-206", "100\nbytes=0-1\nContent-Range: bytes 0-1/10\n:status: 206\n"),
    ("zero", "0\nbytes=-5\n"),
    ("negative", "-5\nbytes=0-3\n"),
    ("huge", "9223372036854775807\nbytes=-9223372036854775807\n"),
    ("two-range-fields", "100\nbytes=0-1\nRange: bytes=2-3\n"),
]

# --- h2c: an HTTP/1.1 head (and what follows it).
CURL = "AAMAAABkAAQCAAAAAAIAAAAA"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def settings(entries=(), ack=False):
    return frame(4, 1 if ack else 0, 0, b"".join(struct.pack(">HI", i, v) for i, v in entries))


H2C = [
    ("curl", f"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: {CURL}\r\n\r\n"),
    ("head", f"HEAD /hello HTTP/1.1\r\nHost: x\r\nConnection: upgrade, http2-settings\r\nUpgrade: websocket, h2c\r\nHTTP2-Settings: {CURL}\r\n\r\n"),
    ("empty-settings", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: \r\n\r\n"),
    ("no-option", f"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: {CURL}\r\n\r\n"),
    ("websocket", f"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: websocket\r\nHTTP2-Settings: {CURL}\r\n\r\n"),
    ("body", f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: {CURL}\r\n\r\nabc"),
    ("two-settings", f"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: {CURL}\r\nHTTP2-Settings: {CURL}\r\n\r\n"),
    ("base64-plus", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk+A\r\n\r\n"),
    ("padded", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk==\r\n\r\n"),
    ("bad-window", "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAT_____\r\n\r\n"),
    ("absolute", f"OPTIONS http://example.com:80 HTTP/1.1\r\nHost: other\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: {CURL}\r\nKeep-Alive: 5\r\nTE: trailers\r\n\r\n"),
    ("base64-only", CURL),
]
H2C_BINARY = [
    ("with-preface", H2C[0][1].encode() + PREFACE + settings()),
    ("with-frames", H2C[0][1].encode() + PREFACE + settings([(4, 0)]) + frame(8, 0, 1, struct.pack(">I", 100))),
]

# --- HTTP/2 session: byte 0 flags (bit 0 upgrade, bit 1 HEAD, bit 2 shutdown, bits 3-4 settings
# preset), bytes 1-3 the choice seed, then what the client sends after its preface and SETTINGS.


def hpack_string(text):
    data = raw(text)
    return hpack_int(len(data), 7, 0) + data


def hpack_int(value, prefix, first):
    limit = (1 << prefix) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value):  # without indexing, new name (RFC 7541 §6.2.2)
    return b"\x00" + hpack_string(name) + hpack_string(value)


def literal_indexed(name, value):  # incremental indexing, new name (§6.2.1)
    return b"\x40" + hpack_string(name) + hpack_string(value)


def request(method="GET", path="/hello", authority="localhost", fields=()):
    block = literal(":method", method) + literal(":scheme", "http") + literal(":path", path)
    if authority is not None:
        block += literal(":authority", authority)
    for name, value in fields:
        block += literal(name, value)
    return block


def headers(stream, block, end_stream=True, end_headers=True, extra_flags=0):
    return frame(1, (1 if end_stream else 0) | (4 if end_headers else 0) | extra_flags, stream, block)


def data(stream, payload, end_stream=False):
    return frame(0, 1 if end_stream else 0, stream, payload)


def h2(flags, seed, wire):
    return bytes([flags]) + seed.to_bytes(3, "little") + wire


SMALL = 1 << 3
TINY_WINDOW = 2 << 3
FEW_FIELDS = 3 << 3

H2 = [
    ("get", h2(0, 1, headers(1, request())),),
    ("get-small", h2(SMALL, 7, headers(1, request()) + headers(3, request(path="/pets/7")) + headers(5, request("HEAD", "/clip"))),),
    ("post-echo", h2(0, 3, headers(1, request("POST", "/echo", fields=[("content-length", "11")]), end_stream=False)
                    + data(1, b"hello ") + data(1, b"world", end_stream=True)),),
    ("post-window", h2(TINY_WINDOW, 5, headers(1, request("PUT", "/echo"), end_stream=False) + data(1, b"x" * 64) + data(1, b"", True)),),
    ("post-too-large", h2(0, 9, headers(1, request("POST", "/echo", fields=[("content-length", "99999")]), end_stream=False) + data(1, b"y" * 5000, True)),),
    ("not-found", h2(0, 11, headers(1, request(path="/nope")) + headers(3, request("DELETE", "/pets"))),),
    ("continuation", h2(0, 13, headers(1, request()[:10], end_headers=False) + frame(9, 4, 1, request()[10:])),),
    ("continuations-many", h2(SMALL, 13, headers(1, request()[:4], end_headers=False) + b"".join(frame(9, 0, 1, request()[4 + i:5 + i]) for i in range(5)) + frame(9, 4, 1, request()[9:])),),
    ("hpack-bomb", h2(0, 15, headers(1, request() + literal_indexed("x-big", "v" * 4000) + b"\xbe" * 30)),),
    ("many-fields", h2(FEW_FIELDS, 17, headers(1, request(fields=[(f"x-field-{i}", "v") for i in range(6)])) + headers(3, request())),),
    ("lower-stream", h2(0, 19, headers(5, request()) + headers(3, request())),),
    ("rst", h2(0, 21, headers(1, request("POST", "/echo"), end_stream=False) + frame(3, 0, 1, struct.pack(">I", 8)) + headers(3, request())),),
    ("ping-window", h2(0, 23, frame(6, 0, 0, b"12345678") + frame(8, 0, 0, struct.pack(">I", 1000)) + headers(1, request())),),
    ("settings", h2(0, 25, settings([(1, 4096), (3, 10), (4, 0), (5, 16384), (6, 1000)]) + settings(ack=True) + headers(1, request())
                    + settings([(4, 65535)]) + frame(8, 0, 1, struct.pack(">I", 100000))),),
    ("zero-window", h2(0, 27, settings([(4, 0)]) + headers(1, request()) + frame(8, 0, 1, struct.pack(">I", 3))),),
    ("goaway", h2(0, 29, headers(1, request()) + frame(7, 0, 0, struct.pack(">II", 1, 0) + b"bye")),),
    ("shutdown", h2(4, 31, headers(1, request()) + frame(6, 1, 0, b"whisker!") + headers(3, request())),),
    ("upgrade", h2(1, 33, frame(8, 0, 0, struct.pack(">I", 100)) + headers(3, request())),),
    ("upgrade-head", h2(3, 35, headers(3, request("HEAD", "/hello"))),),
    ("priority-padded", h2(0, 37, headers(1, b"\x03" + struct.pack(">I", 0) + b"\x10" + request() + b"\x00\x00\x00", extra_flags=0x28)
                           + frame(2, 0, 3, struct.pack(">IB", 1, 16))),),
    ("host-authority", h2(0, 39, headers(1, request(authority=None, fields=[("host", "example.com")])) + headers(3, request(fields=[("host", "other")]))),),
    ("bad-authority", h2(0, 41, headers(1, request(authority="user@example.com")) + headers(3, request(path="/a#b"))),),
    ("missing-path", h2(0, 43, headers(1, literal(":method", "GET") + literal(":scheme", "http"))),),
    ("echo-field", h2(0, 45, headers(1, request(fields=[("x-echo", "value")])) + headers(3, request("GET", "/pets/\xc3\xa9"))),),
    ("push-promise", h2(0, 47, frame(5, 4, 1, struct.pack(">I", 2) + request())),),
    ("even-stream", h2(0, 49, headers(2, request())),),
    ("data-idle", h2(0, 51, data(1, b"abc", True)),),
    ("rapid-reset", h2(SMALL, 53, b"".join(headers(2 * i + 1, request("POST", "/echo"), end_stream=False) + frame(3, 0, 2 * i + 1, struct.pack(">I", 8)) for i in range(16))),),
    ("streamed", h2(0, 55, b"".join(headers(2 * i + 1, request(path="/pets/%d" % i)) for i in range(8)) + frame(8, 0, 0, struct.pack(">I", 1 << 20))),),
    ("bad-frame-size", h2(0, 57, frame(6, 0, 0, b"1234567") + headers(1, request())),),
    ("trailers", h2(0, 59, headers(1, request("POST", "/echo"), end_stream=False) + data(1, b"abc") + headers(1, literal("x-trailer", "t"))),),
]

# --- The real connections (ConnectionHarness): 4 seed bytes then the wire (HTTP/1.1); one settings
# byte, 4 seed bytes, then what follows the preface (HTTP/2). The session's frame sequences, and
# requests for the harness's gated, streamed and endless routes.

def h2_connection(seed_entry):
    flags, wire = seed_entry[0], seed_entry[4:]
    return bytes([(flags >> 3) & 3]) + struct.pack("<I", seed_entry[1] | seed_entry[2] << 8) + wire


H2_CONNECTION = [(name, h2_connection(seed[0])) for name, *seed in H2] + [
    ("gates", bytes([0]) + struct.pack("<I", 61) + b"".join(headers(2 * i + 1, request(path=p)) for i, p in enumerate(["/gate", "/stream", "/events", "/gate", "/hello"]))),
    ("events-reset", bytes([1]) + struct.pack("<I", 63) + headers(1, request(path="/events")) + frame(8, 0, 1, struct.pack(">I", 0x7FFFFFFF))
                     + headers(3, request(path="/events")) + frame(3, 0, 3, struct.pack(">I", 8))),
    ("echo-slow", bytes([2]) + struct.pack("<I", 65) + headers(1, request("POST", "/echo"), end_stream=False) + b"".join(data(1, b"z" * 40) for _ in range(8)) + data(1, b"", True)),
]

H1_CONNECTION = [(name, struct.pack("<I", 7 + i) + wire.encode("latin-1")) for i, (name, _, _, wire) in enumerate(H1)] + [
    ("gates", struct.pack("<I", 71) + b"GET /gate HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("events", struct.pack("<I", 73) + b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("echo-chunked", struct.pack("<I", 75) + b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("upgrade", struct.pack("<I", 77) + b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\n\r\n"),
]

# --- Dictionaries (libFuzzer -dict=): tokens the targets' formats are made of.

H1_DICT = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "CONNECT", "PATCH", "PRI", " ", "\r\n", "\r\n\r\n", "\n", ":", ": ",
    "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/", "http://", "https://", "*", "/", "?", "#", "%", "%2F", "[::1]",
    "Host:", "Content-Length:", "Transfer-Encoding:", "chunked", "gzip", "identity", "Connection:", "close", "keep-alive",
    "Upgrade", "Upgrade:", "h2c", "HTTP2-Settings:", "HTTP2-Settings", "Expect:", "100-continue", ";", "=", ",", "\t", "\x00",
    "\x7f", "0\r\n\r\n", "FFFFFFFFFFFFFFF", "99999999999999999999", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "\x16\x03\x01",
    "/pets/", "/files/", "/echo", "Range:", "bytes=",
]
ROUTER_DICT = [
    "GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "PURGE ", "+GET ", "+POST ", "\n", "/", "{", "}", "{id}",
    "{name}", "{name}.{ext}", "{a}-{b}", ".zip", ".gz", ".tar.gz", "%", "%2F", "%2f", "%41", "%7E", "%7e", "%65", "%C3%A9",
    "%zz", "/pets", "/pets/", "/pets/mine", "/files/", "/file/", "/users/", "/toys/", "/photos", "/clip", "/api/emoji", "~",
    "-", ".", "\xc3\xa9", "e\xcc\x81", "\xe2\x84\xaa", "\xcd\xbe", ";", "`", "//",
]
RANGES_DICT = [
    "bytes=", "BYTES=", "-", ",", " ", "\t", "0", "1", "9223372036854775807", "9223372036854775808", "-1", "\n",
    "If-Range: ", "ETag: ", "Last-Modified: ", "Accept-Ranges: ", "none", "Content-Encoding: ", "Content-Range: ",
    ":method: ", "HEAD", ":status: ", "206", "\"v1\"", "W/", "Range: ", "Sun, 22 Nov 2026 10:00:00 GMT",
]
H2C_DICT = H1_DICT + [
    "Connection: Upgrade, HTTP2-Settings\r\n", "Upgrade: h2c\r\n", "HTTP2-Settings: ", CURL, "AAMAAABk", "AAQAAAAA",
    "AAIAAAAA", "AAT_____", "=", "-", "_", "+",
]
H2_DICT = [
    PREFACE, b"\x00\x00\x00\x04\x00\x00\x00\x00\x00", b"\x00\x00\x00\x04\x01\x00\x00\x00\x00", b"\x01\x04\x00\x00\x00\x01",
    b"\x01\x05\x00\x00\x00\x01", b"\x00\x01\x00\x00\x00\x01", b"\x09\x04\x00\x00\x00\x01", b"\x03\x00\x00\x00\x00\x01",
    b"\x08\x00\x00\x00\x00\x00", b"\x06\x00\x00\x00\x00\x00", b"\x07\x00\x00\x00\x00\x00", b"\x82", b"\x84", b"\x86",
    b"\x87", b"\x41", b"\x44", b"\xbe", b"\x3f\xe1\x1f", b"\x20", b"\x00\x07:method\x03GET", b"\x00\x05:path\x01/",
    b"\x00\x07:scheme\x04http", b"\x00\x0a:authority\x09localhost", b"\x00\x0econtent-length", b"\x00\x06x-echo",
    b"\x00\x04host", b"/hello", b"/echo", b"POST", b"HEAD", b"\x7f\xff\xff\xff", b"\x00\x00\x40\x00",
]


def dictionary(name, tokens):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Dictionaries", name + ".dict")
    with open(path, "w") as f:
        f.write(f"# libFuzzer dictionary for {name}; written by Fuzz/make_corpus.py\n")
        for token in tokens:
            data = raw(token)
            escaped = "".join(chr(b) if 0x20 <= b < 0x7F and b not in (0x22, 0x5C) else f"\\x{b:02x}" for b in data)
            f.write(f'"{escaped}"\n')


# FuzzDocumentReaders: a selector byte (even: a JSON body; odd: a YAML document), then the text.
DOCUMENTS = [
    ("json-valid", b"\x00" + b'{"name":"tom","age":3,"tags":["a","b"],"next":{"name":"kit"},"map":{"x":true}}'),
    ("json-violations", b"\x00" + b'{"name":"Tom!","age":-1.5,"ratio":0,"kind":"cow","tags":["a","a"],"extra":1,"next":{}}'),
    ("json-escapes", b"\x02" + b'["\\u00e9\\ud83d\\ude3a\\n", -0.5e-3, 1e400, 12345678901234567890, true, null]'),
    ("json-deep", b"\x00" + b"[" * 130 + b"]" * 130),
    ("json-bad", b"\x00" + b'{"a":1,}'),
    ("yaml-openapi", b"\x01" + b"openapi: '3.1.0'\ninfo:\n  title: \"T \\u263A\"\n  description: >-\n    folded\n    text\npaths:\n  /x:\n    get:\n      parameters:\n        - name: n\n          in: query\n          schema: {type: integer, minimum: 1}\n      tags: [a, 'b, c']\n      list:\n      - x\n      - y: 1\n        z: |\n          kept\n"),
    ("yaml-anchor", b"\x01" + b"a: &x 1\nb: *x\n"),
    ("yaml-flow", b"\x03" + b"a: {b: [1, {c: d}], 'e': \"f\"}\n"),
]
DOCUMENTS_DICT = [
    '"name"', '"age"', '"ratio"', '"kind"', '"tags"', '"next"', '"any"', '"one"', '"not"', '"map"', '"cat"',
    "true", "false", "null", "\\u", "\\ud83d", "\\ude3a", "1e308", "-0.5", "{", "}", "[", "]", ":", ",",
    ": ", "- ", "|-", ">+", "&a", "*a", "!!str", "'", '"', "#", "\n  ", "{a: [b, c]}", "~",
]


if __name__ == "__main__":
    write("FuzzHTTP1Parser", [(name, h1(limits, cut, wire)) for name, limits, cut, wire in H1])
    write("FuzzRouter", ROUTER)
    write("FuzzByteRanges", RANGES)
    write("FuzzH2CUpgrade", [(n, s) for n, s in H2C] + H2C_BINARY)
    write("FuzzHTTP2Session", [(name, seed[0]) for name, *seed in H2])
    dictionary("FuzzHTTP1Parser", H1_DICT)
    dictionary("FuzzRouter", ROUTER_DICT)
    dictionary("FuzzByteRanges", RANGES_DICT)
    dictionary("FuzzH2CUpgrade", H2C_DICT)
    dictionary("FuzzHTTP2Session", H2_DICT)
    write("FuzzHTTP1Connection", H1_CONNECTION)
    write("FuzzHTTP2Connection", H2_CONNECTION)
    write("FuzzDocumentReaders", DOCUMENTS)
    dictionary("FuzzDocumentReaders", DOCUMENTS_DICT)
    dictionary("FuzzHTTP1Connection", H1_DICT + ["/gate", "/stream", "/events"])
    dictionary("FuzzHTTP2Connection", H2_DICT + [b"/gate", b"/stream", b"/events"])
