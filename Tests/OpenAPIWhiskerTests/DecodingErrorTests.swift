import Foundation
import HTTPTypes
import Logging
@_spi(Generated) import OpenAPIRuntime
@testable import OpenAPIWhisker
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Without the document, a parameter the generated code cannot decode is still named (issue 40):
/// the runtime's `DecodingError` has an empty coding path and its `ServerError` names no parameter,
/// so the transport finds the query item or path parameter whose value cannot be what the runtime
/// expected. Before, `?shout=maybe` got "DecodingError: typeMismatch Bool - at : Failed to convert
/// to the requested type.", naming nothing.
@Suite struct DecodingErrorTests {
    /// The generated code of `GET /greet/{name}?shout=bool&mood=happy|sad` and `GET /cats/{id}`
    /// (an integer), written out: the runtime's `UniversalServer` and `Converter`, as
    /// swift-openapi-generator emits them.
    enum Mood: String, Codable, Hashable, Sendable { case happy, sad }

    struct API: Sendable {
        func greet(_ input: (name: String, shout: Bool?, mood: Mood?)) async throws -> String {
            let greeting = "Hello, \(input.name)\(input.mood == .sad ? "..." : "!")"
            return input.shout == true ? greeting.uppercased() : greeting
        }
        func cat(_ id: Int) async throws -> String { "cat \(id)" }
    }

