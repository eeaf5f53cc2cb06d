#!/usr/bin/env python3
"""hostile.py HOST PORT: frames that break RFC 6455, each sent on its own WebSocket connection
over a raw socket, and the legitimate frame of the same shape beside it. For each the server must
answer with the close code the RFC gives the breach and then close the TCP connection (or, for
the legitimate twin, answer normally). One line per check: "PASS ..." or "FAIL ... -- detail".
Loopback only; every read is bounded (10 s)."""
import base64
import os
import socket
import struct
import sys

HOST, PORT = sys.argv[1], int(sys.argv[2])
TIMEOUT = 10


def check(description, condition, detail=""):
    print(("PASS " if condition else "FAIL ") + description + ("" if condition else " -- " + str(detail)), flush=True)


def frame(opcode, payload=b"", fin=True, rsv=0, masked=True, length=None, mask=b"\x37\xfa\x21\x3d"):
    count = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    bit = 0x80 if masked else 0
    if count < 126:
        head += bytes([bit | count])
    elif count < 1 << 16:
        head += bytes([bit | 126]) + struct.pack("!H", count)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", count)
    if not masked:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def close_frame(code, reason=b""):
    return frame(0x8, struct.pack("!H", code) + reason)


class Peer:
    """A WebSocket client on a raw socket: the handshake, then exact bytes."""

    def __init__(self):
        self.sock = socket.create_connection((HOST, PORT), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /ws/echo HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (HOST, PORT, key)).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("the server closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101 "):
            raise SystemExit("no 101: %r" % head)

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may close before it read everything: what it answered counts

    def frames(self, count=None):
        """Server frames until the server closes the TCP connection (or `count` came): (opcode, payload) each."""
        result = []
        while count is None or len(result) < count:
            while len(self.buffer) >= 2:
                length, offset = self.buffer[1] & 0x7F, 2
                if self.buffer[1] & 0x80:
                    raise SystemExit("a masked server frame")
                if length == 126:
                    if len(self.buffer) < 4: break
                    length, offset = struct.unpack("!H", self.buffer[2:4])[0], 4
                elif length == 127:
                    if len(self.buffer) < 10: break
                    length, offset = struct.unpack("!Q", self.buffer[2:10])[0], 10
                if len(self.buffer) < offset + length: break
                result.append((self.buffer[0] & 0x0F, self.buffer[offset:offset + length]))
                self.buffer = self.buffer[offset + length:]
                if count is not None and len(result) == count:
                    return result
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            except socket.timeout:
                result.append(("timeout", b""))
                return result
            if not chunk:
                return result
            self.buffer += chunk
        return result

    def until_close(self, data):
        """Sends data, returns (the server's close code, its frames before it, whether TCP closed)."""
        self.send(data)
        frames = self.frames()
        closes = [payload for opcode, payload in frames if opcode == 0x8]
        code = struct.unpack("!H", closes[0][:2])[0] if closes and len(closes[0]) >= 2 else None
        return code, frames, frames[-1][0] != "timeout" if frames else True


def hostile(description, data, expected):
    peer = Peer()
    code, frames, tcp_closed = peer.until_close(data)
    check("%s: close %d" % (description, expected), code == expected, "got %s (frames %s)" % (code, [f[0] for f in frames][:10]))
    check("%s: then the TCP connection closes" % description, tcp_closed)
    return frames


def legitimate(description, data, expected_frames):
    """Sends data; the server's next frames must be expected_frames; then a close 1000 is echoed."""
    peer = Peer()
    peer.send(data)
    frames = peer.frames(count=len(expected_frames))
    code, after, _ = peer.until_close(close_frame(1000))
    check(description, frames == expected_frames and code == 1000, "got %s, then close %s" % ([(f[0], f[1][:20]) for f in frames + after], code))


legitimate("a masked text frame is echoed", frame(0x1, b"hi"), [(0x1, b"hi")])
hostile("an unmasked client frame", frame(0x1, b"hi", masked=False), 1002)
hostile("RSV1 without an extension", frame(0x1, b"hi", rsv=4), 1002)
hostile("a reserved opcode (3)", frame(0x3, b"hi"), 1002)
hostile("a reserved control opcode (0xB)", frame(0xB), 1002)
legitimate("a ping of 125 bytes is answered with its payload", frame(0x9, b"p" * 125), [(0xA, b"p" * 125)])
hostile("a ping of 126 bytes", frame(0x9, b"p" * 126), 1002)
hostile("a fragmented ping", frame(0x9, b"p", fin=False), 1002)
hostile("a 64-bit length with the high bit set (header only)", frame(0x2, length=1 << 63)[:14], 1002)
hostile("a frame of 2 MiB announced (header only, over the 1 MiB limit)", frame(0x2, length=2 << 20)[:14], 1009)
hostile("a message of 3 fragments crossing 1 MiB", frame(0x2, b"a" * 500000, fin=False) + frame(0x0, b"a" * 500000, fin=False)
        + frame(0x0, b"a" * 100000)[:14], 1009)
hostile("invalid UTF-8 in a text frame", frame(0x1, b"caf\xc3\x28"), 1007)
hostile("invalid UTF-8 in the first fragment (the message never ends)", frame(0x1, b"\xed\xa0\x80", fin=False), 1007)
legitimate("a character split across fragments is valid", frame(0x1, "🐱".encode()[:1], fin=False) + frame(0x0, "🐱".encode()[1:]),
           [(0x1, "🐱".encode())])
hostile("a text message ending inside a character", frame(0x1, "🐱".encode()[:3]), 1007)
hostile("a continuation with no message started", frame(0x0, b"x"), 1002)
hostile("a new message inside a fragmented one", frame(0x1, b"a", fin=False) + frame(0x1, b"b"), 1002)
legitimate("a ping between fragments is answered and the message echoed", frame(0x1, b"a", fin=False) + frame(0x9, b"!") + frame(0x0, b"b"),
           [(0xA, b"!"), (0x1, b"ab")])
for code in (0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000):
    hostile("a close frame with code %d" % code, close_frame(code), 1002)
for code in (1000, 1001, 1003, 1011, 3000, 4999):
    peer = Peer()
    answer, _, _ = peer.until_close(close_frame(code))
    check("a close frame with code %d is echoed with it" % code, answer == code, answer)
hostile("a close frame with a 1-byte payload", frame(0x8, b"\x03"), 1002)
hostile("a close reason that is not UTF-8", close_frame(1000, b"\xff\xfe"), 1007)
frames = hostile("a flood of 10,000 pings", frame(0x9, b"x") * 10000, 1008)
pongs = sum(1 for opcode, _ in frames if opcode == 0xA)
check("the flood's pongs are coalesced and bounded (%d for 10,000 pings)" % pongs, pongs <= 100, pongs)
