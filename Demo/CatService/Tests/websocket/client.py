#!/usr/bin/env python3
"""client.py URL [--cafile CA.pem]: the WebSocket echo at URL (ws://.../ws/echo or wss://) driven
by the `websockets` client from PyPI (installed by `make deps`), one check per line:
"PASS description" or "FAIL description -- detail". Every wait is bounded (10 s).

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
