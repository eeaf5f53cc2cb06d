extension DocsPage {
    /// The page's reader for the YAML that OpenAPI documents are written in, `parseYAML(text)`:
    /// a script that the page's own script (``script``) calls when the document is not JSON.
    static let yamlReader = #"""
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

        """#
}
