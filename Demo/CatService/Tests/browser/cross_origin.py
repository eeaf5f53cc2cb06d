#!/usr/bin/env python3
"""cross_origin.py PAGE URL: opens PAGE in headless Chromium (a page of one origin) and, from it,
fetches URL (on another origin) with an X-Request-ID header, which makes the browser send a CORS
preflight first. Prints, as JSON, what the page could read: {"status", "text", "requestID"} (the
exposed X-Request-ID), or {"error"} when the browser refused to let the page have the response.
The caller bounds the wait (with `timeout`)."""
import json
import sys

from devtools import Chromium

page, url = sys.argv[1], sys.argv[2]
FETCH = """fetch(%s, {headers: {'X-Request-ID': 'from-the-browser'}})
  .then(async response => JSON.stringify({status: response.status, text: await response.text(),
                                          requestID: response.headers.get('X-Request-ID')}))
  .catch(error => JSON.stringify({error: String(error)}))""" % json.dumps(url)

with Chromium() as chromium:
    print(chromium.evaluate(chromium.open(page), FETCH, await_promise=True))
