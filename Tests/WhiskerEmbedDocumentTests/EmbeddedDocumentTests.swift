import Foundation
import Testing
import Whisker

/// This target lists the WhiskerEmbedDocument plugin, as a user's does: its `openapi.yaml` is a
/// symlink to Documents/greeter.yaml (quotes, hashes, backslashes, a CRLF line), and the plugin's
/// `OpenAPIDocument.embedded` must be that file byte for byte, as YAML, and usable by the transport.
@Suite struct EmbeddedDocumentTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Documents/greeter.yaml")

    @Test func theEmbeddedDocumentIsTheTargetsFileByteForByte() throws {
        let bytes = Array(try Data(contentsOf: Self.file))
        #expect(OpenAPIDocument.embedded.yaml == bytes)
        #expect(OpenAPIDocument.embedded.json == nil)
    }

    @Test func theTransportValidatesAgainstIt() throws {
        let server = WhiskerServer(configuration: .init(host: "127.0.0.1", port: 0))
        _ = try WhiskerTransport(server, validatingAgainst: .embedded)
    }
}
