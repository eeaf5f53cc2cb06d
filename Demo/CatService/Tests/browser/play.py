#!/usr/bin/env python3
"""play.py URL SECONDS [CHROMIUM-FLAG...]: opens URL in headless Chromium and prints the text of the
page's <pre id="out"> once it reports `done` or an error, or when SECONDS have passed.

It drives Chromium through the DevTools protocol over --remote-debugging-pipe (NUL-separated JSON
on descriptors 3 and 4), so it needs nothing beyond Python's standard library. Chromium gets a
fresh profile in a temporary directory; it and its helper processes are killed on exit.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

url, seconds, extra_flags = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
to_chromium_read, to_chromium_write = os.pipe()
from_chromium_read, from_chromium_write = os.pipe()


def give_pipes():
    os.dup2(to_chromium_read, 3)
    os.dup2(from_chromium_write, 4)


profile = tempfile.mkdtemp(prefix="cat-service-chromium.")
chromium = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
     "--autoplay-policy=no-user-gesture-required", "--user-data-dir=" + profile, *extra_flags, "about:blank"],
    pass_fds=(3, 4), preexec_fn=give_pipes, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chromium_read)
os.close(from_chromium_write)
pending = b""
last_id = 0


def call(method, params=None, session=None):
    """Sends one DevTools command and returns its result (events in between are skipped)."""
    global last_id, pending
    last_id += 1
    message = {"id": last_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_chromium_write, json.dumps(message).encode() + b"\0")
    while True:
        while b"\0" not in pending:
            chunk = os.read(from_chromium_read, 65536)
            if not chunk:
                raise SystemExit("chromium closed the DevTools pipe")
            pending += chunk
        raw, pending = pending.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("id") == last_id:
            if "error" in reply:
                raise SystemExit("DevTools error for %s: %s" % (method, reply["error"]))
            return reply["result"]


try:
    target = call("Target.createTarget", {"url": url})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    deadline = time.monotonic() + seconds
    text = "no report"
    read_out = "(document.getElementById('out') || {}).textContent || 'loading'"
    while time.monotonic() < deadline:
        text = call("Runtime.evaluate", {"expression": read_out, "returnByValue": True}, session)["result"].get("value", "")
        if text.startswith("{") and ('"done"' in text or '"error"' in text):
            break
        time.sleep(0.2)
    print(text)
finally:
    # Chromium's helper processes share its session: end them all, then drop the profile.
    try:
        os.killpg(chromium.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    chromium.wait()
    shutil.rmtree(profile, ignore_errors=True)
