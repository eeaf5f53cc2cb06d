#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OpenAPIWhiskerDocument

/// The docs page: `DocsPage.html`, one HTML file with its own style and script (nothing fetched
/// from elsewhere), embedded in the module at build time. It reads the served JSON document,
/// lists every operation with what it enforces (parameters and their constraints, the schemas of
/// request and response bodies, responses by status, deprecation, security) and descriptions as
/// Markdown; "Try it" sends the request from the browser with the credentials entered in its
/// "Authorize" area, which the page keeps in memory only. Which credential each kind of security
/// scheme presents is the server's table (`SecuritySchemeRule`), written into the page: the page
/// holds no second copy. `window.docsReady` is a promise of the rendering, `window.lastTry` of the
/// last answer and `window.renderDocument(doc)` renders a document, for tests that drive the page.
///
/// An embedded resource, not one read through Foundation's `Bundle`: a resource bundle is a
/// directory that must travel beside the executable (a binary copied alone would serve no page),
/// and `Bundle.module` is Foundation's. Embedded, the page is a file that HTML tools read and the
/// binary carries; the only Swift here fills in its settings and hashes its style and script.
enum DocsPage {
    /// The page's style, and its file before and after its `/*SETTINGS*/` line.
    private static let parts: (style: String, beforeSettings: String, afterSettings: String) = {
        let file = String(decoding: PackageResources.DocsPage_html, as: UTF8.self)
        let marker = "/*SETTINGS*/\n"
        guard let style = file.between("<style>", "</style>"), let settings = file.firstRange(of: marker) else {
            preconditionFailure("DocsPage.html has a <style> element and a /*SETTINGS*/ line in its <script>")
        }
        return (String(style), String(file[..<settings.lowerBound]), String(file[settings.upperBound...]))
    }()

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

    /// The page's `Content-Security-Policy`: its one inline style and one inline script are
    /// allowed by their SHA-256 hashes (no `'unsafe-inline'`: markup that a document's text might
    /// smuggle in runs no script and applies no style), requests go only to this origin (the
    /// document, "Try it"), nothing is loaded from elsewhere, and no other site may frame the page
    /// (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for older browsers): a page that
    /// sends requests with the credentials typed into it must not be clickjacked.
    static func contentSecurityPolicy(style: String, script: String) -> String {
        [
            "default-src 'none'", "script-src '\(sha256Source(script))'", "style-src '\(sha256Source(style))'",
            "connect-src 'self'", "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// `sha256-` and the base64 of the SHA-256 of `text`'s UTF-8, as CSP names an inline element.
    static func sha256Source(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(Array(text.utf8))).base64EncodedString()
    }
}

extension String {
    /// The text between the first `start` and the `end` after it.
    fileprivate func between(_ start: String, _ end: String) -> Substring? {
        guard let open = firstRange(of: start), let close = self[open.upperBound...].firstRange(of: end) else { return nil }
        return self[open.upperBound..<close.lowerBound]
    }
}

/// SHA-256 (FIPS 180-4), for the docs page's CSP hashes only: computed once per page, at
/// registration (OpenAPIWhisker links no crypto library).
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var w = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for i in 0..<16 {
                w[i] = (0..<4).reduce(0) { $0 << 8 | UInt32(padded[block + i * 4 + $1]) }
            }
            for i in 16..<64 {
                let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, value) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ value }
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }
}
