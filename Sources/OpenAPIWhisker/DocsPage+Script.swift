extension DocsPage {
    /// The page's script: it renders the document (`window.renderDocument(doc)`, which the page
    /// calls once it has read the document, the "Authorize" area from ``authorize`` first) and
    /// sends "Try it" requests, with the credentials entered there. Everything taken from the
    /// document goes into the page as text (`append`, `textContent`, `setAttribute`), never as
    /// markup, so a hostile document cannot run script in the page.
    static let script = #"""
        const element = (tag, content, attributes = {}) => {
          const node = document.createElement(tag);
          node.append(...[content].flat(3).filter((part) => part != null && part !== false));
          for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
          return node;
        };
        const joined = (parts, separator = ' ') => parts.filter((part) => part != null && part !== false && part !== '')
          .flatMap((part, index) => index ? [separator, part] : [part]);
        // Inline Markdown as nodes, the text staying text: `code`, **strong**, *emphasis*, _emphasis_
        // and [links](to) to http(s) or relative addresses (any other link is shown as written);
        // paragraphs are separated by blank lines.
        const INLINE = /(`+)(.+?)\1(?!`)|\*\*(?=\S)(.+?)\*\*|\[([^\]]+)\]\(([^()\s]+)\)|(?<![\w*])\*(?=[^\s*])(.+?)\*(?![\w*])|(?<!\w)_(?=\S)(.+?)_(?!\w)/gs;
        const safeHref = (to) => {
          try {
            const url = new URL(to, location.href);
            return /^https?:$/.test(url.protocol) ? url.href : null;
          } catch { return null; }
        };
        const inline = (text) => {
          text = String(text);
          const nodes = [];
          let at = 0;
          for (const m of text.matchAll(INLINE)) {
            const href = m[4] && safeHref(m[5]);
            nodes.push(text.slice(at, m.index), m[2] ? element('code', m[2]) : m[3] ? element('strong', inline(m[3]))
              : m[4] ? (href ? element('a', inline(m[4]), { href }) : m[0]) : element('em', inline(m[6] || m[7])));
            at = m.index + m[0].length;
          }
          return [...nodes, text.slice(at)];
        };
        const markdown = (text) => text ? element('div', String(text).split(/\n\s*\n/).filter((p) => p.trim())
          .map((p) => element('p', inline(p.trim()))), { class: 'md' }) : null;
        const resolve = (doc, item) => {
          for (let hops = 0; item && typeof item.$ref === 'string' && item.$ref.startsWith('#/') && hops < 20; hops++) {
            item = item.$ref.slice(2).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'))
              .reduce((node, key) => node && typeof node === 'object' && Object.hasOwn(node, key) ? node[key] : undefined, doc);
          }
          return item && typeof item === 'object' ? item : {};
        };
        // What a schema enforces, each a .constraint: format, bounds (3.0's boolean exclusiveMinimum
        // and 3.1's number alike), lengths, sizes, pattern, enum, const, default, flags.
        const constraints = (s) => {
          const shown = [], json = (value) => element('code', JSON.stringify(value));
          if (s.format !== undefined) shown.push('format ' + s.format);
          for (const [bound, exclusive] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']]) {
            if (s[bound] !== undefined) shown.push((s[exclusive] === true ? exclusive : bound) + ' ' + s[bound]);
            if (typeof s[exclusive] === 'number') shown.push(exclusive + ' ' + s[exclusive]);
          }
          for (const key of ['multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']) {
            if (s[key] !== undefined) shown.push(key + ' ' + s[key]);
          }
          if (s.pattern !== undefined) shown.push(['pattern ', element('code', String(s.pattern))]);
          if (Array.isArray(s.enum)) shown.push(['one of ', joined(s.enum.map(json), ', ')]);
          if ('const' in s) shown.push(['const ', json(s.const)]);
          if ('default' in s) shown.push(['default ', json(s.default)]);
          for (const flag of ['uniqueItems', 'nullable', 'readOnly', 'writeOnly', 'deprecated']) if (s[flag] === true) shown.push(flag);
          return shown.map((parts) => element('span', parts, { class: 'constraint' }));
        };
        // A schema: its name if it is a $ref (expanded once per operation, so a recursive one ends),
        // type, constraints and description, then its properties (required marked), other
        // properties, items and the schemas it combines, nested.
        const schemaView = (doc, schema, expanded, extra = []) => {
          const view = element('div', undefined, { class: 'schema' });
          if (!schema || typeof schema !== 'object') return view.append(...joined([schema === false ? 'no value' : 'any value', ...extra], ', ')), view;
          if (typeof schema.$ref === 'string') {
            view.append(element('span', schema.$ref.split('/').pop().replace(/~1/g, '/').replace(/~0/g, '~'), { class: 'name' }), ' ');
            if (expanded.has(schema.$ref)) return view.append('(as above)'), view;
            expanded.add(schema.$ref);
            schema = resolve(doc, schema);
          }
          const s = schema, required = Array.isArray(s.required) ? s.required : [];
          const type = [].concat(s.type ?? (s.properties ? 'object' : s.items ? 'array' : [])).join(' or ');
          view.append(...joined([type && element('span', type, { class: 'type' }), ...constraints(s), ...extra], ', '), markdown(s.description) || '');
          const nested = Object.entries(s.properties || {}).map(([name, property]) => element('li', joined([element('code', name),
            required.includes(name) && element('span', 'required', { class: 'required' }), schemaView(doc, property, expanded)]), { 'data-property': name }));
          if (s.additionalProperties === false) nested.push(element('li', 'no other properties', { class: 'closed' }));
          else if (s.additionalProperties && typeof s.additionalProperties === 'object') nested.push(element('li', ['other properties: ', schemaView(doc, s.additionalProperties, expanded)]));
          if (s.items !== undefined) nested.push(element('li', ['items: ', schemaView(doc, s.items, expanded)], { class: 'items' }));
          for (const key of ['allOf', 'oneOf', 'anyOf']) {
            if (Array.isArray(s[key])) nested.push(element('li', [key + ':', element('ul', s[key].map((one) => element('li', schemaView(doc, one, expanded))))]));
          }
          if (s.not !== undefined) nested.push(element('li', ['not: ', schemaView(doc, s.not, expanded)]));
          if (nested.length) view.append(element('ul', nested));
          return view;
        };
        const mediaTypes = (doc, content, expanded) => Object.entries(content || {}).map(([type, media]) => element('div',
          joined([element('code', type), media && media.schema !== undefined && schemaView(doc, media.schema, expanded)]), { 'data-media-type': type }));
        const parameterView = (doc, parameter, input, expanded) => {
          const schema = parameter.schema ?? Object.values(parameter.content || {}).map((media) => media && media.schema)[0];
          const type = resolve(doc, schema).type, extra = [];
          if (parameter.style || parameter.explode !== undefined || type === 'array' || type === 'object') {
            const style = parameter.style || (/^(query|cookie)$/.test(parameter.in) ? 'form' : 'simple');
            extra.push(element('span', 'style ' + style + ((parameter.explode ?? style === 'form') ? ', exploded' : ''), { class: 'constraint' }));
          }
          if (parameter.deprecated === true) extra.push(element('span', 'deprecated', { class: 'constraint' }));
          const where = element('span', 'in ' + parameter.in + (parameter.required ? ', required' : ''), { class: parameter.required ? 'required' : 'muted' });
          return element('div', [element('label', joined([element('code', parameter.name), where, input])), schemaView(doc, schema, expanded, extra),
            markdown(parameter.description)], { class: 'parameter', 'data-parameter': parameter.name });
        };
        // Who may call: the requirements (any one of them, each all of its schemes) of the operation
        // or else of the document.
        const securityText = (doc, requirements) => requirements.map((requirement) => Object.entries(requirement || {}).map(([name, scopes]) => {
          const kind = schemeKind(resolve(doc, ((doc.components || {}).securitySchemes || {})[name]));
          return name + (kind ? ' (' + kind + ')' : '') + (Array.isArray(scopes) && scopes.length ? ', scopes ' + scopes.join(', ') : '');
        }).join(' and ') || 'none').join(' or ') || 'none';
        // "Try it": the request from the inputs, with the credentials for `security` (the
        // operation's requirements, see credentialsFor); the URL shown leaves a query key out.
        const tryOperation = async (path, method, parameters, inputs, bodyType, bodyInput, security, result) => {
          let url = apiPrefix + path;
          const query = new URLSearchParams();
          parameters.forEach((parameter, index) => {
            const value = inputs[index].value;
            if (value === '') return;
            if (parameter.in === 'path') url = url.replace('{' + parameter.name + '}', encodeURIComponent(value));
            else if (parameter.in === 'query') query.append(parameter.name, value);
          });
          const shown = url + ([...query].length ? '?' + query : '');
          const { headers, query: keys } = credentialsFor(security);
          for (const [name, value] of keys) query.append(name, value);
          if ([...query].length) url += '?' + query;
          const init = { method: method.toUpperCase(), headers, credentials: 'same-origin' };
          if (bodyType) headers['Content-Type'] = bodyType, init.body = bodyInput.value;
          result.textContent = init.method + ' ' + shown + ' …';
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
        const operationView = (doc, path, item, method, operation) => {
          const section = element('section', undefined, { 'data-operation': operation.operationId || method + ' ' + path });
          const deprecated = operation.deprecated === true, expanded = new Set();
          if (deprecated) section.className = 'deprecated';
          section.append(element('h2', joined([element('span', method, { class: 'method' }), element('code', apiPrefix + path),
            deprecated && element('span', 'deprecated', { class: 'badge' })])));
          section.append(element('p', [String(operation.operationId || ''), operation.summary ? [' — ', inline(operation.summary)] : '']),
            markdown(operation.description) || '');
          const security = operation.security ?? doc.security;
          if (Array.isArray(security)) section.append(element('p', 'Security: ' + securityText(doc, security), { class: 'security' }));
          const byName = new Map([...(item.parameters || []), ...(operation.parameters || [])].map((p) => resolve(doc, p)).map((p) => [p.in + ' ' + p.name, p]));
          const parameters = [...byName.values()];
          const inputs = parameters.map((parameter) => {
            const schema = resolve(doc, parameter.schema);
            return element('input', undefined, { name: parameter.name, placeholder: schema.default !== undefined ? String(schema.default) : schema.type || '' });
          });
          if (parameters.length) section.append(element('h3', 'Parameters'), ...parameters.map((parameter, index) => parameterView(doc, parameter, inputs[index], expanded)));
          const body = operation.requestBody && resolve(doc, operation.requestBody);
          const bodyType = body && body.content ? Object.keys(body.content)[0] : null;
          let bodyInput = null;
          if (body) section.append(element('h3', 'Request body' + (body.required ? ' (required)' : '')), markdown(body.description) || '', element('div', mediaTypes(doc, body.content, expanded), { class: 'body' }));
          if (bodyType) section.append(element('label', ['body (' + bodyType + ')', bodyInput = element('textarea', undefined, { name: 'body' })]));
          const responses = Object.entries(operation.responses || {}).map(([status, reference]) => {
            const response = resolve(doc, reference);
            return element('tr', [element('td', element('code', status)), element('td', markdown(response.description)),
              element('td', mediaTypes(doc, response.content, expanded))], { 'data-status': status });
          });
          if (responses.length) section.append(element('h3', 'Responses'), element('table', [element('tr', ['Status', 'Description', 'Content'].map((h) => element('th', h))), responses], { class: 'responses' }));
          const button = element('button', 'Try it');
          const result = element('pre', undefined, { class: 'result' });
          button.addEventListener('click', () => {
            window.lastTry = tryOperation(path, method, parameters, inputs, bodyType, bodyInput, security, result);
          });
          section.append(button, result);
          return section;
        };
        const render = window.renderDocument = (doc) => {
          if (!doc || typeof doc !== 'object') doc = {};
          const info = doc.info || {};
          document.title = String(info.title || 'API');
          document.getElementById('title').textContent = document.title + (info.version ? ' ' + info.version : '');
          document.getElementById('description').replaceChildren(markdown(info.description) || '');
          const authorize = document.getElementById('authorize');
          authorize.replaceChildren(...authorizeView(doc));
          authorize.hidden = !authorize.childElementCount;
          const list = document.getElementById('operations');
          list.textContent = '';
          for (const [path, item] of Object.entries(doc.paths || {})) {
            for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
              if (item && item[method]) list.append(operationView(doc, path, item, method, item[method]));
            }
          }
          return list.querySelectorAll('[data-operation]').length;
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
          return render(doc);
        })();
        window.docsReady.catch((error) => { document.getElementById('operations').textContent = String(error); });

        """#
}
