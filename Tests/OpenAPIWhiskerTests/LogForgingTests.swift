import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// No client can add a field to a log line (issue 38, log forging): `x" peer=6.6.6.6 status=299 y="` sent
/// in an `Expect`, a `Host`, a `Content-Length`, an `X-Request-ID`, a
/// `User-Agent` and a query parameter the document refuses (HTTP/1.1 and HTTP/2). Each line is rendered
/// as swift-log's `StreamLogHandler` writes it (`key=value` metadata, then the message) and read
/// back with logfmt's rules: no `peer=6.6.6.6` or `status=299` comes out, and each forged text is
/// there, quoted. Before, `reason=unsupported expectation "x" peer=6.6.6.6 status=299 y=""` read as a
/// second `peer` and `status`.
@Suite struct LogForgingTests {
    /// Breaks out of the quotes a reason puts around a value (`unsupported expectation "..."`).
    static let forged = #"x" peer=6.6.6.6 status=299 y=""#

    static let document = """
        openapi: 3.1.0
        info: {title: Cats, version: '1'}
        paths:
          /cats:
            get:
              operationId: getCats
              parameters:
                - name: count
                  in: query
                  schema: {type: integer}
              responses:
                '200': {description: Cats.}
        """

    @Test func clientTextInEveryField_IsQuoted_AndAddsNoField() async throws {
        let lines = LoggedLines()
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.logger = Logger.capturing(lines, level: .trace)
            $0.accessLog = Logger.capturing(lines, label: "access", level: .info)
        }
        let transport = try WhiskerTransport(server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)))
        try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody("cats")) }, method: .get, path: "/api/cats")
        let forged = Self.forged
        let encoded = forged.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "=", with: "%3D").replacingOccurrences(of: "\"", with: "%22")
        let requestID = #"x"peer=6.6.6.6"#
        try await server.withRunning { address in
            for head in [
                "GET /api/cats HTTP/1.1\r\nHost: x\r\nExpect: x \(forged)\r\n\r\n",  // 417, the value in the reason
                "GET /api/cats HTTP/1.1\r\nHost: a \(forged)\r\n\r\n",  // 400, invalid Host
                "POST /api/cats HTTP/1.1\r\nHost: x\r\nContent-Length: 1 \(forged)\r\n\r\n",  // 400, invalid Content-Length
                "GET /api/cats HTTP/1.1\r\nHost: x\r\nUser-Agent: curl \(forged)\r\nX-Request-ID: \(requestID)\r\n\r\n",
                "GET /api/cats?count=\(encoded) HTTP/1.1\r\nHost: x\r\n\r\n",  // 400 from the checks, the value in the detail
            ] {
                let client = try await TestClient.connect(to: address)
                try await client.send(head)
                _ = try await client.readResponse()
            }
            // HTTP/2: the same query (nghttp2 itself refuses a space in :path, :authority or Host).
            let response = try await exchange(.http2, with: address, "/api/cats?count=\(encoded)")
            #expect(response.status == 400)
        }
        _ = await lines.wait(forCount: 12, timeout: .seconds(2))
        let rendered = lines.all.map { message, metadata in
            metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " [Whisker] " + message
        }
        for line in rendered {
            let pairs = Self.logfmtPairs(line)
            #expect(!pairs.contains { $0 == ("peer", "6.6.6.6") || $0 == ("status", "299") }, "a forged field in: \(line)")
        }
        /// logfmt's quoting, written out again for the expectations.
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        for (what, needle) in [
            ("Expect", "reason=" + quoted("unsupported expectation \"x \(forged)\"")),
            ("Host", "reason=" + quoted("invalid Host \"a \(forged)\"")),
            ("Content-Length", "reason=" + quoted("invalid Content-Length \"1 \(forged)\"")),
            ("X-Request-ID", "request_id=" + quoted(requestID)),
            ("the check's detail", "error=\"query parameter count: must be an integer, got a string ("),
        ] {
            #expect(rendered.contains { $0.contains(needle) }, "\(what): \(needle) not in \(rendered)")
        }
    }

    /// The `key=value` pairs of a logfmt line: a value is a bare word or a double-quoted string
    /// with backslash escapes; words without `=` (the message) are skipped.
    static func logfmtPairs(_ line: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var characters = Substring(line)
        while !characters.isEmpty {
            while characters.first == " " { characters.removeFirst() }
            var key = ""
            while let c = characters.first, c != " ", c != "=", c != "\"" { key.append(c); characters.removeFirst() }
            if characters.first == "\"" {
                // A quoted word that is not a value: skip it whole.
                characters.removeFirst()
                while let c = characters.popFirst(), c != "\"" { if c == "\\" { _ = characters.popFirst() } }
                continue
            }
            guard characters.first == "=" else { continue }
            characters.removeFirst()
            var value = ""
            if characters.first == "\"" {
                characters.removeFirst()
                while let c = characters.popFirst(), c != "\"" { value.append(c == "\\" ? characters.popFirst() ?? c : c) }
            } else {
                while let c = characters.first, c != " " { value.append(c); characters.removeFirst() }
            }
            pairs.append((key, value))
        }
        return pairs
    }
}
