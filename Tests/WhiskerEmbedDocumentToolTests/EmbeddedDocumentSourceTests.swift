import Foundation
import Testing


/// The literal the tool writes (EmbeddedDocumentSource.swift here is a symlink to the tool's) holds the document's bytes exactly: each case is rendered, compiled
/// with swiftc into one program that prints what each literal holds, and compared byte for byte.
@Suite struct EmbeddedDocumentSourceTests {
    /// Documents whose bytes a naive literal would change or not compile: each comment says how.
    static let cases: [(name: String, bytes: [UInt8])] = [
        ("plain YAML", Array("openapi: 3.1.0\ninfo:\n  title: Greeter\n  version: 1.0.0\n".utf8)),
        ("empty", []),
        ("no final newline", Array("openapi: 3.1.0".utf8)),
        ("only newlines", Array("\n\n".utf8)),
        // Would end a `#"""` literal, or start an escape of a one-`#` raw literal.
        ("delimiters and hashes", Array("a: \"\"\"# and \\#(x) and \"##\"### \\##u{41} \\n \\\"#".utf8)),
        ("triple quotes", Array("description: |\n  \"\"\"\n  code\n  \"\"\"\n".utf8)),
        // A multi-line literal turns \r\n and a lone \r into \n.
        ("CRLF and CR", Array("openapi: 3.1.0\r\ninfo:\r\n  title: x\r".utf8)),
        // NUL, a control character, DEL, a byte order mark, line and paragraph separators.
        ("controls", [0x00, 0x61, 0x01, 0x1B, 0x7F, 0x0C, 0x0B] + Array("\u{FEFF}x\u{2028}y\u{2029}z".utf8)),
        ("tabs, trailing spaces, indentation", Array("\ta:  \n    b: 1   \n  \n\"\"\"".utf8)),
        ("non-ASCII", Array("summary: Grüße 🐱 — \u{202E}rtl\n".utf8)),
        // A line that ends in a backslash would be a line continuation in an escaping literal.
        ("backslashes", Array("pattern: '^\\d+\\\\$'\nx: \\\n\\".utf8)),
        // Not UTF-8: an array literal.
        ("not UTF-8", [0x6F, 0xFF, 0xFE, 0x00, 0xC0, 0x80, 0xED, 0xA0, 0x80]),
    ]

    @Test func everyLiteralHoldsTheDocumentsBytesExactly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var program = "let documents: [[UInt8]] = [\n"
        for (_, bytes) in Self.cases { program += EmbeddedDocumentSource.expression(for: bytes) + ",\n" }
        program += "]\nfor document in documents { print(document.map { String($0) }.joined(separator: \" \")) }\n"
        let source = folder.appendingPathComponent("main.swift")
        try program.write(to: source, atomically: true, encoding: .utf8)
        let binary = folder.appendingPathComponent("literals")
        let compiled = try Self.run(Self.swiftc(), ["-Onone", "-o", binary.path, source.path])
        #expect(compiled.status == 0, "swiftc: \(compiled.output)")
        guard compiled.status == 0 else { return }
        let printed = try Self.run(binary.path, []).output.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (name, bytes)) in Self.cases.enumerated() {
            let expected = bytes.map { String($0) }.joined(separator: " ")
            #expect(index < printed.count && printed[index] == expected, "\(name): the literal holds other bytes")
        }
    }

    @Test func theLiteralIsRawWithMoreHashesThanTheLongestRun() {
        let expression = EmbeddedDocumentSource.expression(for: Array("a ### b \"\"\"## c".utf8))
        #expect(expression.hasPrefix("Array(####\"\"\"\n"))
        #expect(expression.hasSuffix("\n\"\"\"####.utf8)"))
        #expect(EmbeddedDocumentSource.expression(for: Array("x: 1\n".utf8)) == "Array(#\"\"\"\nx: 1\n\n\"\"\"#.utf8)")
    }

    @Test func theFileDeclaresTheEmbeddedDocumentOfItsKind() {
        let yaml = EmbeddedDocumentSource(fileName: "openapi.yml", kind: .yaml, bytes: Array("openapi: 3.1.0\n".utf8)).text
        #expect(yaml.contains("import Whisker\n"))
        #expect(yaml.contains("extension OpenAPIDocument {"))
        #expect(yaml.contains("    static let embedded = OpenAPIDocument(yaml: Array(#\"\"\"\nopenapi: 3.1.0\n"))
        let json = EmbeddedDocumentSource(fileName: "openapi.json", kind: .json, bytes: Array("{}".utf8)).text
        #expect(json.contains("static let embedded = OpenAPIDocument(json: Array(#\"\"\"\n{}\n\"\"\"#.utf8))"))
        #expect(EmbeddedDocumentSource.Kind(fileName: "openapi.yaml") == .yaml)
        #expect(EmbeddedDocumentSource.Kind(fileName: "openapi.yml") == .yaml)
        #expect(EmbeddedDocumentSource.Kind(fileName: "openapi.json") == .json)
        #expect(EmbeddedDocumentSource.Kind(fileName: "openapi.txt") == nil)
    }

    /// swiftc beside the swift that runs the tests, else on PATH.
    static func swiftc() -> String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("swiftc").path
        for candidate in [beside, "/opt/swift/usr/bin/swiftc"] where FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        return "/usr/bin/env"
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = executable == "/usr/bin/env" ? ["swiftc"] + arguments : arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
