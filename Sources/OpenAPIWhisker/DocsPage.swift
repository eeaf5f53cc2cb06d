/// The docs page: one HTML file with its own style and script (nothing fetched from elsewhere).
/// It reads the document (JSON), lists every operation with its parameters, request body and
/// responses, and "Try it" sends the request from the browser. `window.docsReady` is a promise of
/// the rendering and `window.lastTry` of the last answer, for tests that drive the page.
enum DocsPage {
    static func html(documentURL: String?, apiPrefix: String) -> [UInt8] {
        let settings = "const documentURL = \(jsString(documentURL)), apiPrefix = \(jsString(apiPrefix));"
        return Array((head + "<script>\n" + settings + "\n" + script + "</script>\n</body>\n</html>\n").utf8)
    }

    /// A JavaScript string literal (or `null`) for `value`, safe inside a `<script>` element.
    private static func jsString(_ value: String?) -> String {
        guard let value else { return "null" }
        var literal = "\""
        for scalar in value.unicodeScalars {
            if scalar.value < 0x20 || "\"\\<>&'".unicodeScalars.contains(scalar) {
                let hex = String(scalar.value, radix: 16)
                literal += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }

    private static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>API</title>
        <style>
        body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
        h1 { margin-bottom: .2rem; } .muted { color: #666; }
        section { border: 1px solid #ddd; border-radius: 6px; padding: .8rem 1rem; margin: 1rem 0; }
        .method { font-weight: 700; text-transform: uppercase; margin-right: .5rem; }
        code, pre, textarea, input { font: 13px ui-monospace, monospace; }
        pre { background: #f6f6f6; padding: .6rem; overflow: auto; max-height: 20rem; white-space: pre-wrap; } pre:empty { display: none; }
        label { display: block; margin: .3rem 0; } input { width: 12rem; } textarea { width: 100%; height: 4rem; }
        button { margin-top: .5rem; }
        </style>
        </head>
        <body>
        <h1 id="title">API</h1>
        <p id="description" class="muted"></p>
        <div id="operations"><p class="muted">Loading the document…</p></div>

        """

    private static let script = #"""
        const element = (tag, text, attributes = {}) => {
          const node = document.createElement(tag);
          if (text !== undefined) node.textContent = text;
          for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
          return node;
        };
        // A reader for the YAML that OpenAPI documents are written in: block mappings and
        // sequences, plain, quoted and block (| and >) scalars, [flow, sequences], comments. Not
        // anchors, tags, flow mappings with content, or several documents: serve JSON for those.
        const parseYAML = (text) => {
          const lines = text.split('\n').map((raw) => {
            let content = raw.replace(/\r$/, ''), quote = null;
            for (let i = 0; i < content.length; i++) {
              const c = content[i];
              if (quote) { if (c === quote) quote = null; }
              else if ((c === "'" || c === '"') && (i === 0 || /[\s:\[,-]/.test(content[i - 1]))) quote = c;
              else if (c === '#' && (i === 0 || /\s/.test(content[i - 1]))) { content = content.slice(0, i); break; }
            }
            return { indent: raw.search(/\S|$/), text: content.trim(), raw: raw.replace(/\r$/, '') };
          });
          let at = 0;
          const skip = () => { while (at < lines.length && lines[at].text === '') at++; };
          const scalar = (value) => {
            if (value.startsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
            if (value.startsWith('"')) return JSON.parse(value);
            if (value.startsWith('[')) { const inner = value.slice(1, -1).trim(); return inner ? inner.split(',').map((v) => scalar(v.trim())) : []; }
            if (value === '{}') return {};
            if (/^(true|false)$/.test(value)) return value === 'true';
            if (/^(null|~)$/.test(value)) return null;
            if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return Number(value);
            return value;
          };
          const blockScalar = (style, parentIndent) => {
            const collected = [];
            let indent = null;
            while (at < lines.length && (lines[at].text === '' || lines[at].indent > parentIndent)) {
              if (lines[at].raw.trim() !== '' && indent === null) indent = lines[at].indent;
              collected.push(lines[at].raw.slice(indent === null ? 0 : indent));
              at++;
            }
            while (collected.length && collected[collected.length - 1].trim() === '') collected.pop();
            const joined = style[0] === '|' ? collected.join('\n')
              : collected.reduce((out, line) => out + (line === '' ? '\n' : (out && !out.endsWith('\n') ? ' ' : '') + line), '');
            return style.endsWith('-') ? joined : joined + '\n';
          };
          const value = (rest, indent) => {
            if (/^[|>][-+]?$/.test(rest)) return blockScalar(rest, indent);
            if (rest !== '') return scalar(rest);
            skip();
            if (at >= lines.length) return null;
            const next = lines[at];
            if (next.indent > indent || (next.indent === indent && next.text.startsWith('- '))) return block(next.indent);
            return null;
          };
          const entry = (text, indent, into) => {
            const colon = text.search(/:(\s|$)/);
            if (colon < 0) throw new Error('not a mapping entry: ' + text);
            const key = scalar(text.slice(0, colon).trim());
            at++;
            into[key] = value(text.slice(colon + 1).trim(), indent);
          };
          const block = (indent) => {
            skip();
            if (lines[at].text.startsWith('- ') || lines[at].text === '-') {
              const list = [];
              while ((skip(), at < lines.length) && lines[at].indent === indent && lines[at].text.startsWith('-')) {
                const item = lines[at].text.slice(1).trim(), itemIndent = indent + 2;
                if (item === '') { at++; list.push(value('', indent)); continue; }
                if (/^[^'"\[{][^:]*:(\s|$)/.test(item) || /^['"][^'"]*['"]:(\s|$)/.test(item)) {
                  const map = {};
                  entry(item, itemIndent, map);
                  while ((skip(), at < lines.length) && lines[at].indent === itemIndent && !lines[at].text.startsWith('- ')) entry(lines[at].text, itemIndent, map);
                  list.push(map);
                } else { at++; list.push(scalar(item)); }
              }
              return list;
            }
            const map = {};
            while ((skip(), at < lines.length) && lines[at].indent === indent && !lines[at].text.startsWith('- ')) entry(lines[at].text, indent, map);
            return map;
          };
          skip();
          return block(lines[at].indent);
        };
        const resolve = (document, item) => {
          while (item && item.$ref && item.$ref.startsWith('#/')) {
            item = item.$ref.slice(2).split('/').reduce((node, key) => node && node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
          }
          return item || {};
        };
        const tryOperation = async (path, method, parameters, inputs, bodyType, bodyInput, result) => {
          let url = apiPrefix + path;
          const query = new URLSearchParams();
          parameters.forEach((parameter, index) => {
            const value = inputs[index].value;
            if (value === '') return;
            if (parameter.in === 'path') url = url.replace('{' + parameter.name + '}', encodeURIComponent(value));
            else if (parameter.in === 'query') query.append(parameter.name, value);
          });
          if ([...query].length) url += '?' + query;
          const init = { method: method.toUpperCase() };
          if (bodyType) init.headers = { 'Content-Type': bodyType }, init.body = bodyInput.value;
          result.textContent = init.method + ' ' + url + ' …';
          try {
            const response = await fetch(url, init);
            const type = response.headers.get('Content-Type') || '';
            let text;
            if (/^(text|application\/(json|yaml))/.test(type)) text = await response.text();
            else text = '(' + (await response.arrayBuffer()).byteLength + ' bytes of ' + type + ')';
            result.textContent = response.status + ' ' + response.statusText + '\n' + text;
            return { status: response.status, type, text };
          } catch (error) {
            result.textContent = String(error);
            return { error: String(error) };
          }
        };
        const render = (doc) => {
          document.title = (doc.info && doc.info.title) || 'API';
          document.getElementById('title').textContent = document.title + (doc.info && doc.info.version ? ' ' + doc.info.version : '');
          document.getElementById('description').textContent = (doc.info && doc.info.description) || '';
          const list = document.getElementById('operations');
          list.textContent = '';
          for (const [path, item] of Object.entries(doc.paths || {})) {
            for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
              const operation = item[method];
              if (!operation) continue;
              const section = element('section', undefined, { 'data-operation': operation.operationId || method + ' ' + path });
              const title = element('h2');
              title.append(element('span', method, { class: 'method' }), element('code', apiPrefix + path));
              section.append(title, element('p', (operation.operationId || '') + (operation.summary ? ' — ' + operation.summary : '')));
              if (operation.description) section.append(element('p', operation.description, { class: 'muted' }));
              const parameters = [...(item.parameters || []), ...(operation.parameters || [])].map((p) => resolve(doc, p));
              const inputs = parameters.map((parameter) => {
                const label = element('label', parameter.name + ' (' + parameter.in + (parameter.required ? ', required' : '') + ') ');
                const input = element('input', undefined, { name: parameter.name, placeholder: (parameter.schema && parameter.schema.type) || '' });
                label.append(input);
                if (parameter.description) label.append(element('span', ' ' + parameter.description, { class: 'muted' }));
                section.append(label);
                return input;
              });
              const body = operation.requestBody && resolve(doc, operation.requestBody);
              const bodyType = body && body.content ? Object.keys(body.content)[0] : null;
              let bodyInput = null;
              if (bodyType) {
                const label = element('label', 'body (' + bodyType + ')');
                bodyInput = element('textarea', undefined, { name: 'body' });
                label.append(bodyInput);
                section.append(label);
              }
              const responses = Object.entries(operation.responses || {}).map(([code, r]) => code + ' ' + (resolve(doc, r).description || ''));
              section.append(element('p', 'Responses: ' + responses.join('; '), { class: 'muted' }));
              const button = element('button', 'Try it');
              const result = element('pre', undefined, { class: 'result' });
              button.addEventListener('click', () => {
                window.lastTry = tryOperation(path, method, parameters, inputs, bodyType, bodyInput, result);
              });
              section.append(button, result);
              list.append(section);
            }
          }
        };
        window.docsReady = (async () => {
          if (!documentURL) throw new Error('no document to show');
          const response = await fetch(documentURL);
          const text = await response.text();
          let doc;
          try {
            doc = documentURL.endsWith('.json') ? JSON.parse(text) : parseYAML(text);
          } catch (error) {
            document.getElementById('operations').replaceChildren(element('p', 'The document could not be read (' + error.message + '); here it is:'), element('pre', text));
            return 0;
          }
          render(doc);
          return document.querySelectorAll('[data-operation]').length;
        })();
        window.docsReady.catch((error) => { document.getElementById('operations').textContent = String(error); });

        """#
}
