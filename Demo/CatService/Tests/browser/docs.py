#!/usr/bin/env python3
"""docs.py PAGE REPORT_TOKEN VISITOR_TOKEN: opens the docs page PAGE in headless Chromium, waits
for it to render the document (window.docsReady) and reports what it shows; then tries getEmoji
with count=3 as a user would (types the count, clicks "Try it") and waits for the answer
(window.lastTry); tries getShelterReport with no token, then with each token typed into the
Authorize area, and looks for the tokens in the page's storage, cookies and URL; then renders
docs-fixture.json (a document with hostile text, recursive and looping $refs, 3.0 and 3.1 bounds,
deprecation and security schemes of every kind) with the page's own window.renderDocument and
reports that too, with what "Try it" sent (window.fetch watched) for credentials typed in; then
reloads the page and tries getShelterReport again.

Prints, as JSON: the operations the page lists ("operations"), what it shows of each
("demo": {operationId: {deprecated, security, parameters, body, responses}}, a schema as {name,
type, constraints, properties, items, closed, text}), how many text nodes hold a backtick
("backticks"), what "Try it" showed ("tried": {"status", "text"}, "shown"), the report's tries
("security": {"none", "reporter", "visitor"}, each {status, text, shown}; "input", the token
input's type; "stored", the places holding a token), and for the fixture ("fixture") its
operations, its Authorize area ("schemes": {name: {inputs, text}}), the requests "Try it" sent
("sent": {url, headers, credentials, asking, shown}, "asking" the page's text while waiting), the
description's text, paragraphs, links, strong, em and code, the img and script elements the page
holds and window.pwned (which the fixture's script would set); after the reload ("reloaded") the
token input's value and the report's status; or the error. The caller bounds the wait (with
`timeout`)."""
import json
import os
import sys

from devtools import Chromium

page, reporter, visitor = sys.argv[1:4]
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

  // getShelterReport: no token, the reporter's, the visitor's, typed into the Authorize area.
  const tryReport = async () => {
    const reportSection = document.querySelector('[data-operation="getShelterReport"]');
    reportSection.querySelector('button').click();
    return {...await window.lastTry, shown: reportSection.querySelector('.result').textContent};
  };
  const token = document.querySelector('#authorize [data-scheme="shelterToken"] input');
  if (!token) return JSON.stringify({...report, error: 'no input for shelterToken in #authorize'});
  report.security = {input: token.type, none: await tryReport()};
  token.value = REPORT_TOKEN;
  report.security.reporter = await tryReport();
  token.value = VISITOR_TOKEN;
  report.security.visitor = await tryReport();
  token.value = REPORT_TOKEN;
  const places = {localStorage: JSON.stringify({...localStorage}), sessionStorage: JSON.stringify({...sessionStorage}),
    cookie: document.cookie, url: location.href, history: JSON.stringify(history.state)};
  report.security.stored = Object.keys(places).filter((where) => [REPORT_TOKEN, VISITOR_TOKEN].some((t) => places[where].includes(t)));

  if (typeof window.renderDocument !== 'function') return JSON.stringify({...report, fixture: {error: 'no window.renderDocument'}});
  window.renderDocument(FIXTURE);
  await new Promise((resolve) => setTimeout(resolve, 300));  // for an onerror to run, if an img got in
  // The fixture's Authorize area, and what "Try it" sends once credentials are typed in.
  const scheme = (name) => document.querySelector('#authorize [data-scheme="' + name + '"]');
  report.fixture = {schemes: Object.fromEntries([...document.querySelectorAll('#authorize [data-scheme]')].map((entry) =>
    [entry.dataset.scheme, {inputs: [...entry.querySelectorAll('input')].map((input) => input.type), text: entry.textContent}]))};
  const sent = [], fetched = window.fetch;
  window.fetch = (url, init) => (sent.push({url: String(url), headers: {...(init && init.headers)}, credentials: init && init.credentials}), fetched(url, init));
  const tryFixture = async (operation) => {
    const section = document.querySelector('[data-operation="' + operation + '"]');
    section.querySelector('button').click();
    const asking = section.querySelector('.result').textContent;
    await window.lastTry;
    return {...sent[sent.length - 1], asking, shown: section.querySelector('.result').textContent};
  };
  const fill = (name, ...values) => [...scheme(name).querySelectorAll('input')].forEach((input, index) => input.value = values[index]);
  report.fixture.sent = {none: await tryFixture('openLock')};
  fill('oauth', 'oauth-token');
  fill('basic', 'cat', 'pä ss');
  fill('query', 'k&1');
  report.fixture.sent.oauth = await tryFixture('openLock');
  fill('oauth', '');
  report.fixture.sent.basic = await tryFixture('openLock');
  fill('bearer', 'b-token');
  report.fixture.sent.incomplete = await tryFixture('plantTree');
  window.fetch = fetched;
  const description = document.getElementById('description');
  const texts = (selector) => [...description.querySelectorAll(selector)].map((e) => e.textContent);
  report.fixture = {
    ...report.fixture,
    operations: operations(),
    description: description.textContent,
    paragraphs: description.querySelectorAll('p').length,
    links: [...document.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]),
    strong: texts('strong'), em: texts('em'), code: texts('code'),
    markup: document.querySelectorAll('#title *, #description img, #description script, #operations img, #operations script, #operations b, #authorize img, #authorize script').length,
    pwned: window.pwned ?? null,
  };
  return JSON.stringify(report);
})().catch((error) => JSON.stringify({error: String(error)}))"""
SCRIPT = SCRIPT.replace("REPORT_TOKEN", json.dumps(reporter)).replace("VISITOR_TOKEN", json.dumps(visitor)).replace("FIXTURE", fixture)

# After a reload: the token input is empty again, and the report refused.
RELOADED = """(async () => {
  await window.docsReady;
  const section = document.querySelector('[data-operation="getShelterReport"]');
  section.querySelector('button').click();
  return JSON.stringify({value: document.querySelector('#authorize [data-scheme="shelterToken"] input').value, status: (await window.lastTry).status});
})().catch((error) => JSON.stringify({error: String(error)}))"""

with Chromium() as chromium:
    session = chromium.open(page)
    report = json.loads(chromium.evaluate(session, SCRIPT, await_promise=True))
    chromium.call("Page.reload", {}, session)
    chromium.wait_event("Page.loadEventFired", session)
    report["reloaded"] = json.loads(chromium.evaluate(session, RELOADED, await_promise=True))
    print(json.dumps(report))