    func withServer(lines: LoggedLines, _ body: @Sendable (SocketAddress) async throws -> Void) async throws {
        let logger = Logger.capturing(lines, level: .info)
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.logger = logger
        }
        let transport = WhiskerTransport(server)
        let universal = UniversalServer(serverURL: URL(string: "/api")!, handler: API())
        try transport.register({ request, body, metadata in
            try await universal.handle(
                request: request, requestBody: body, metadata: metadata, forOperation: "greet", using: { api in api.greet },
                deserializer: { request, _, metadata in
                    let converter = universal.converter
                    return (
                        name: try converter.getPathParameterAsURI(in: metadata.pathParameters, name: "name", as: String.self),
                        shout: try converter.getOptionalQueryItemAsURI(in: request.soar_query, style: .form, explode: true, name: "shout", as: Bool.self),
                        mood: try converter.getOptionalQueryItemAsURI(in: request.soar_query, style: .form, explode: true, name: "mood", as: Mood.self)
                    )
                },
                serializer: { output, _ in (HTTPResponse(status: .ok), HTTPBody(output)) })
        }, method: .get, path: "/api/greet/{name}")
        try transport.register({ request, body, metadata in
            try await universal.handle(
                request: request, requestBody: body, metadata: metadata, forOperation: "cat", using: { api in api.cat },
                deserializer: { _, _, metadata in
                    try universal.converter.getPathParameterAsURI(in: metadata.pathParameters, name: "id", as: Int.self)
                },
                serializer: { output, _ in (HTTPResponse(status: .ok), HTTPBody(output)) })
        }, method: .get, path: "/api/cats/{id}")
        try await server.withRunning(body)
    }

    /// Each request the generated code cannot decode, the parameter its answer names, and what it says.
    static let refused: [(target: String, location: String, name: String, detail: String)] = [
        ("/api/greet/cat?shout=maybe", "query", "shout", "must be true or false, got maybe"),
        ("/api/greet/cat?shout=True", "query", "shout", "must be true or false, got True"),
        // `debug=false` could be a boolean: only shout cannot.
        ("/api/greet/cat?debug=false&shout=1", "query", "shout", "must be true or false, got 1"),
        ("/api/greet/cat?mood=angry", "query", "mood", "is not one of the values it may take, got angry"),
        ("/api/greet/cat?shout=true&mood=%F0%9F%98%BE", "query", "mood", "is not one of the values it may take, got 😾"),
        ("/api/cats/tom", "path", "id", "must be an integer (Int), got tom"),
        ("/api/cats/1.5", "path", "id", "must be an integer (Int), got 1.5"),
    ]

    @Test(arguments: Wire.allCases)
    func aValueTheRuntimeCannotDecode_IsA400NamingItsParameter(over wire: Wire) async throws {
        let lines = LoggedLines()
        try await withServer(lines: lines) { address in
            for (target, location, name, detail) in Self.refused {
                let response = try await exchange(wire, with: address, target)
                #expect(response.status == 400, "\(target): \(response.status) \(response.body)")
                #expect(response.values("content-type") == ["application/problem+json"], "\(target)")
                #expect(response.body.contains("\"detail\":\"\(location) parameter \(name): \(detail)\""), "\(target): \(response.body)")
                #expect(response.body.contains("\"errors\":[{\"in\":\"\(location)\",\"parameter\":\"\(name)\",\"detail\":\"\(detail)\"}]"), "\(target): \(response.body)")
            }
        }
        #expect(lines.all.contains { $0.0 == "request refused" && $0.1["error"] == "\"query parameter shout: must be true or false, got maybe\"" }, "\(lines.all)")
        #expect(!lines.all.contains { $0.0 == "request failed" })
    }

    /// The same shapes with values the runtime decodes reach the handler.
    @Test(arguments: Wire.allCases)
    func valuesTheRuntimeDecodes_ReachTheHandler(over wire: Wire) async throws {
        try await withServer(lines: LoggedLines()) { address in
            for (target, answer) in [
                ("/api/greet/cat?shout=true", "HELLO, CAT!"), ("/api/greet/cat?shout=false&mood=sad", "Hello, cat..."),
                ("/api/greet/cat", "Hello, cat!"), ("/api/greet/maybe?mood=happy", "Hello, maybe!"), ("/api/cats/42", "cat 42"),
            ] {
                let response = try await exchange(wire, with: address, target)
                #expect(response.status == 200 && response.body == answer, "\(target): \(response.status) \(response.body)")
            }
        }
    }

    /// A query item that could be it wins over a path parameter (`5` is no boolean either, but
    /// path values are names); with no query item that could be (`page=2` is an integer), the
    /// path parameter is named.
    @Test func aQueryItem_IsNamedBeforeAPathParameter() async throws {
        try await withServer(lines: LoggedLines()) { address in
            let response = try await exchange(.http1, with: address, "/api/greet/5?shout=maybe")
            #expect(response.body.contains("\"parameter\":\"shout\""), "\(response.body)")
            let path = try await exchange(.http1, with: address, "/api/cats/tom?page=2")
            #expect(path.body.contains("\"detail\":\"path parameter id: must be an integer (Int), got tom\""), "\(path.body)")
        }
    }

    /// Two items that could each be the one at fault: both are named, neither as certain (naming
    /// one would be a guess), and nothing goes in `errors`; many: the detail says what the runtime
    /// expected, with no empty coding path.
    @Test func itemsThatCouldEachBeIt_AreNotGuessedBetween() async throws {
        try await withServer(lines: LoggedLines()) { address in
            let response = try await exchange(.http1, with: address, "/api/greet/cat?mood=happy&shout=maybe")
            #expect(response.status == 400, "\(response.status) \(response.body)")
            #expect(response.body.contains("\"detail\":\"query parameter mood or shout: one of them must be true or false, got happy and maybe\""), "\(response.body)")
            #expect(!response.body.contains("\"errors\""), "\(response.body)")
            let many = try await exchange(.http1, with: address, "/api/greet/cat?a=1&b=2&c=3&d=4&shout=maybe")
            #expect(many.status == 400, "\(many.status) \(many.body)")
            #expect(many.body.contains("\"detail\":\"the request cannot be read: expected Bool: Failed to convert to the requested type.\""), "\(many.body)")
            #expect(!many.body.contains("at :") && !many.body.contains("\"errors\""), "\(many.body)")
        }
    }

    @Test func theFailureReadsTheRuntimesErrors() {
        let mismatch = DecodingFailure(.typeMismatch(Bool.self, .init(codingPath: [], debugDescription: "Failed.")))
        #expect(mismatch.couldBe("maybe") && !mismatch.couldBe("true") && !mismatch.couldBe("false"))
        #expect(mismatch.summary == "expected Bool: Failed.")
        let missing = DecodingFailure(.valueNotFound(Int.self, .init(codingPath: [], debugDescription: "Value not found.")))
        #expect(missing.couldBe("") && !missing.couldBe("1"))
        #expect(missing.detail(got: "") == "must have a value")
        let corrupted = DecodingFailure(.dataCorrupted(.init(codingPath: [], debugDescription: "Cannot initialize Mood from invalid String value angry")))
        #expect(corrupted.couldBe("angry") && !corrupted.couldBe("happy"))
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { (stringValue, self.intValue) = ("\(intValue)", intValue) }
        }
        let nested = DecodingFailure(.typeMismatch(Int.self, .init(codingPath: [Key(stringValue: "cat"), Key(intValue: 0)!], debugDescription: "Expected Int.")))
        #expect(nested.summary == "at /cat/0: expected Int: Expected Int.")
        #expect(DecodingFailure(.typeMismatch(Double.self, .init(codingPath: [], debugDescription: ""))).detail(got: "x") == "must be a number, got x")
        #expect(mismatch.detail(got: Substring(String(repeating: "a", count: 100))) == "must be true or false, got " + String(repeating: "a", count: 64) + "...")
    }
}
