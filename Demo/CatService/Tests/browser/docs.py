#!/usr/bin/env python3
"""docs.py PAGE: opens the docs page PAGE in headless Chromium, waits for it to render the
document (window.docsReady), then tries getEmoji with count=3 as a user would (types the count,
clicks "Try it") and waits for the answer (window.lastTry). Prints, as JSON, the operations the
page lists ({"operations": [...]}) and what "Try it" showed ({"tried": {"status", "text"}}), or
the error. The caller bounds the wait (with `timeout`)."""
import json
import sys

from devtools import Chromium

page = sys.argv[1]
SCRIPT = """(async () => {
  const rendered = await window.docsReady;
  const operations = [...document.querySelectorAll('[data-operation]')].map((s) => s.dataset.operation);
  const section = document.querySelector('[data-operation="getEmoji"]');
  if (!section) return JSON.stringify({operations, rendered, error: 'no getEmoji section'});
  section.querySelector('input[name="count"]').value = '3';
  section.querySelector('button').click();
  const tried = await window.lastTry;
  return JSON.stringify({operations, tried, shown: section.querySelector('.result').textContent});
})().catch((error) => JSON.stringify({error: String(error)}))"""

with Chromium() as chromium:
    print(chromium.evaluate(chromium.open(page), SCRIPT, await_promise=True))
