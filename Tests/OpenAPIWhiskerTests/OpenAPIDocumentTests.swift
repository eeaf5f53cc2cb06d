import Foundation
import HTTPTypes
@testable import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerTesting

/// The document served next to the operations, and the docs page.
@Suite struct OpenAPIDocumentTests {
    private static let yaml = Array("openapi: '3.1.0'\ninfo:\n  title: Cats </script>\n  version: 1.0.0\npaths: {}\n".utf8)

    private func get(_ client: TestClient, _ path: String, _ extra: String = "") async throws -> TestResponse {
        try await client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n")
        return try await client.readResponse()
    }

    @Test func theFormsGiven_UnderTheServerURL_WithRevalidation() async throws {
        let server = makeTestServer()
        let transport = WhiskerTransport(server)
        var document = OpenAPIDocument(yaml: Self.yaml, json: Array(#"{"openapi":"3.1.0"}"#.utf8))
        document.docsPagePath = "reference"
        try transport.serveDocument(document, serverURL: URL(string: "http://localhost:8080/api/v1/")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            var response = try await get(client, "/api/v1/openapi.yaml")
            #expect(response.status == 200 && response.body == Self.yaml && response.header("Content-Type") == "application/yaml")
            #expect(response.header("Cache-Control") == "no-cache")
            let etag = try #require(response.header("ETag"))
            response = try await get(client, "/api/v1/openapi.yaml", "If-None-Match: \(etag)\r\n")
            #expect(response.status == 304)
            response = try await get(client, "/api/v1/openapi.json")
            #expect(response.status == 200 && response.text == #"{"openapi":"3.1.0"}"# && response.header("Content-Type") == "application/json")
            response = try await get(client, "/api/v1/reference")
            #expect(response.status == 200 && response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text.contains(#"const documentURL = "openapi.json", apiPrefix = "\u002fapi\u002fv1";"#) == false,
                    "a slash needs no escape")
            #expect(response.text.contains(#"const documentURL = "openapi.json", apiPrefix = "/api/v1";"#), "the page reads the JSON form")
            #expect(try await get(client, "/api/v1/docs").status == 404, "the page is where it was asked to be")
        }
    }

    @Test func yamlOnly_ThePageReadsIt() async throws {
        let server = makeTestServer()
        try WhiskerTransport(server).serveDocument(OpenAPIDocument(yaml: Self.yaml), serverURL: URL(string: "http://x/cats")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let page = try await get(client, "/cats/docs")
            #expect(page.status == 200)
            #expect(page.text.contains(#"const documentURL = "openapi.yaml", apiPrefix = "/cats";"#))
            #expect(try await get(client, "/cats/openapi.json").status == 404)
        }
    }

    @Test func whatThePageEmbeds_CannotEndItsScript() {
        let page = String(decoding: DocsPage.html(documentURL: "openapi.json", apiPrefix: "/a</script><b>\"'&"), as: UTF8.self)
        #expect(page.contains(#"apiPrefix = "/a\u003c/script\u003e\u003cb\u003e\u0022\u0027\u0026";"#), "\(page.prefix(0))")
        #expect(page.components(separatedBy: "</script>").count == 2, "one script element, closed once")
    }
}
