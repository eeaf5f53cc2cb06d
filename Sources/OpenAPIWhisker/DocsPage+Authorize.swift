extension DocsPage {
    /// The page's "Authorize" area and what "Try it" adds for an operation's security (a script
    /// that ``script`` calls): `authorizeView(doc)` gives the nodes of `#authorize`, listing the
    /// document's `components.securitySchemes` with an input for each one the page can send (an
    /// http bearer token, oauth2's and openIdConnect's too; http basic's user and password; an
    /// apiKey for a header or the query), says that the browser sends its own cookie (apiKey in a
    /// cookie) or client certificate (mutualTLS), and `credentialsFor(requirements)` gives the
    /// headers and query parameters of the first alternative whose schemes all have a value. The
    /// values stay in those inputs, in the page's memory: nothing is written to storage, a cookie
    /// or the URL, and a reload clears them. The document's text goes into the page as text, as in
    /// ``script``.
    static let authorize = #"""
        // How a scheme is sent: 'bearer' (http bearer, oauth2, openIdConnect), 'basic', 'header' or
        // 'query' (apiKey), 'browser' (an apiKey cookie, mutualTLS: the browser's own), else null.
        const schemeSending = (scheme) => {
          const http = String(scheme.scheme || '').toLowerCase();
          if (scheme.type === 'http') return http === 'bearer' ? 'bearer' : http === 'basic' ? 'basic' : null;
          if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 'bearer';
          if (scheme.type === 'apiKey') return scheme.in === 'header' || scheme.in === 'query' ? scheme.in : scheme.in === 'cookie' ? 'browser' : null;
          return scheme.type === 'mutualTLS' ? 'browser' : null;
        };
        const schemeKind = (scheme) => scheme.type === 'apiKey' ? 'API key in ' + scheme.in + ' ' + scheme.name : scheme.type === 'http' ? 'HTTP ' + scheme.scheme : scheme.type;
        // Scheme name to { sending, scheme, inputs } for the document on the page (authorizeView).
        let authorization = new Map();
        const authorizeView = (doc) => {
          authorization = new Map();
          const schemes = Object.entries((doc.components || {}).securitySchemes || {});
          if (!schemes.length) return [];
          const secret = (name, field) => element('input', undefined, { type: 'password', name: name + ' ' + field, autocomplete: 'off', placeholder: field });
          const entries = schemes.map(([name, reference]) => {
            const scheme = resolve(doc, reference), sending = schemeSending(scheme);
            const inputs = sending === 'basic' ? [element('input', undefined, { name: name + ' user', autocomplete: 'off', placeholder: 'user' }), secret(name, 'password')]
              : sending === 'browser' || !sending ? [] : [secret(name, sending === 'bearer' ? 'token' : 'key')];
            authorization.set(name, { sending, scheme, inputs });
            const note = sending === 'browser' ? (scheme.type === 'mutualTLS' ? 'the browser’s client certificate is used' : 'the browser sends its own cookie; the page sets none')
              : !sending ? 'the page cannot send this scheme' : sending === 'bearer' && scheme.type !== 'http' ? 'its access token, as a bearer token' : null;
            return element('div', [element('label', joined([element('code', name), element('span', schemeKind(scheme) || '', { class: 'type' }),
              ...inputs, note && element('span', note, { class: 'muted' })])), markdown(scheme.description)], { class: 'parameter', 'data-scheme': name });
          });
          return [element('h2', 'Authorize'), element('p', 'What you enter here stays in this page’s memory (a reload clears it); ' +
            '“Try it” sends it to the operations that need it.', { class: 'muted' }), ...entries];
        };
        // What "Try it" adds for an operation's requirements: the credentials of the first
        // alternative that has something to add and a value for each of its schemes (a cookie or
        // client certificate counting as given), as { headers, query }; nothing if none has.
        const credentialsFor = (requirements) => {
          const headers = {}, query = [];
          for (const requirement of Array.isArray(requirements) ? requirements : []) {
            const names = Object.keys(requirement || {}), entries = names.map((name) => authorization.get(name));
            const values = entries.map((entry) => entry && entry.inputs.map((input) => input.value));
            const given = entries.every((entry, index) => entry && entry.sending && (entry.sending === 'browser' || values[index].some((value) => value !== '')));
            if (!given || entries.every((entry) => entry.sending === 'browser')) continue;
            entries.forEach(({ sending, scheme }, index) => {
              const [value, password] = values[index];
              if (sending === 'bearer') headers.Authorization = 'Bearer ' + value;
              else if (sending === 'basic') headers.Authorization = 'Basic ' + btoa(String.fromCharCode(...new TextEncoder().encode(value + ':' + password)));
              else if (sending === 'header') headers[scheme.name] = value;
              else if (sending === 'query') query.push([scheme.name, value]);
            });
            return { headers, query };
          }
          return { headers, query };
        };

        """#
}
