import Foundation
import HTTPTypes
import OpenAPIRuntime
@testable import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Issue 38's hardening: the docs page may not be framed and runs only its own inline style and
/// script (a strict `Content-Security-Policy`), and no problem answer is sniffed as something else.
@Suite struct SecurityHeadersTests {
    @Test func sha256_KnownVectors() {
        func hex(_ text: String) -> String { SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func theDocsPage_HasAStrictPolicyNamingExactlyItsInlineStyleAndScript_AndMayNotBeFramed() async throws {
        let server = makeTestServer()
        try WhiskerTransport(server).serveDocument(OpenAPIDocument(yaml: Array("openapi: 3.1.0\n".utf8)), serverURL: URL(string: "http://x/api")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /api/docs HTTP/1.1\r\nHost: x\r\n\r\n")
            let page = try await client.readResponse()
            #expect(page.status == 200)
            #expect(page.header("X-Frame-Options") == "DENY")
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            let policy = try #require(page.header("Content-Security-Policy"))
            let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map {
                let words = $0.split(separator: " ")
                return (String(words[0]), words.dropFirst().joined(separator: " "))
            })
            #expect(directives["default-src"] == "'none'")
            #expect(directives["frame-ancestors"] == "'none'")
            #expect(directives["connect-src"] == "'self'")
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            // The hashes are those of the page's one style and one script element, as sent.
            let html = page.text
            func element(_ name: String) -> String? {
                guard let open = html.range(of: "<\(name)>"), let close = html.range(of: "</\(name)>", range: open.upperBound..<html.endIndex) else { return nil }
                return String(html[open.upperBound..<close.lowerBound])
            }
            let style = try #require(element("style"))
            let script = try #require(element("script"))
            #expect(directives["style-src"] == "'\(DocsPage.sha256Source(style))'")
            #expect(directives["script-src"] == "'\(DocsPage.sha256Source(script))'")
            #expect(html.components(separatedBy: "<style").count == 2 && html.components(separatedBy: "<script").count == 2)
            let markup = html.replacingOccurrences(of: script, with: "")
            #expect(!markup.contains(" style=") && !markup.contains(" onclick=") && !markup.contains(" onload="), "no inline attribute the policy would block")
        }
    }

    @Test(arguments: Wire.allCases)
    func everyProblemAnswer_IsNosniff(over wire: Wire) async throws {
        let document = """
            openapi: 3.1.0
            info: {title: Cats, version: '1'}
            paths:
              /cats:
                get:
                  operationId: getCats
                  parameters:
                    - {name: count, in: query, schema: {type: integer}}
                  responses:
                    '200': {description: Cats.}
            """
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(server, validatingAgainst: OpenAPIDocument(yaml: Array(document.utf8)))
        try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody("cats")) }, method: .get, path: "/api/cats")
        try await server.withRunning { address in
            for (method, path, fields, status) in [
                ("GET", "/nowhere", [(String, String)](), 404),  // the router's
                ("DELETE", "/api/cats", [], 405),
                ("GET", "/api/cats?count=x", [], 400),  // the document's checks
                ("GET", "/api/cats?count=x", [("Accept", "text/plain")], 400),  // as text
                ("GET", "/api/cats", [("Expect", "nothing")], wire == .http1 ? 417 : 200),  // the parser's, before a route
            ] {
                let response = try await exchange(wire, with: address, path, method: method, fields: fields)
                #expect(response.status == status, "\(method) \(path)")
                if status >= 400 { #expect(response.values("x-content-type-options") == ["nosniff"], "\(wire) \(method) \(path) \(status)") }
            }
        }
    }
}
