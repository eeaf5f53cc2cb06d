#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import HTTPTypes
public import OpenAPIWhiskerDocument
import WhiskerCore

extension WhiskerTransport {
    /// Serves `document` under the path of `serverURL` (where the generated routes are):
    /// `GET /api/openapi.yaml` and `/api/openapi.json` for the forms it has, and the docs page at
    /// `/api/docs` (`OpenAPIDocument.docsPagePath`). The page reads `openapi.json`: given only the
    /// YAML form, with a page, `openapi.json` is that YAML read by the server (a YAML document its
    /// reader cannot read, with anchors say, is shown on the page as text: give the JSON form too).
    /// The document is sent with `Cache-Control: no-cache` and the server's `ETag`
    /// (``/WhiskerCore/WhiskerServer/ResponseDefaults/generatesETags``), so a client revalidates with
    /// `If-None-Match` and gets `304` while it has not changed.
    ///
    /// The page is one small HTML file of Whisker's own (about 23 KB, no script or style from
    /// anywhere else, so it works offline and under a strict network policy): it lists every
    /// operation (method, path, `operationId`, summary, parameters, request body and responses)
    /// with what it enforces: each parameter's constraints (bounds, lengths, pattern, enum,
    /// default), the schema of each request and response body by media type (properties,
    /// required ones, nested objects and arrays, `$ref`s by name), the responses by status,
    /// deprecation and security. Descriptions are rendered as inline Markdown (code, emphasis,
    /// links to http(s) or relative addresses), as text, never as markup. "Try it" sends the
    /// request from the browser and shows the answer, with the credentials typed into the page's
    /// "Authorize" area for the operation's security (bearer, basic, an API key in a header or
    /// the query; the browser's own cookie or client certificate), kept in the page's memory only.
    /// It is sent with a strict `Content-Security-Policy` (its inline style and script allowed by
    /// hash, requests to this origin only, `frame-ancestors 'none'`), `X-Frame-Options: DENY`
    /// and `Referrer-Policy: no-referrer`.
    /// - Throws: ``/WhiskerCore/RouteError`` if one of these paths is already registered.
    public func serveDocument(_ document: OpenAPIDocument, serverURL: URL) throws {
        var prefix = serverURL.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        // The page reads JSON: with only a YAML form, the page's JSON is that YAML, read here.
        let json = document.docsPagePath == nil ? document.json : document.jsonForm
        let served: [(name: String, type: String, bytes: [UInt8]?)] = [
            ("openapi.yaml", "application/yaml", document.yaml), ("openapi.json", "application/json", json),
        ]
        for (name, type, bytes) in served {
            guard let bytes else { continue }
            try register(path: "\(prefix)/\(name)", type: type, bytes: bytes)
        }
        if let page = document.docsPagePath {
            let source = json != nil ? "openapi.json" : document.yaml != nil ? "openapi.yaml" : nil
            let (html, policy) = DocsPage.page(documentURL: source, apiPrefix: prefix)
            try register(path: "\(prefix)/\(page)", type: "text/html; charset=utf-8", bytes: html, fields: [
                HTTPField.Name("Content-Security-Policy")!: policy, HTTPField.Name("X-Frame-Options")!: "DENY",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ])
        }
    }

    private func register(path: String, type: String, bytes: [UInt8], fields more: HTTPFields = [:]) throws {
        let fields: HTTPFields = [.contentType: type, .cacheControl: "no-cache", HTTPField.Name("X-Content-Type-Options")!: "nosniff"] + more
        try server.register(method: .get, path: path) { _ in
            Response(status: .ok, headerFields: fields, body: .init(bytes: bytes))
        }
    }
}
