// Ours: the document a with-validation run checks requests against (copied into each server target).
import Foundation
import Whisker

extension OpenAPIDocument {
    /// The target's openapi.yaml, the one the generator's plugin read.
    ///
    /// Until wt-embed's `WhiskerEmbedDocument` plugin is merged this reads the extracted file beside
    /// this one; then the one-line switch is `static var exampleDocument: OpenAPIDocument { .embedded }`
    /// here (and `embedDocument = true` in Package.swift.template, which adds the plugin).
    static var exampleDocument: OpenAPIDocument {
        get throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("openapi.yaml")
            return OpenAPIDocument(yaml: Array(try Data(contentsOf: url)))
        }
    }
}
