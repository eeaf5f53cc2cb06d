import Whisker

extension OpenAPIDocument {
    /// The CatService's own document, as written: `openapi.yaml`, embedded at build time by
    /// Whisker's WhiskerEmbedDocument plugin (no resource bundle, no Foundation `Bundle`).
    static func catService() throws -> OpenAPIDocument {
        .embedded
    }
}
