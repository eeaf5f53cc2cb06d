#!/usr/bin/env python3
"""play.py URL [CHROMIUM-FLAG...]: opens URL (clip-player.html?src=...) in headless Chromium and
prints the text of the page's <pre id="out"> as soon as it reports `done` or an error. The caller
bounds the wait (browser.sh runs it under `timeout`)."""
import sys

from devtools import Chromium

# Resolves with the report once the page writes a finished one into <pre id="out">.
REPORT = """new Promise(resolve => {
  const out = document.getElementById('out');
  const finished = () => {
    const text = out.textContent;
    if (text.startsWith('{') && (text.includes('"done"') || text.includes('"error"'))) { resolve(text); return true; }
    return false;
  };
  if (!finished()) new MutationObserver(finished).observe(out, {childList: true, characterData: true, subtree: true});
})"""

url, extra_flags = sys.argv[1], sys.argv[2:]
with Chromium(extra_flags) as chromium:
    print(chromium.evaluate(chromium.open(url), REPORT, await_promise=True))
