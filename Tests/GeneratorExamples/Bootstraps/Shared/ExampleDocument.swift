// Ours: the document a with-validation run checks requests against (copied into each server target).
import Foundation
import Whisker

extension OpenAPIDocument {
    /// The target's openapi.yaml, the one the generator's plugin read: embedded at build time by
    /// Whisker's `WhiskerEmbedDocument` plugin when Package.swift.template says `embedDocument = true`
    /// (the one-line switch, which also adds the plugin to the targets), else read from the
    /// extracted file beside this one.
    static var exampleDocument: OpenAPIDocument {
        get throws {
            #if WHISKER_EMBEDDED_DOCUMENT
            return .embedded
            #else
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("openapi.yaml")
            return OpenAPIDocument(yaml: Array(try Data(contentsOf: url)))
            #endif
        }
    }
}
