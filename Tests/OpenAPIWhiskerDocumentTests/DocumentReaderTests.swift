import Foundation
@testable import OpenAPIWhiskerDocument
import Testing

/// The YAML and JSON readers validation reads documents and bodies with.
@Suite struct DocumentReaderTests {
    func yaml(_ text: String) throws -> JSONValue { try YAMLReader.read(Array(text.utf8)) }

    @Test func yaml_TheShapesOpenAPIDocumentsUse() throws {
        let value = try yaml("""
            openapi: '3.1.0'   # a comment
            info:
              title: "Cats \\u263A"
              description: >-
                folded
                text

                second paragraph
              summary: |
                kept
                lines
            paths:
              /emoji:
                get:
                  parameters:
                    - name: count
                      in: query
                      schema: {type: integer, minimum: 1}
                    - plain
                  tags: [a, 'b, c', 3]
                  list:
                  - x
                  - y: 1
                    z: true
                  empty:
                  number: 1.5
                  nothing: ~
            """)
        #expect(value["openapi"] == .string("3.1.0"))
        #expect(value["info"]?["title"] == .string("Cats ☺"))
        #expect(value["info"]?["description"] == .string("folded text\nsecond paragraph"))
        #expect(value["info"]?["summary"] == .string("kept\nlines\n"))
        let get = value["paths"]?["/emoji"]?["get"]
        #expect(get?["parameters"]?.array?.first?["schema"] == .object([("type", .string("integer")), ("minimum", .integer(1))]))
        #expect(get?["parameters"]?.array?.last == .string("plain"))
        #expect(get?["tags"] == .array([.string("a"), .string("b, c"), .integer(3)]))
        #expect(get?["list"] == .array([.string("x"), .object([("y", .integer(1)), ("z", .bool(true))])]))
        #expect(get?["empty"] == .null)
        #expect(get?["number"] == .number(1.5))
        #expect(get?["nothing"] == .null)
    }

    @Test func yaml_WithWindowsLineEnds_ReadsAsWithLF() throws {
        let lf = """
            openapi: 3.1.0
            info:
              title: "Cats"   # a comment
              version: 1.0.0
            paths:
              /cats:
                get:
                  operationId: listCats
                  parameters:
                    - name: tags
                      in: query
                      schema: { type: array, items: { type: string } }
                  description: |
                    Two lines,
                    kept as two.
            """
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(crlf.utf8.count == lf.utf8.count + lf.filter { $0 == "\n" }.count)
        #expect(try yaml(crlf) == yaml(lf))
        #expect(try yaml(crlf + "\r\n") == yaml(lf))
    }

    @Test func yaml_WhatItDoesNotRead_IsAnErrorWithItsLine() throws {
        #expect(throws: YAMLSyntaxError.self) { try yaml("a: &anchor 1\nb: *anchor\n") }
        #expect(throws: YAMLSyntaxError.self) { try yaml("a: 1\na: 2\n") }
        #expect(throws: YAMLSyntaxError.self) { try yaml("a: [1, 2\n") }
    }

    @Test func yaml_TheDemosDocument_ReadsAsItsJSONTwin() throws {
        // The demo's document, read here and by Python's YAML reader (PyYAML), must agree.
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Demo/CatService/Sources/CatService/openapi.yaml").standardized
        let bytes = Array(try Data(contentsOf: url))
        let ours = try YAMLReader.read(bytes)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1])), ensure_ascii=False))", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 with PyYAML (make deps installs it)")
        #expect(ours == (try JSONReader.read(Array(output))))
    }

    @Test(arguments: [
        ("{\"a\":[1,-2.5e3,true,false,null,\"\\u00e9\\ud83d\\ude3a\\n\"]}", true),
        ("{\"a\":1,}", false), ("[1 2]", false), ("01", false), ("\"\u{01}\"", false), ("{\"a\"}", false),
        ("\"\\ud800\"", false), ("1e400", false), ("1 2", false), ("", false), ("nul", false),
        (String(repeating: "[", count: 200) + String(repeating: "]", count: 200), false),
    ])
    func json_Strict(_ text: String, valid: Bool) {
        #expect(((try? JSONReader.read(Array(text.utf8))) != nil) == valid, "\(text.prefix(40))")
    }

    @Test func json_NotUTF8_IsRefused() throws {
        #expect(throws: JSONSyntaxError.self) { try JSONReader.read([0x22, 0xFF, 0x22]) }
        #expect(try JSONReader.read(Array("\"é😺\"".utf8)) == .string("é😺"))
    }
}
