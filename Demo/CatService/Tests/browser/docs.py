#!/usr/bin/env python3
"""docs.py PAGE: opens the docs page PAGE in headless Chromium, waits for it to render the
document (window.docsReady) and reports what it shows; then tries getEmoji with count=3 as a user
would (types the count, clicks "Try it") and waits for the answer (window.lastTry); then renders
docs-fixture.json (a document with hostile text, recursive and looping $refs, 3.0 and 3.1 bounds,
deprecation and security) with the page's own window.renderDocument and reports that too.

Prints, as JSON: the operations the page lists ("operations"), what it shows of each
("demo": {operationId: {deprecated, security, parameters, body, responses}}, a schema as {name,
type, constraints, properties, items, closed, text}), how many text nodes hold a backtick
("backticks"), what "Try it" showed ("tried": {"status", "text"}, "shown"), and for the fixture
("fixture") its operations, the description's text, paragraphs, links, strong, em and code, the
img and script elements the page holds and window.pwned (which the fixture's script would set);
or the error. The caller bounds the wait (with `timeout`)."""
import json
import os
import sys

from devtools import Chromium

page = sys.argv[1]
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs-fixture.json")) as file:
    fixture = file.read()

SCRIPT = """(async () => {
  const rendered = await window.docsReady;
  const schema = (view) => view ? {
    name: view.querySelector(':scope > .name')?.textContent ?? null,
    type: view.querySelector(':scope > .type')?.textContent ?? null,
    constraints: [...view.querySelectorAll(':scope > .constraint')].map((c) => c.textContent),
    properties: Object.fromEntries([...view.querySelectorAll(':scope > ul > [data-property]')].map((li) =>
      [li.dataset.property, {required: !!li.querySelector(':scope > .required'), ...schema(li.querySelector(':scope > .schema'))}])),
    items: schema(view.querySelector(':scope > ul > .items > .schema')),
    closed: !!view.querySelector(':scope > ul > .closed'),
    text: view.textContent,
  } : null;
  const media = (holder) => holder && Object.fromEntries([...holder.querySelectorAll(':scope > [data-media-type]')].map((m) =>
    [m.dataset.mediaType, schema(m.querySelector(':scope > .schema'))]));
  const operations = () => Object.fromEntries([...document.querySelectorAll('[data-operation]')].map((section) => [section.dataset.operation, {
    deprecated: section.classList.contains('deprecated'),
    security: section.querySelector('.security')?.textContent ?? null,
    parameters: Object.fromEntries([...section.querySelectorAll('[data-parameter]')].map((p) =>
      [p.dataset.parameter, {where: p.querySelector('label > span')?.textContent, ...schema(p.querySelector(':scope > .schema'))}])),
    body: media(section.querySelector('.body')),
    responses: Object.fromEntries([...section.querySelectorAll('tr[data-status]')].map((row) => [row.dataset.status, {
      description: row.cells[1].textContent, code: [...row.cells[1].querySelectorAll('code')].map((c) => c.textContent),
      links: row.cells[1].querySelectorAll('a').length, content: media(row.cells[2])}])),
  }]));
  const textNodes = (test) => {
    let count = 0;
    for (const root of ['title', 'description', 'operations'].map((id) => document.getElementById(id))) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) if (test(walker.currentNode.data)) count++;
    }
    return count;
  };
  const report = {rendered, operations: [...document.querySelectorAll('[data-operation]')].map((s) => s.dataset.operation),
    demo: operations(), backticks: textNodes((text) => text.includes('`'))};
  const section = document.querySelector('[data-operation="getEmoji"]');
  if (!section) return JSON.stringify({...report, error: 'no getEmoji section'});
  section.querySelector('input[name="count"]').value = '3';
  section.querySelector('button').click();
  report.tried = await window.lastTry;
  report.shown = section.querySelector('.result').textContent;

  if (typeof window.renderDocument !== 'function') return JSON.stringify({...report, fixture: {error: 'no window.renderDocument'}});
  window.renderDocument(FIXTURE);
  await new Promise((resolve) => setTimeout(resolve, 300));  // for an onerror to run, if an img got in
  const description = document.getElementById('description');
  const texts = (selector) => [...description.querySelectorAll(selector)].map((e) => e.textContent);
  report.fixture = {
    operations: operations(),
    description: description.textContent,
    paragraphs: description.querySelectorAll('p').length,
    links: [...document.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]),
    strong: texts('strong'), em: texts('em'), code: texts('code'),
    markup: document.querySelectorAll('#title *, #description img, #description script, #operations img, #operations script, #operations b').length,
    pwned: window.pwned ?? null,
  };
  return JSON.stringify(report);
})().catch((error) => JSON.stringify({error: String(error)}))""".replace("FIXTURE", fixture)

with Chromium() as chromium:
    print(chromium.evaluate(chromium.open(page), SCRIPT, await_promise=True))
