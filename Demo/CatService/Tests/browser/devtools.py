"""devtools.py: headless Chromium driven over its DevTools pipe, with Python's standard library only.

    with Chromium(extra_flags) as chromium:
        session = chromium.open("http://127.0.0.1:8080/api/emoji")
        value = chromium.evaluate(session, "new Promise(...)", timeout=30)

It talks the DevTools protocol over --remote-debugging-pipe (NUL-separated JSON on descriptors 3
and 4). Chromium gets a fresh profile in a temporary directory; on exit it and its helper processes
are killed and the profile removed. Used by play.py and events.py.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile


class Chromium:
    def __init__(self, extra_flags=()):
        self.extra_flags = list(extra_flags)
        self.pending = b""
        self.last_id = 0
        self.events = []

    def __enter__(self):
        to_chromium_read, self.to_chromium = os.pipe()
        self.from_chromium, from_chromium_write = os.pipe()

        def give_pipes():
            os.dup2(to_chromium_read, 3)
            os.dup2(from_chromium_write, 4)

        self.profile = tempfile.mkdtemp(prefix="cat-service-chromium.")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--autoplay-policy=no-user-gesture-required", "--user-data-dir=" + self.profile, *self.extra_flags,
             "about:blank"],
            pass_fds=(3, 4), preexec_fn=give_pipes, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chromium_read)
        os.close(from_chromium_write)
        # `timeout` ends a stuck run with SIGTERM: leave through __exit__, which ends Chromium.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
        return self

    def __exit__(self, *exc):
        # Chromium's helper processes share its session: end them all, then drop the profile.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
        return False

    def _next_message(self):
        while b"\0" not in self.pending:
            chunk = os.read(self.from_chromium, 65536)
            if not chunk:
                raise SystemExit("chromium closed the DevTools pipe")
            self.pending += chunk
        raw, self.pending = self.pending.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=None):
        """Sends one DevTools command and returns its result; events that come first are kept."""
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chromium, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._next_message()
            if reply.get("id") == self.last_id:
                if "error" in reply:
                    raise SystemExit("DevTools error for %s: %s" % (method, reply["error"]))
                return reply["result"]
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, session):
        """Waits for the next event METHOD of SESSION (the caller bounds the wait, e.g. with timeout)."""
        while True:
            for event in self.events:
                if event["method"] == method and event.get("sessionId") == session:
                    self.events.remove(event)
                    return event.get("params", {})
            message = self._next_message()
            if "method" in message:
                self.events.append(message)

    def open(self, url):
        """Opens URL in a new tab and waits for its load event; returns the tab's session."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=session)
        navigation = self.call("Page.navigate", {"url": url}, session)
        if navigation.get("errorText"):
            raise SystemExit("cannot open %s: %s" % (url, navigation["errorText"]))
        self.wait_event("Page.loadEventFired", session)
        return session

    def evaluate(self, session, expression, await_promise=False):
        """The value of a JavaScript expression in the tab (a promise's, awaited, with await_promise)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": await_promise}, session)
        if "exceptionDetails" in result:
            raise SystemExit("script failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")
