/// The OpenAPI document a server's handlers were generated from, to serve next to them with a docs
/// page (`WhiskerTransport.serveDocument(_:serverURL:)`): the bytes as the user wrote them, in
/// YAML, JSON or both.
///
///     let yaml = try Data(contentsOf: Bundle.module.url(forResource: "openapi", withExtension: "yaml")!)
///     try transport.serveDocument(OpenAPIDocument(yaml: Array(yaml)), serverURL: try Servers.Server1.url())
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
