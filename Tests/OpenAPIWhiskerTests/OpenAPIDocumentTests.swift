import Foundation
import HTTPTypes
@testable import OpenAPIWhisker
@testable import OpenAPIWhiskerDocument
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

    @Test func yamlOnly_ThePageReadsItAsJSON_ServedByTheServer() async throws {
        let server = makeTestServer()
        try WhiskerTransport(server).serveDocument(OpenAPIDocument(yaml: Self.yaml), serverURL: URL(string: "http://x/cats")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let page = try await get(client, "/cats/docs")
            #expect(page.status == 200)
            #expect(page.text.contains(#"const documentURL = "openapi.json", apiPrefix = "/cats";"#))
            let json = try await get(client, "/cats/openapi.json")
            #expect(json.status == 200 && json.header("Content-Type") == "application/json")
            #expect(json.text == #"{"openapi":"3.1.0","info":{"title":"Cats </script>","version":"1.0.0"},"paths":{}}"#,
                    "the YAML as the server's reader reads it, members in their order")
            #expect(try await get(client, "/cats/openapi.yaml").body == Self.yaml, "the YAML itself, as given")
        }
    }

    @Test func aYAMLTheReaderCannotRead_IsShownAsText_AndNoJSONIsMadeUp() async throws {
        let server = makeTestServer()
        let anchors = Array("openapi: 3.1.0\ninfo: &info\n  title: A\nother: *info\n".utf8)
        try WhiskerTransport(server).serveDocument(OpenAPIDocument(yaml: anchors), serverURL: URL(string: "http://x/cats")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let page = try await get(client, "/cats/docs")
            #expect(page.text.contains(#"const documentURL = "openapi.yaml", apiPrefix = "/cats";"#))
            #expect(try await get(client, "/cats/openapi.json").status == 404)
        }
    }

    @Test func withoutAPage_OnlyTheFormsGiven() async throws {
        let server = makeTestServer()
        var document = OpenAPIDocument(yaml: Self.yaml)
        document.docsPagePath = nil
        try WhiskerTransport(server).serveDocument(document, serverURL: URL(string: "http://x/cats")!)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            #expect(try await get(client, "/cats/openapi.yaml").status == 200)
            #expect(try await get(client, "/cats/openapi.json").status == 404)
            #expect(try await get(client, "/cats/docs").status == 404)
        }
    }

    /// Issue 39: nothing written twice across Swift and JavaScript. The page has no YAML reader
    /// (it reads the JSON the server serves) and no rules of its own for security schemes: it
    /// gets the server's table, the one the transport finds credentials by.
    @Test func thePage_HoldsNoYAMLReader_AndTheServersSchemeRules() throws {
        let page = String(decoding: DocsPage.page(documentURL: "openapi.json", apiPrefix: "/api").html, as: UTF8.self)
        #expect(!page.contains("parseYAML") && !page.contains("YAML."))
        for kind in ["oauth2", "openIdConnect", "mutualTLS"] {
            #expect(!page.contains("'\(kind)'"), "the page has no rule of its own for \(kind)")
        }
        #expect(page.contains("const schemeRules = \(SecuritySchemeRule.json);\n"))
        let rules = try JSONSerialization.jsonObject(with: Data(SecuritySchemeRule.json.utf8)) as? [[String: String]]
        #expect(rules?.count == SecuritySchemeRule.all.count)
        #expect(rules?.first == ["type": "http", "scheme": "bearer", "credential": "bearer"])
    }

    @Test func whatThePageEmbeds_CannotEndItsScript() {
        let page = String(decoding: DocsPage.page(documentURL: "openapi.json", apiPrefix: "/a</script><b>\"'&").html, as: UTF8.self)
        #expect(page.contains(#"apiPrefix = "/a\u003c/script\u003e\u003cb\u003e\u0022\u0027\u0026";"#), "\(page.prefix(0))")
        #expect(page.components(separatedBy: "</script>").count == 2, "one script element, closed once")
    }
}
