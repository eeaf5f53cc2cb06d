@testable import OpenAPIWhiskerDocument
import Testing

/// Each JSON Schema keyword request validation covers, one passing and one failing value each,
/// with the message and JSON pointer it reports.
@Suite struct SchemaKeywordTests {
    /// The violations of `value` against `schema` (both JSON), as `pointer: detail`.
    func violations(_ schema: String, _ value: String, components: String = "{}") throws -> [String] {
        let root = try JSONReader.read(Array("{\"components\":{\"schemas\":\(components)}}".utf8))
        var set = SchemaSet(document: root)
        let index = try set.compile(try JSONReader.read(Array(schema.utf8)), at: "#")
        var found: [(pointer: String, detail: String)] = []
        set.check(try JSONReader.read(Array(value.utf8)), against: index, pointer: "", into: &found)
        return found.map { "\($0.pointer): \($0.detail)" }
    }

    @Test(arguments: [
        // (schema, valid value, invalid value, the invalid one's report)
        (#"{"type":"integer"}"#, "3", "3.5", ": must be an integer, got a number (3.5)"),
        (#"{"type":"integer"}"#, "3.0", "\"3\"", ": must be an integer, got a string (\"3\")"),
        (#"{"type":"number"}"#, "3", "true", ": must be a number, got a boolean (true)"),
        (#"{"type":["string","null"]}"#, "null", "1", ": must be a null or a string, got an integer (1)"),
        (#"{"type":"string","nullable":true}"#, "null", "[]", ": must be a null or a string, got an array ([])"),
        (#"{"minimum":1}"#, "1", "0", ": must be at least 1, got 0"),
        (#"{"maximum":100}"#, "100", "101", ": must be at most 100, got 101"),
        (#"{"exclusiveMinimum":0}"#, "0.5", "0", ": must be greater than 0, got 0"),
        (#"{"exclusiveMaximum":1}"#, "0.5", "1", ": must be less than 1, got 1"),
        (#"{"minimum":0,"exclusiveMinimum":true}"#, "1", "0", ": must be greater than 0, got 0"),
        (#"{"maximum":1,"exclusiveMaximum":true}"#, "0", "1", ": must be less than 1, got 1"),
        (#"{"multipleOf":0.5}"#, "1.5", "1.2", ": must be a multiple of 0.5, got 1.2"),
        (#"{"minLength":2}"#, "\"😺😺\"", "\"😺\"", ": must be at least 2 characters long, got 1"),
        (#"{"maxLength":3}"#, "\"abc\"", "\"abcd\"", ": must be at most 3 characters long, got 4"),
        (#"{"pattern":"^[a-z]+$"}"#, "\"cat\"", "\"Cat\"", ": must match the pattern ^[a-z]+$"),
        (#"{"enum":["asc","desc"]}"#, "\"asc\"", "\"up\"", ": must be one of \"asc\", \"desc\", got \"up\""),
        (#"{"const":7}"#, "7", "8", ": must be 7, got 8"),
        (#"{"minItems":1}"#, "[1]", "[]", ": must have at least 1 item, got 0"),
        (#"{"maxItems":1}"#, "[1]", "[1,2]", ": must have at most 1 item, got 2"),
        (#"{"uniqueItems":true}"#, "[1,2]", "[1,2,1]", ": must not repeat items, but item 2 repeats 1"),
        (#"{"items":{"type":"string"}}"#, "[\"a\"]", "[\"a\",2]", "/1: must be a string, got an integer (2)"),
        (#"{"prefixItems":[{"type":"string"}]}"#, "[\"a\",2]", "[2]", "/0: must be a string, got an integer (2)"),
        (#"{"required":["name"]}"#, #"{"name":1}"#, "{}", "/name: is required"),
        (#"{"properties":{"a/b":{"type":"string"}}}"#, #"{"a/b":"x"}"#, #"{"a/b":1}"#, "/a~1b: must be a string, got an integer (1)"),
        (#"{"properties":{"a":{}},"additionalProperties":false}"#, #"{"a":1}"#, #"{"a":1,"b":2}"#, "/b: is not a property this object has"),
        (#"{"additionalProperties":{"type":"integer"}}"#, #"{"x":1}"#, #"{"x":"1"}"#, "/x: must be an integer, got a string (\"1\")"),
        (#"{"minProperties":1}"#, #"{"x":1}"#, "{}", ": must have at least 1 properties, got 0"),
        (#"{"maxProperties":1}"#, #"{"x":1}"#, #"{"x":1,"y":2}"#, ": must have at most 1 properties, got 2"),
        (#"{"allOf":[{"minimum":1},{"maximum":2}]}"#, "2", "3", ": must be at most 2, got 3"),
        (#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#, "1", "true", ": must match at least one of the 2 schemas of anyOf"),
        (#"{"oneOf":[{"minimum":0},{"maximum":10}]}"#, "-1", "5", ": must match exactly one of the 2 schemas of oneOf, matches 2"),
        (#"{"not":{"type":"null"}}"#, "1", "null", ": must not match the schema under not"),
        (#"{"properties":{"a":{"properties":{"b":{"type":"array","items":{"maximum":1}}}}}}"#, #"{"a":{"b":[1]}}"#, #"{"a":{"b":[1,2]}}"#, "/a/b/1: must be at most 1, got 2"),
    ])
    func keyword(_ schema: String, valid: String, invalid: String, report: String) throws {
        #expect(try violations(schema, valid) == [], "\(valid) against \(schema)")
        #expect(try violations(schema, invalid) == [report], "\(invalid) against \(schema)")
    }

    @Test func references_ToComponents_AndToThemselves() throws {
        let components = ##"{"Node":{"type":"object","required":["value"],"properties":{"value":{"type":"integer"},"next":{"$ref":"#/components/schemas/Node"}}}}"##
        let schema = ##"{"$ref":"#/components/schemas/Node"}"##
        #expect(try violations(schema, #"{"value":1,"next":{"value":2}}"#, components: components) == [])
        #expect(try violations(schema, #"{"value":1,"next":{"next":{"value":"x"}}}"#, components: components) == [
            "/next/value: is required", "/next/next/value: must be an integer, got a string (\"x\")",
        ])
        #expect(throws: DocumentError.self) { try violations(##"{"$ref":"#/components/schemas/Missing"}"##, "1") }
        #expect(throws: DocumentError.self) { try violations(##"{"$ref":"other.yaml#/Pet"}"##, "1") }
    }

    @Test func everyViolationIsReported_UpToALimit() throws {
        let schema = #"{"type":"object","required":["a","b","c"],"additionalProperties":false}"#
        #expect(try violations(schema, #"{"x":1}"#) == ["/a: is required", "/b: is required", "/c: is required", "/x: is not a property this object has"])
        let many = "[" + Array(repeating: "\"x\"", count: 100).joined(separator: ",") + "]"
        #expect(try violations(#"{"items":{"type":"integer"}}"#, many).count == 32, "a hostile body does not make a thousand-line answer")
    }

    /// `pattern` is Swift's `Regex` (no Foundation, no ICU): unanchored as JSON Schema says, and
    /// over Unicode scalars as ECMA-262's are (`.` is one code point, not one grapheme).
    @Test func pattern_MatchesAnywhere_OverUnicodeScalars() throws {
        #expect(try violations(#"{"pattern":"\\S"}"#, #""  cat ""#) == [])
        #expect(try violations(#"{"pattern":"\\S"}"#, #""   ""#) == [": must match the pattern \\S"])
        #expect(try violations(#"{"pattern":"^.$"}"#, #""😺""#) == [])
        #expect(try violations(#"{"pattern":"^.$"}"#, #""e\u0301""#) == [": must match the pattern ^.$"], "two code points, one grapheme")
        #expect(try violations(#"{"pattern":"^\\p{L}+$"}"#, #""Käse""#) == [])
        #expect(try violations(#"{"pattern":"^[1-9][0-9]*$"}"#, #""012""#) == [": must match the pattern ^[1-9][0-9]*$"])
    }

    /// A pattern Swift's `Regex` cannot compile (lookbehind) is a document error at load naming the
    /// pattern and where it is, not a request that fails later.
    @Test func pattern_SwiftRegexCannotCompile_IsADocumentErrorNamingIt() throws {
        let error = try #require(throws: DocumentError.self) { try violations(#"{"pattern":"(?<=a)b"}"#, #""ab""#) }
        #expect("\(error)".contains("#/pattern: (?<=a)b is not a regular expression Swift's Regex compiles"), "\(error)")
        #expect(throws: DocumentError.self) { try violations(#"{"pattern":"[a-"}"#, #""a""#) }
    }
}
