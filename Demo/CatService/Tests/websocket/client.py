#!/usr/bin/env python3
"""client.py URL [--cafile CA.pem]: the WebSocket echo at URL (ws://.../ws/echo or wss://) driven
by the `websockets` client from PyPI (installed by `make deps`), one check per line:
"PASS description" or "FAIL description -- detail". Every wait is bounded (10 s). The client offers
permessage-deflate (RFC 7692), as it does by default: the checks run compressed, then one
connection without the offer.

client.py URL --drain: connects, prints "connected", then waits for the server's close frame (the
caller sends SIGTERM to the server) and prints "closed CODE REASON" once the handshake is done."""
import ssl
import sys
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

url = sys.argv[1]
cafile = sys.argv[sys.argv.index("--cafile") + 1] if "--cafile" in sys.argv else None
context = ssl.create_default_context(cafile=cafile) if url.startswith("wss:") else None
TIMEOUT = 10


def check(description, condition, detail=""):
    print(("PASS " if condition else "FAIL ") + description + ("" if condition else " -- " + str(detail)), flush=True)


def open_socket(**options):
    return connect(url, ssl=context, open_timeout=TIMEOUT, close_timeout=TIMEOUT, max_size=None, **options)


if "--drain" in sys.argv:
    with open_socket() as ws:
        ws.send("before the drain")
        ws.recv(timeout=TIMEOUT)
        print("connected", flush=True)
        try:
            ws.recv(timeout=TIMEOUT)
        except ConnectionClosed:
            pass
        print("closed %s %s" % (ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None, ws.protocol.close_rcvd.reason if ws.protocol.close_rcvd else ""), flush=True)
    sys.exit(0)

with open_socket() as ws:
    check("the handshake is accepted (101, Sec-WebSocket-Accept checked by the client)", ws.response.status_code == 101, ws.response.status_code)
    # The client offers permessage-deflate (its default): the server accepts it, so every message
    # below (the 1 MiB one, the one over the limit) goes compressed both ways.
    check("permessage-deflate is negotiated (Sec-WebSocket-Extensions in the 101)",
          ws.response.headers.get("Sec-WebSocket-Extensions") == "permessage-deflate; client_max_window_bits=12", dict(ws.response.headers))
    check("  and in effect on the client", [e.name for e in ws.protocol.extensions] == ["permessage-deflate"], ws.protocol.extensions)
    text = "compressible text 🐱 " * 1000
    ws.send(text)
    check("a compressed text message is echoed", ws.recv(timeout=TIMEOUT) == text)
    binary = bytes(range(256)) * 1000
    ws.send(binary)
    check("a compressed binary message is echoed", ws.recv(timeout=TIMEOUT) == binary)
    check("the 101 carries a request id", "x-request-id" in {name.lower() for name in ws.response.headers.keys()}, dict(ws.response.headers))
    ws.send("hello, 🐱")
    check("a text message is echoed as text", ws.recv(timeout=TIMEOUT) == "hello, 🐱")
    ws.send(bytes(range(256)))
    check("a binary message is echoed as binary", ws.recv(timeout=TIMEOUT) == bytes(range(256)))
    ws.send(["frag", "men", "ted"])  # one message in three frames
    check("a message in three fragments is echoed whole", ws.recv(timeout=TIMEOUT) == "fragmented")
    ws.send([b"\x00" * 10, b"\x01" * 10])
    check("a binary message in two fragments is echoed whole", ws.recv(timeout=TIMEOUT) == b"\x00" * 10 + b"\x01" * 10)
    ws.send("")
    check("an empty text message is echoed", ws.recv(timeout=TIMEOUT) == "")
    pong = ws.ping(b"are you there")
    check("a ping is answered with a pong", pong.wait(TIMEOUT))
    large = b"\x5a" * (1 << 20)
    ws.send(large)
    check("a message of 1 MiB (the limit) is echoed", ws.recv(timeout=TIMEOUT) == large)
    start = time.monotonic()
    for index in range(1000):
        ws.send("message %d" % index)
    echoed = [ws.recv(timeout=TIMEOUT) for _ in range(1000)]
    check("1,000 pipelined messages are echoed in order", echoed == ["message %d" % index for index in range(1000)])
    print("INFO 1,000 messages echoed in %.0f ms" % ((time.monotonic() - start) * 1000), flush=True)
    ws.close(4000, "done here")
    check("the client's close (4000) is echoed with its code", ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 4000, ws.protocol.close_rcvd)

with open_socket() as ws:
    ws.send(b"\x00" * ((1 << 20) + 1))
    try:
        ws.recv(timeout=TIMEOUT)
        check("a message one byte over the limit closes with 1009", False, "it was echoed")
    except ConnectionClosed:
        check("a message one byte over the limit closes with 1009", ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1009, ws.protocol.close_rcvd)

with open_socket() as ws:
    ws.close()
    check("a plain close (1000) is echoed with 1000", ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1000, ws.protocol.close_rcvd)

# Without compression (a client that offers none): no extension, the same echo.
with open_socket(compression=None) as ws:
    check("without an offer, the 101 names no extension", "Sec-WebSocket-Extensions" not in ws.response.headers, dict(ws.response.headers))
    ws.send("compressible text " * 100)
    check("  and a message is echoed uncompressed", ws.recv(timeout=TIMEOUT) == "compressible text " * 100)
