#!/usr/bin/env python3
"""hostile.py HOST PORT [SERVER_PID]: frames that break RFC 6455, each sent on its own WebSocket connection
over a raw socket, and the legitimate frame of the same shape beside it. For each the server must
answer with the close code the RFC gives the breach and then close the TCP connection (or, for
the legitimate twin, answer normally). One line per check: "PASS ..." or "FAIL ... -- detail".
Loopback only; every read is bounded (10 s).

With permessage-deflate (RFC 7692) negotiated: RSV1 on a control frame or a continuation (1002),
bytes that are not DEFLATE (1007), and the bomb, 100 KB that inflate to 100 MB (1009, and with
SERVER_PID the server's peak memory grows by less than 32 MB meanwhile), beside a large
compressible message under the limit echoed."""
import base64
import os
import socket
import struct
import sys
import zlib

HOST, PORT = sys.argv[1], int(sys.argv[2])
SERVER_PID = sys.argv[3] if len(sys.argv) > 3 else None
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

    def __init__(self, extensions=None):
        self.sock = socket.create_connection((HOST, PORT), timeout=TIMEOUT)
        key = base64.b64encode(os.urandom(16)).decode()
        offer = "Sec-WebSocket-Extensions: %s\r\n" % extensions if extensions else ""
        self.sock.sendall(("GET /ws/echo HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n" % (HOST, PORT, key, offer)).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("the server closed during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101 "):
            raise SystemExit("no 101: %r" % head)
        self.head = head.decode("latin-1").lower()

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


def hostile(description, data, expected, extensions=None):
    peer = Peer(extensions)
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


# permessage-deflate (RFC 7692): the client's side on Python's zlib (raw DEFLATE, sync flush, tail removed).
def deflated(data, compressor=None):
    compressor = compressor or zlib.compressobj(9, zlib.DEFLATED, -15)
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4] if out.endswith(b"\x00\x00\xff\xff") else out


def peak_memory_kib():
    """The server's peak resident memory (VmHWM), if its pid was given."""
    if not SERVER_PID:
        return None
    with open("/proc/%s/status" % SERVER_PID) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])


DEFLATE = "permessage-deflate; client_max_window_bits"
peer = Peer(DEFLATE)
check("permessage-deflate is accepted: the 101 names it", "sec-websocket-extensions: permessage-deflate; client_max_window_bits=12" in peer.head, peer.head)
# The legitimate twin of the bomb: 1,000,000 compressible bytes (under the 1 MiB limit), in 1 KB on the wire.
large = (b"purr " * 200000)
peer.send(frame(0x2, deflated(large), rsv=4))
answer = peer.frames(count=1)
echoed = zlib.decompressobj(-15).decompress(answer[0][1] + b"\x00\x00\xff\xff") if answer and answer[0][0] == 0x2 else None
check("a compressible message of 1,000,000 bytes (%d compressed) is echoed, compressed" % len(deflated(large)), echoed == large,
      "got %s" % [(f[0], len(f[1])) for f in answer])
code, _, _ = peer.until_close(close_frame(1000))
check("  and the connection closes cleanly (1000)", code == 1000, code)

hostile("RSV1 on a ping, with permessage-deflate", frame(0x9, b"p", rsv=4), 1002, DEFLATE)
hostile("RSV1 on a close frame, with permessage-deflate", bytes([0xC8]) + close_frame(1000)[1:], 1002, DEFLATE)
hostile("RSV1 on a continuation, with permessage-deflate", frame(0x1, deflated(b"ab"), fin=False, rsv=4) + frame(0x0, b"", rsv=4), 1002, DEFLATE)
legitimate_peer = Peer(DEFLATE)
legitimate_peer.send(frame(0x1, deflated(b"a compressed text message"), rsv=4))
got = legitimate_peer.frames(count=1)
check("a short compressed text message is echoed, uncompressed (under 64 bytes)", got == [(0x1, b"a compressed text message")], got)
hostile("bytes that are not DEFLATE, with RSV1", frame(0x1, b"\xff\xff\xff\xff", rsv=4), 1007, DEFLATE)

bomb_compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
bomb = b"".join(bomb_compressor.compress(b"\x00" * (1 << 20)) for _ in range(100)) + bomb_compressor.flush(zlib.Z_SYNC_FLUSH)[:-4]
before = peak_memory_kib()
hostile("the bomb: %d KB that inflate to 100 MB" % (len(bomb) // 1000), frame(0x2, bomb, rsv=4), 1009, DEFLATE)
after = peak_memory_kib()
if before is not None:
    print("INFO the server's peak memory before the bomb %d KiB, after %d KiB" % (before, after), flush=True)
    check("the bomb grew the server's peak memory by less than 32 MB (%d KiB)" % (after - before), after - before < 32 * 1024)
