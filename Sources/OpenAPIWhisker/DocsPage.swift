import OpenAPIWhiskerDocument

/// The docs page: `DocsPage.html`, one HTML file with its own style and script (nothing fetched
/// from elsewhere), embedded in the module at build time. It reads the served JSON document,
/// lists every operation with what it enforces (parameters and their constraints, the schemas of
/// request and response bodies, responses by status, deprecation, security) and descriptions as
/// Markdown; "Try it" sends the request from the browser with the credentials entered in its
/// "Authorize" area, which the page keeps in memory only. Which credential each kind of security
/// scheme presents is the server's table (`SecuritySchemeRule`), written
/// into the page: the page holds no second copy. `window.docsReady` is a promise of the rendering,
/// `window.lastTry` of the last answer and `window.renderDocument(doc)` renders a document, for
/// tests that drive the page.
///
/// An embedded resource, not one read through Foundation's `Bundle`: a resource bundle is a
/// directory that must travel beside the executable (a binary copied alone would serve no page),
/// and `Bundle.module` is Foundation's. Embedded, the page is a file that HTML tools read and the
/// binary carries; the only Swift here fills in its settings and hashes its style and script.
enum DocsPage {
    /// The page's file in three parts: up to its `/*SETTINGS*/` line, the rest of its script,
    /// after the script.
    private static let parts: (style: String, beforeSettings: String, afterSettings: String) = {
        let file = String(decoding: PackageResources.DocsPage_html, as: UTF8.self)
        let marker = "/*SETTINGS*/\n"
        guard let style = file.between("<style>", "</style>"), let settings = file.firstRange(of: marker) else {
            preconditionFailure("DocsPage.html has a <style> element and a /*SETTINGS*/ line in its <script>")
        }
        return (String(style), String(file[..<settings.lowerBound]), String(file[settings.upperBound...]))
    }()

    static func html(documentURL: String?, apiPrefix: String) -> [UInt8] {
        page(documentURL: documentURL, apiPrefix: apiPrefix).html
    }

    /// The page and the `Content-Security-Policy` that allows exactly its inline style and script.
    static func page(documentURL: String?, apiPrefix: String) -> (html: [UInt8], contentSecurityPolicy: String) {
        let settings = "const documentURL = \(jsString(documentURL)), apiPrefix = \(jsString(apiPrefix));\n"
            + "const schemeRules = \(SecuritySchemeRule.json);\n"
        let html = parts.beforeSettings + settings + parts.afterSettings
        guard let script = html.between("<script>", "</script>") else { preconditionFailure("DocsPage.html has one <script> element") }
        return (Array(html.utf8), contentSecurityPolicy(style: parts.style, script: String(script)))
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
}

extension String {
    /// The text between the first `start` and the `end` after it.
    fileprivate func between(_ start: String, _ end: String) -> Substring? {
        guard let open = firstRange(of: start), let close = self[open.upperBound...].firstRange(of: end) else { return nil }
        return self[open.upperBound..<close.lowerBound]
    }
}
