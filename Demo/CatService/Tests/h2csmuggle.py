#!/usr/bin/env python3
"""h2csmuggle.py PORT PATH: the h2csmuggler probe (2020) through a front proxy on 127.0.0.1:PORT.

It asks for `GET /api/emoji?count=1` with `Upgrade: h2c` and `HTTP2-Settings` (both as connection
options, as the nginx WebSocket recipe and HAProxy's `mode http` pass them on), then sends the
HTTP/2 preface, SETTINGS and a request for PATH on stream 3, which the proxy would refuse over
HTTP/1.1. Prints one line:

    tunnel 101 stream3=STATUS     the backend answered 101 and then HTTP/2 came back through the
                                  proxy: PATH was answered over a connection the proxy no longer parses
    no-tunnel STATUS then=LINE    the upgrade was not honoured (STATUS: the first answer's status),
                                  and the preface got LINE (an HTTP/1.1 error, or "closed")

Standard library only; loopback; every wait is bounded (5 s).
"""
import socket
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HEADERS, SETTINGS, RST_STREAM = 1, 4, 3
END_STREAM, END_HEADERS = 0x1, 0x4
# The statuses of HPACK's static table (RFC 7541 Appendix A), by index.
STATIC_STATUS = {8: "200", 9: "204", 10: "206", 11: "304", 12: "400", 13: "404", 14: "500"}
# Huffman codes of the digits (RFC 7541 Appendix B), for a literal :status.
DIGITS = {"00000": "0", "00001": "1", "00010": "2", "011001": "3", "011010": "4", "011011": "5",
          "011100": "6", "011101": "7", "011110": "8", "011111": "9"}


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name, value):
    name, value = name.encode(), value.encode()
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def status_of(block):
    """The :status of a response header block, which nghttp2 sends first."""
    first = block[0]
    if first & 0x80:
        return STATIC_STATUS.get(first & 0x7F, "?")
    # A literal with the name :status (index 8): 0x48 (indexed), 0x08 or 0x18.
    length, huffman, value = block[1] & 0x7F, block[1] & 0x80, block[2:2 + (block[1] & 0x7F)]
    if not huffman:
        return value.decode()
    bits, text, code = "".join(format(b, "08b") for b in value), "", ""
    for bit in bits:
        code += bit
        if code in DIGITS:
            text += DIGITS[code]
            code = ""
    return text[:3]


def receive_until(sock, done, deadline):
    data = b""
    while not done(data) and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return data


def main(port, path):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /api/emoji?count=1 HTTP/1.1\r\nHost: localhost\r\nUpgrade: h2c\r\n"
                 b"HTTP2-Settings: AAMAAABkAAQAAP__\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\n")
    head = receive_until(sock, lambda d: b"\r\n\r\n" in d, time.monotonic() + 5)
    status_line = head.split(b"\r\n", 1)[0].decode(errors="replace")
    status = status_line.split(" ")[1] if status_line.count(" ") >= 1 else "none"
    rest = head.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in head else b""
    request = literal(":method", "GET") + literal(":scheme", "http") + literal(":path", path) + literal(":authority", "localhost")
    smuggled = PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_STREAM | END_HEADERS, 3, request)
    if status != "101":
        # Let the first answer's body go by, then send what a smuggler sends next.
        receive_until(sock, lambda d: False, time.monotonic() + 0.3)
        sock.sendall(smuggled)
        after = receive_until(sock, lambda d: b"\r\n" in d, time.monotonic() + 5)
        line = after.split(b"\r\n", 1)[0].decode(errors="replace") if after else "closed"
        print(f"no-tunnel {status} then={line}")
        return
    sock.sendall(smuggled)

    def stream3_answered(data):
        data = rest + data
        while len(data) >= 9:
            length = int.from_bytes(data[:3], "big")
            kind, stream = data[3], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
            if stream == 3 and kind in (HEADERS, RST_STREAM):
                return True
            data = data[9 + length:]
        return False

    data = rest + receive_until(sock, stream3_answered, time.monotonic() + 5)
    answer = "none"
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        kind, flags, stream = data[3], data[4], int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
        if stream == 3 and kind == HEADERS:
            answer = status_of(data[9:9 + length])
            break
        if stream == 3 and kind == RST_STREAM:
            answer = "reset"
            break
        data = data[9 + length:]
    print(f"tunnel 101 stream3={answer}")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
