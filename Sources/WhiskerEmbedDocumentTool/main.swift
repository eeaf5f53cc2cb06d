// WhiskerEmbedDocumentTool DOCUMENT OUTPUT: writes OUTPUT, a Swift file that embeds DOCUMENT
// (openapi.yaml, openapi.yml or openapi.json) as `OpenAPIDocument.embedded`. The
// WhiskerEmbedDocument build plugin runs it at each build where the document changed; it is not
// meant to be run by hand. No dependencies and no Foundation: a package that depends on Whisker
// builds it (for the machine that builds) in a second.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends the tool with `message` on standard error (SwiftPM shows it as the build's error).
func fail(_ message: String) -> Never {
    let line = Array("WhiskerEmbedDocument: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// The whole file at `path` (a symlink is followed).
func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        bytes.append(contentsOf: chunk[..<count])
        if count < chunk.count {
            if ferror(file) != 0 { fail("cannot read \(path): \(String(cString: strerror(errno)))") }
            return bytes
        }
    }
}

/// Writes `text` to `path`, replacing what was there.
func writeFile(_ path: String, _ text: String) {
    guard let file = fopen(path, "wb") else { fail("cannot write \(path): \(String(cString: strerror(errno)))") }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    if written != bytes.count || fclose(file) != 0 { fail("cannot write \(path): \(String(cString: strerror(errno)))") }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: WhiskerEmbedDocumentTool DOCUMENT OUTPUT") }
let documentPath = arguments[1]
let fileName = documentPath.split(separator: "/").last.map(String.init) ?? documentPath
guard let kind = EmbeddedDocumentSource.Kind(fileName: fileName) else {
    fail("\(documentPath) is not an OpenAPI document (openapi.yaml, openapi.yml or openapi.json)")
}
writeFile(arguments[2], EmbeddedDocumentSource(fileName: fileName, kind: kind, bytes: readFile(documentPath)).text)
