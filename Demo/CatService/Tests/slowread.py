#!/usr/bin/env python3
"""slowread.py: clients that read responses slowly, and what the server's kernel holds for them.

    slowread.py PORT orphans N SECONDS   N clients, each with a 4 KB receive buffer, pipeline three
                                         GET /api/clip and read 8 bytes every 0.5 s; after SECONDS
                                         (keeping every client open) prints the server's sockets
                                         on PORT that still hold unsent bytes, from `ss -tmn`:
                                         "sockets holding: C (fin-wait-1: F), send queue: Q bytes,
                                         skmem w (queued): W bytes"
    slowread.py PORT orphans-h2 N SECONDS  the same over h2c: each client opens its windows to 2 GB
                                         (SETTINGS_INITIAL_WINDOW_SIZE, WINDOW_UPDATE) and asks for
                                         the clip on three streams
    slowread.py PORT whole close|keep    one client, a 16 KB receive buffer, GET /api/clip (with
                                         Connection: close, or keep-alive) read 16 KB every 0.1 s
                                         (160 KB/s: slow, but far above the minimum rate); prints
                                         "body: R of L bytes, then EOF|reset|open"

Loopback only; every wait is bounded. Used by orphans.sh.
"""
import re
import socket
import subprocess
import sys
import time


def slow_client(port, receive_buffer, request):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Before connect, so that the window the client announces stays small.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    sock.sendall(request)
    return sock


def server_sockets_holding(port):
    """The server's sockets on `port` (any state) with bytes in their send queue, from ss."""
    out = subprocess.run(["ss", "-tmnaH", "( sport = :%d )" % port], capture_output=True, text=True, timeout=10).stdout
    count, fin_wait, queued, wmem = 0, 0, 0, 0
    lines = out.splitlines()
    for i, line in enumerate(lines):
        fields = line.split()
        if len(fields) < 5 or not fields[2].isdigit() or fields[0] == "LISTEN":
            continue
        send_q = int(fields[2])
        skmem = " ".join(lines[i:i + 2])
        match = re.search(r"skmem:\([^)]*,w(\d+)", skmem)
        if send_q > 0:
            count += 1
            queued += send_q
            wmem += int(match.group(1)) if match else 0
            fin_wait += fields[0] == "FIN-WAIT-1"
    return count, fin_wait, queued, wmem


def h2_requests():
    """Preface, SETTINGS opening every stream's window to 2^31-1, the connection's too, and three
    GETs of the clip (h2probe.py's hand-written frames)."""
    import struct
    import h2probe as h2
    settings = h2.frame(h2.SETTINGS, 0, 0, struct.pack(">HI", 0x4, 2**31 - 1))
    window = h2.frame(8, 0, 0, struct.pack(">I", 2**31 - 1 - 65535))
    heads = b"".join(h2.frame(h2.HEADERS, h2.END_STREAM | h2.END_HEADERS, s, h2.request("GET", "/api/clip")) for s in (1, 3, 5))
    return h2.PREFACE + settings + window + heads


def orphans(port, clients, seconds, http2=False):
    request = h2_requests() if http2 else b"GET /api/clip HTTP/1.1\r\nHost: localhost\r\n\r\n" * 3
    socks = [slow_client(port, 4096, request) for _ in range(clients)]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for sock in socks:
            try:
                sock.setblocking(False)
                sock.recv(8)
            except (BlockingIOError, ConnectionResetError, OSError):
                pass
        time.sleep(0.5)  # the slow reader's pace, not a synchronisation
    count, fin_wait, queued, wmem = server_sockets_holding(port)
    print("sockets holding: %d (fin-wait-1: %d), send queue: %d bytes, skmem w (queued): %d bytes" % (count, fin_wait, queued, wmem))
    for sock in socks:
        sock.close()


def whole(port, mode):
    connection = b"Connection: close\r\n" if mode == "close" else b""
    sock = slow_client(port, 16384, b"GET /api/clip HTTP/1.1\r\nHost: localhost\r\n" + connection + b"\r\n")
    data, end = b"", "open"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(16384)
        except ConnectionResetError:
            end = "reset"
            break
        except socket.timeout:
            break
        if not chunk:
            end = "EOF"
            break
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        if mode == "keep" and length and len(body) >= int(length.group(1)):
            # Keep-alive: the response is whole; wait for the server's idle close (FIN, or a reset).
            try:
                sock.settimeout(10)
                end = "EOF" if sock.recv(1) == b"" else "more bytes"
            except ConnectionResetError:
                end = "reset"
            except socket.timeout:
                end = "open"
            break
        time.sleep(0.1)  # the slow reader's pace, not a synchronisation
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    print("body: %d of %s bytes, then %s" % (len(body), length.group(1).decode() if length else "?", end))
    sock.close()


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode == "orphans":
        orphans(port, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "orphans-h2":
        orphans(port, int(sys.argv[3]), float(sys.argv[4]), http2=True)
    else:
        whole(port, sys.argv[3])
