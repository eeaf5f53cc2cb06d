import HTTPTypes
import Testing
import WhiskerCORS
import WhiskerCore
import WhiskerTesting

/// CORS: preflights answered by the server, handlers' responses decorated, refusals that say why.
@Suite struct CrossOriginTests {
    private func server(_ policy: WhiskerServer.CORS) throws -> WhiskerServer {
        let server = makeTestServer { $0.cors = [policy] }
        try registerBasicRoutes(on: server)
        return server
    }

    private static func preflight(_ path: String, origin: String, method: String, headers: String? = nil) -> String {
        "OPTIONS \(path) HTTP/1.1\r\nHost: x\r\nOrigin: \(origin)\r\nAccess-Control-Request-Method: \(method)\r\n"
            + (headers.map { "Access-Control-Request-Headers: \($0)\r\n" } ?? "") + "\r\n"
    }

    @Test func preflight_Allowed_Gets204WithTheAllowance() async throws {
        let server = try server(.init(allowedOrigins: ["https://cats.example", "https://*.cats.example"]))
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.preflight("/hello", origin: "https://cats.example", method: "GET", headers: "content-type, x-request-id"))
            let response = try await client.readResponse()
            #expect(response.status == 204)
            #expect(response.header("Access-Control-Allow-Origin") == "https://cats.example")
            #expect(response.header("Access-Control-Allow-Methods") == "GET, HEAD", "the path's own methods")
            #expect(response.header("Access-Control-Allow-Headers") == "Accept, Authorization, Content-Type, X-Request-ID")
            #expect(response.header("Access-Control-Max-Age") == "600")
            #expect(response.header("Access-Control-Allow-Credentials") == nil)
            #expect(response.header("Vary")?.contains("Origin") == true)
            try await client.send(Self.preflight("/echo", origin: "https://app.cats.example", method: "POST"))
            let pattern = try await client.readResponse()
            #expect(pattern.status == 204 && pattern.header("Access-Control-Allow-Origin") == "https://app.cats.example", "a subdomain by the pattern")
            #expect(pattern.header("Access-Control-Allow-Methods") == "POST")
        }
    }

    @Test func preflight_Refusals_SayWhy() async throws {
        let server = try server(.init(allowedOrigins: ["https://*.cats.example"]))
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            let cases: [(String, Int, String)] = [
                (Self.preflight("/hello", origin: "https://evil.example", method: "GET"), 403, "origin https://evil.example is not allowed for /hello"),
                (Self.preflight("/hello", origin: "https://cats.example", method: "GET"), 403, "origin https://cats.example is not allowed"),
                (Self.preflight("/hello", origin: "https://a.b.cats.example.evil", method: "GET"), 403, "is not allowed"),
                (Self.preflight("/hello", origin: "https://app.cats.example", method: "PUT"), 403, "method PUT is not allowed for /hello; allowed: GET, HEAD"),
                (Self.preflight("/hello", origin: "https://app.cats.example", method: "GET", headers: "x-secret"), 403, "request header x-secret is not allowed"),
                (Self.preflight("/nothing", origin: "https://app.cats.example", method: "GET"), 404, "no route for /nothing"),
            ]
            for (request, status, reason) in cases {
                try await client.send(request)
                let response = try await client.readResponse()
                #expect(response.status == status, "\(request)")
                #expect(response.text.contains(reason), "\(response.text)")
                #expect(response.header("Access-Control-Allow-Origin") == nil)
            }
        }
    }

    @Test func actualResponses_AreDecorated_ForAllowedOriginsOnly() async throws {
        var policy = WhiskerServer.CORS(allowedOrigins: ["https://cats.example"])
        policy.allowsCredentials = true
        policy.exposedHeaders = ["X-Request-ID"]
        let server = try server(policy)
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://cats.example\r\n\r\n")
            var response = try await client.readResponse()
            #expect(response.text == "hello")
            #expect(response.header("Access-Control-Allow-Origin") == "https://cats.example")
            #expect(response.header("Access-Control-Allow-Credentials") == "true")
            #expect(response.header("Access-Control-Expose-Headers") == "X-Request-ID")
            #expect(response.header("Vary") == "Origin")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\n\r\n")
            response = try await client.readResponse()
            #expect(response.text == "hello" && response.header("Access-Control-Allow-Origin") == nil, "served, but not readable by that page")
            #expect(response.header("Vary") == "Origin", "the response depends on Origin either way")
            try await client.send("OPTIONS /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://cats.example\r\n\r\n")
            #expect(try await client.readResponse().status == 405, "OPTIONS without Access-Control-Request-Method is not a preflight: routed")
        }
    }

    @Test func anyOrigin_IsStar_AndOutsideThePrefixNothingChanges() async throws {
        let server = try server(.init(allowedOrigins: ["*"], pathPrefix: "/echo"))
        try await server.withRunning { address in
            let client = try await TestClient.connect(to: address)
            try await client.send(Self.preflight("/echo", origin: "https://anywhere.example", method: "POST"))
            let response = try await client.readResponse()
            #expect(response.status == 204 && response.header("Access-Control-Allow-Origin") == "*")
            try await client.send(Self.preflight("/hello", origin: "https://anywhere.example", method: "GET"))
            #expect(try await client.readResponse().status == 405, "no policy for /hello: routed (no OPTIONS route)")
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nOrigin: https://anywhere.example\r\n\r\n")
            let outside = try await client.readResponse()
            #expect(outside.header("Vary") == nil && outside.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test(arguments: [
        (["*"], true, "allowed origin * cannot go with allowsCredentials"),
        (["cats.example"], false, "allowed origin \"cats.example\" is not scheme://host[:port]"),
        (["https://cats.example/"], false, "is not scheme://host[:port]"),
        (["https://app.*.example"], false, "a * only as the first host label"),
        ([], false, "no allowed origins"),
    ])
    func badPolicies_StopTheStart(_ origins: [String], _ credentials: Bool, _ reason: String) async throws {
        var policy = WhiskerServer.CORS(allowedOrigins: origins)
        policy.allowsCredentials = credentials
        let server = makeTestServer { $0.cors = [policy] }
        await #expect { try await server.run() } throws: { error in
            "\(error)".contains("configuration.cors: ") && "\(error)".contains(reason)
        }
    }
}
