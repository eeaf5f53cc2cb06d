#!/usr/bin/env python3
"""rate-limit-memory.py CAT_SERVICE [CLIENTS]: what a rate limit's buckets cost a running server.

Starts cat-service twice on 127.0.0.1 behind a trusted proxy that sets Forwarded (itself:
--trusted-proxy 127.0.0.1 --forwarding-field Forwarded),
with an adoption rate limit no client reaches, and sends CLIENTS (default 100,000) adoptions over
one keep-alive connection: the first time all from one client, the second each from its own
(`Forwarded: for=` a distinct 10.x.y.z address, so each has its own token bucket). It prints each
server's resident memory (VmRSS) before and after, and the difference between the two runs: what
the buckets hold, the rest of a request's cost being the same in both. Loopback only, bounded by
CLIENTS requests per run and 10 minutes.
"""
import http.client
import re
import subprocess
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status.read(), re.M).group(1))


def run(binary, clients, distinct):
    server = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--trusted-proxy", "127.0.0.1", "--forwarding-field", "Forwarded",
         "--adoption-rate-limit", f"{clients * 10}/60", "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        deadline = time.monotonic() + 20
        while port is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if found:
                port = int(found.group(1))
        if port is None:
            sys.exit("cat-service did not say where it listens")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        before = rss_kib(server.pid)
        started = time.monotonic()
        refused = 0
        for n in range(clients):
            client = f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}" if distinct else "10.0.0.1"
            connection.request("POST", "/api/adopt", body=b'{"name": "Tom"}', headers={
                "Content-Type": "application/json", "Forwarded": f"for={client}"})
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                refused += 1
            if time.monotonic() - started > 600:
                sys.exit(f"stopped after {n} requests: over 10 minutes")
        after = rss_kib(server.pid)
        return before, after, refused, time.monotonic() - started
    finally:
        server.terminate()
        server.wait(timeout=15)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    results = {}
    for distinct in (False, True):
        before, after, refused, seconds = run(binary, clients, distinct)
        label = f"{clients} distinct clients" if distinct else "one client"
        print(f"{label}: VmRSS {before} KiB before, {after} KiB after {clients} adoptions "
              f"(+{after - before} KiB, {refused} not 201, {seconds:.0f} s)")
        results[distinct] = after - before
    print(f"the buckets: {results[True] - results[False]} KiB "
          f"({(results[True] - results[False]) * 1024 / clients:.0f} bytes a client)")


main()
