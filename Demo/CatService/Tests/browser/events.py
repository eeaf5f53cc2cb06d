#!/usr/bin/env python3
"""events.py PAGE PATH COUNT [CHROMIUM-FLAG...]: opens PAGE (any page of the server, for its origin)
in headless Chromium, listens to PATH with the browser's own EventSource, and prints, as JSON, the
first COUNT events it received ({"events": [{"id", "data", "ms"}...]}, `ms` after the EventSource was
made), or how far it got before an error, and the stream's Content-Encoding as the browser
received it ("encoding", "" for none). It closes the EventSource after COUNT events, as a page
that has what it wants does (over HTTP/2 Chromium then resets the stream). The caller bounds the
wait (with `timeout`)."""
import json
import sys

from devtools import Chromium

page, path, count, extra_flags = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
LISTEN = """new Promise(resolve => {
  const start = performance.now(), events = [];
  const source = new EventSource(%s);
  source.onmessage = event => {
    events.push({id: event.lastEventId, data: event.data, ms: Math.round(performance.now() - start)});
    if (events.length === %d) { source.close(); resolve(JSON.stringify({events})); }
  };
  source.onerror = () => { source.close(); resolve(JSON.stringify({events, error: 'error after ' + events.length + ' events'})); };
})""" % (json.dumps(path), count)

with Chromium(extra_flags) as chromium:
    session = chromium.open(page)
    chromium.call("Network.enable", session=session)
    report = json.loads(chromium.evaluate(session, LISTEN, await_promise=True))
    # The stream's response head, from the events DevTools sent while the page listened.
    for event in chromium.events:
        response = event.get("params", {}).get("response", {})
        if event["method"] == "Network.responseReceived" and response.get("url", "").endswith(path):
            headers = {name.lower(): value for name, value in response.get("headers", {}).items()}
            report["encoding"] = headers.get("content-encoding", "")
    print(json.dumps(report))
