/// The OpenAPI document a server's handlers were generated from, to validate requests against
/// (`WhiskerTransport(server, validatingAgainst:)`) and to serve next to them with a docs page
/// (`WhiskerTransport.serveDocument(_:serverURL:)`): the bytes as the user wrote them, in YAML,
/// JSON or both.
///
/// The target's own document is `OpenAPIDocument.embedded` when the target lists Whisker's build
/// plugin after the generator's (`plugins: [..., .plugin(name: "WhiskerEmbedDocument", package:
/// "whisker")]`): the plugin compiles the `openapi.yaml` the generator reads into the target, byte
/// for byte, with no resource bundle and no file to read at run time.
///
///     let transport = try WhiskerTransport(server, validatingAgainst: .embedded)
///     try MyHandler().registerHandlers(on: transport, serverURL: try Servers.Server1.url())
///     try transport.serveDocument(.embedded, serverURL: try Servers.Server1.url())
///
/// A document from elsewhere (a file, a test's string) is made from its bytes:
/// `OpenAPIDocument(yaml: Array(text.utf8))`.
///
/// Validation and the docs page read the JSON form if there is one, else the YAML: block mappings
/// and sequences, plain, quoted, block and flow-sequence scalars, which is how OpenAPI documents
/// are written. A document the YAML reader cannot read (anchors, say) cannot be validated against
/// and is shown on the docs page as text: give the JSON form too.
public struct OpenAPIDocument: Sendable {
    /// The document in YAML, served as `openapi.yaml`, or `nil`.
    public var yaml: [UInt8]?
    /// The document in JSON, served as `openapi.json`, or `nil`.
    public var json: [UInt8]?
    /// The docs page's path under the server URL, or `nil` for no page; `docs` by default.
    public var docsPagePath: String? = "docs"

    /// A document in one form or both.
    public init(yaml: [UInt8]? = nil, json: [UInt8]? = nil) {
        self.yaml = yaml
        self.json = json
    }
}

extension OpenAPIDocument {
    /// The document as JSON: its JSON form, else its YAML form read by ``YAMLReader`` and written
    /// as compact JSON (members in their order); `nil` without a form this module reads.
    package var jsonForm: [UInt8]? {
        if let json { return json }
        guard let yaml, let value = try? YAMLReader.read(yaml) else { return nil }
        return Array(value.jsonText.utf8)
    }
}
