import Foundation
@_spi(Generated) import OpenAPIRuntime
@testable import OpenAPIWhiskerDocument
import Testing

/// Each `format` request validation checks: the values of that shape it must admit (what the
/// runtime's encoders write among them), and the ones it refuses, with the message.
@Suite struct SchemaFormatTests {
    /// The violations of the JSON `value` against `{"type": type, "format": format}`.
    func violations(_ format: String, _ value: String, type: String = "string") throws -> [String] {
        var set = SchemaSet(document: .object([]))
        let index = try set.compile(try JSONReader.read(Array(#"{"type":"\#(type)","format":"\#(format)"}"#.utf8)), at: "#")
        var found: [(pointer: String, detail: String)] = []
        set.check(try JSONReader.read(Array(value.utf8)), against: index, pointer: "", into: &found)
        return found.map(\.detail)
    }

    /// `text` as a JSON string literal.
    func quoted(_ text: String) -> String { JSONValue.quoted(text) }

    @Test(arguments: [
        ("date-time", ["2023-01-18T10:04:11Z", "2023-01-18T10:04:11.250Z", "2024-02-29t23:59:60z", "2023-01-18T10:04:11+05:30", "2023-01-18T10:04:11-00:00"],
         ["2023-01-18", "2023-01-18T10:04Z", "2023-01-18T24:00:00Z", "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-01-18T10:04:11", "2023-01-18T10:04:11+0530", "2023-01-18 10:04:11Z", "2023-01-18T10:04:11.Z"]),
        ("date", ["2023-01-18", "2024-02-29", "2000-02-29"], ["2023-02-29", "1900-02-29", "2023-1-18", "2023-01-32", "2023-01-18T00:00:00Z", ""]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"], ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}"]),
        ("email", ["tom@example.com", "tom.cat+tag@mail.example.co.uk", "\"tom cat\"@example.com", "tom@[192.0.2.1]"],
         ["tom", "@example.com", "tom@", "tom..cat@example.com", "tom@-example.com", "tom cat@example.com", "tom@exa_mple.com"]),
        ("uri", ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:tom@example.com", "https://example.com/%C3%A9"],
         ["/relative/path", "example.com", "https://example.com/a b", "https://example.com/%zz", "1http://example.com"]),
        ("byte", ["", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYg", "+/+/"], ["Zm9v!", "Zm9vY", "Zm9vYg===", "Zm9=vYg=", "Zm9vYg-_"]),
    ])
    func stringFormat(_ format: String, admitted: [String], refused: [String]) throws {
        for value in admitted {
            #expect(try violations(format, quoted(value)) == [], "\(format): \(value)")
        }
        for value in refused {
            let found = try violations(format, quoted(value))
            #expect(found.count == 1 && found[0].hasPrefix("must be ") && found[0].hasSuffix("got \(quoted(value))"), "\(format): \(value) gave \(found)")
        }
    }

    @Test func integerRanges_Int32AndInt64() throws {
        #expect(try violations("int32", "2147483647", type: "integer") == [])
        #expect(try violations("int32", "-2147483648", type: "integer") == [])
        #expect(try violations("int32", "2147483648", type: "integer") == ["must be an int32 (-2147483648...2147483647), got 2147483648"])
        #expect(try violations("int32", "-2147483649", type: "integer") == ["must be an int32 (-2147483648...2147483647), got -2147483649"])
        #expect(try violations("int64", "9223372036854775807", type: "integer") == [])
        #expect(try violations("int64", "-9223372036854775808", type: "integer") == [])
        #expect(try violations("int64", "1e19", type: "number") == ["must be an int64 (-9223372036854775808...9223372036854775807), got 1e+19"])
    }

    @Test func whatTheRuntimeWrites_IsAdmitted() throws {
        // The runtime's default Date transcoder (ISO 8601, internet date-time), and the one with
        // fractional seconds, and its base64 for `Base64EncodedData`.
        let date = Date(timeIntervalSince1970: 1_674_036_251.5)
        for transcoder in [ISO8601DateTranscoder.iso8601, ISO8601DateTranscoder.iso8601WithFractionalSeconds] {
            let text = try transcoder.encode(date)
            #expect(try violations("date-time", quoted(text)) == [], "\(text)")
        }
        let encoded = try JSONEncoder().encode(Base64EncodedData(Array("a cat's genome".utf8)))
        #expect(try violations("byte", String(decoding: encoded, as: UTF8.self)) == [])
        #expect(try violations("uuid", quoted(UUID().uuidString)) == [])
    }

    @Test func unknownFormats_AreAnnotations() throws {
        #expect(try violations("binary", quoted("anything")) == [])
        #expect(try violations("password", quoted("")) == [])
        #expect(try violations("my-format", quoted("x")) == [])
    }
}
