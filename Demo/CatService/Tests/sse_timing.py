#!/usr/bin/env python3
"""sse_timing.py COUNT INTERVAL_MS TOLERANCE_MS CLIENT...: runs CLIENT (`curl -N URL`), reads the
server-sent event stream it writes to standard output, stamps each event with the moment its blank
line arrived, and checks the stream against GET /api/emoji/stream?count=COUNT&interval_ms=INTERVAL_MS:

- exactly COUNT events, with ids 1...COUNT in order, each the data of one cat of the talk's set;
- event n arrives within TOLERANCE_MS of its due time, INTERVAL_MS x (n - 1) after the first
  event's arrival: none late, none early, none bunched with the one before.

Prints one line per event ("+0.200 s  id: 2  data: 😻  (due +0.200 s)"), then "ok" or "FAIL: why";
exits 0 only for ok. It starts the client itself (rather than reading a shell pipe) so that its own
start-up, which can take longer than an interval on a loaded machine, is over before the first
event comes; it reads the pipe unbuffered (os.read), so a time is when the bytes came.
"""
import os
import subprocess
import sys
import time

CATS = set("🐱😹😻🙀😿😽😸😺😾😼")
count, interval, tolerance = int(sys.argv[1]), int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
client = subprocess.Popen(sys.argv[4:], stdout=subprocess.PIPE)

events = []  # (arrival, {field: value})
pending = b""
while True:
    chunk = os.read(client.stdout.fileno(), 65536)
    now = time.monotonic()
    if not chunk:
        break
    pending += chunk.replace(b"\r\n", b"\n")
    while b"\n\n" in pending:
        raw, pending = pending.split(b"\n\n", 1)
        fields = {}
        for line in raw.decode("utf-8", "replace").split("\n"):
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        events.append((now, fields))

client.wait()
problems = []
start = events[0][0] if events else 0
for n, (arrival, fields) in enumerate(events, 1):
    due = interval * (n - 1)
    offset = arrival - start
    print("+%.3f s  id: %s  data: %s  (due +%.3f s)" % (offset, fields.get("id"), fields.get("data"), due))
    if fields.get("id") != str(n):
        problems.append("event %d has id %r" % (n, fields.get("id")))
    if fields.get("data") not in CATS:
        problems.append("event %d's data %r is not one cat" % (n, fields.get("data")))
    if abs(offset - due) > tolerance:
        problems.append("event %d arrived at +%.3f s, due +%.3f s (more than %d ms off)" % (n, offset, due, tolerance * 1000))
if len(events) != count:
    problems.append("%d events, expected %d" % (len(events), count))
if pending.strip():
    problems.append("the stream ended inside an event: %r" % pending[:80])
print("ok" if not problems else "FAIL: " + "; ".join(problems))
sys.exit(0 if not problems else 1)
