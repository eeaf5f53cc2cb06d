/// The docs page: one HTML file with its own style and script (nothing fetched from elsewhere).
/// It reads the document (JSON, or YAML with ``yamlReader``), lists every operation with what it
/// enforces (parameters and their constraints, the schemas of request and response bodies,
/// responses by status, deprecation, security) and descriptions as Markdown, and "Try it" sends
/// the request from the browser (``script``) with the credentials entered in its "Authorize" area
/// (``authorize``), which the page keeps in memory only. `window.docsReady` is a promise of the rendering,
/// `window.lastTry` of the last answer and `window.renderDocument(doc)` renders a document, for
/// tests that drive the page.
enum DocsPage {
    static func html(documentURL: String?, apiPrefix: String) -> [UInt8] {
        page(documentURL: documentURL, apiPrefix: apiPrefix).html
    }

    /// The page and the `Content-Security-Policy` that allows exactly its inline style and script.
    static func page(documentURL: String?, apiPrefix: String) -> (html: [UInt8], contentSecurityPolicy: String) {
        let settings = "const documentURL = \(jsString(documentURL)), apiPrefix = \(jsString(apiPrefix));"
        let code = "\n" + settings + "\n" + yamlReader + authorize + script
        let html = head + "<style>" + style + "</style>\n" + body + "<script>" + code + "</script>\n</body>\n</html>\n"
        return (Array(html.utf8), contentSecurityPolicy(style: style, script: code))
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

        """

    private static let style = """

        body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
        h1 { margin-bottom: .2rem; } .muted { color: #666; }
        section { border: 1px solid #ddd; border-radius: 6px; padding: .8rem 1rem; margin: 1rem 0; }
        .method { font-weight: 700; text-transform: uppercase; margin-right: .5rem; }
        code, pre, textarea, input { font: 13px ui-monospace, monospace; }
        pre { background: #f6f6f6; padding: .6rem; overflow: auto; max-height: 20rem; white-space: pre-wrap; } pre:empty { display: none; }
        label { display: block; margin: .3rem 0; } input { width: 12rem; } textarea { width: 100%; height: 4rem; }
        button { margin-top: .5rem; } h3 { font-size: 1rem; margin: .8rem 0 .3rem; } .md p { margin: .2rem 0; }
        .parameter { margin: .4rem 0 .6rem; } .parameter label { margin: 0; }
        .schema ul { margin: .2rem 0; padding-left: 1.3rem; } li > .schema, [data-media-type] > .schema { display: inline; } .name { font-weight: 600; } .type, .constraint { color: #555; }
        .required { color: #a40; } .badge { background: #fde2e1; color: #a00; border-radius: 4px; padding: 0 .4rem; font-size: .8rem; margin-left: .5rem; }
        .deprecated h2 code { text-decoration: line-through; }
        table { border-collapse: collapse; width: 100%; } th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-top: 1px solid #eee; }

        """

    private static let body = """
        </head>
        <body>
        <h1 id="title">API</h1>
        <div id="description" class="muted"></div>
        <section id="authorize" hidden></section>
        <div id="operations"><p class="muted">Loading the document…</p></div>

        """
}
