import Foundation
import HTTPTypes
import Logging
@_spi(Generated) import OpenAPIRuntime
@testable import OpenAPIWhisker
@testable import OpenAPIWhiskerDocument
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Queries as browsers read them (issue 38): `?debug` is `debug` with an empty value, empty items
/// are skipped, and nothing a client puts in a query is a 500. Before, the runtime's URI parser
/// threw `malformedKeyValuePair` for an item without `=` (or an empty one) and the transport
/// answered 500 with an error line.
@Suite struct QueryStringTests {
    // MARK: The parser alone

    @Test func rawItems_ReadLikeWHATWG() {
        func items(_ target: String) -> [String] { QueryString.rawItems(of: target).map { "\($0.name)=\($0.value)" } }
        #expect(items("/a?debug") == ["debug="])
        #expect(items("/a?a&count=1") == ["a=", "count=1"])
        #expect(items("/a?count=1&count") == ["count=1", "count="])
        #expect(items("/a?&&") == [])
        #expect(items("/a?=") == ["="])
        #expect(items("/a?x==1&=y") == ["x==1", "=y"])
        #expect(items("/a") == [])
        #expect(items("/a?b=1#c&d") == ["b=1"])
    }

    @Test func runtimeTarget_WritesEveryItemAsNameEqualsValue_AndLeavesGoodQueriesAlone() {
        #expect(QueryString.runtimeTarget("/api/emoji?debug") == "/api/emoji?debug=")
        #expect(QueryString.runtimeTarget("/api/emoji?a&count=1") == "/api/emoji?a=&count=1")
        #expect(QueryString.runtimeTarget("/api/emoji?count=1&count") == "/api/emoji?count=1&count=")
        #expect(QueryString.runtimeTarget("/api/emoji?&&") == "/api/emoji?")
        #expect(QueryString.runtimeTarget("/api/emoji?&count=2&&x&") == "/api/emoji?count=2&x=")
        #expect(QueryString.runtimeTarget("/api/emoji?count=1&debug#frag") == "/api/emoji?count=1&debug=#frag")
        // Already in the runtime's form: no copy.
        for target in ["/api/emoji", "/api/emoji?", "/api/emoji?count=3", "/api/emoji?count=3&interval_ms=0", "/api/emoji?a=1&", "/api/emoji?=", "/api/emoji?x==y"] {
            #expect(QueryString.runtimeTarget(target) == nil, "\(target)")
        }
    }

    // MARK: Through the transport and the runtime's own decoder

    /// The generated code of the demo's `getEmoji` (a `count` integer in the query), written out:
    /// the runtime's `UniversalServer` and `Converter`, as swift-openapi-generator emits them.
    struct EmojiAPI: Sendable {
        func getEmoji(_ count: Int?) async throws -> String { String(repeating: "🐱", count: max(0, min(count ?? 1, 100))) }
    }

    static let document = """
        openapi: 3.1.0
        info: {title: Cats, version: '1'}
        paths:
          /emoji:
            get:
              operationId: getEmoji
              parameters:
                - name: count
                  in: query
                  schema: {type: integer, minimum: 1, maximum: 100}
                - name: ratio
                  in: query
                  schema: {type: number}
              responses:
                '200': {description: Cats.}
                '400': {description: A bad query.}
          /net:
            get:
              operationId: net
              responses:
                '200': {description: Never.}
        """

    func withServer(validating: Bool, lines: LoggedLines, _ body: @Sendable (SocketAddress) async throws -> Void) async throws {
        let logger = Logger.capturing(lines, level: .info)
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.logger = logger
        }
        let transport = validating
            ? try WhiskerTransport(server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)))
            : WhiskerTransport(server)
        let universal = UniversalServer(serverURL: URL(string: "/api")!, handler: EmojiAPI())
        try transport.register({ request, body, metadata in
            try await universal.handle(
                request: request, requestBody: body, metadata: metadata, forOperation: "getEmoji", using: { api in api.getEmoji },
                deserializer: { request, _, _ in
                    try universal.converter.getOptionalQueryItemAsURI(in: request.soar_query, style: .form, explode: true, name: "count", as: Int.self)
                },
                serializer: { output, _ in (HTTPResponse(status: .ok), HTTPBody(output)) })
        }, method: .get, path: "/api/emoji")
        // A query the runtime's parser refuses whatever Whisker hands it (this one decodes a
        // fixed item without `=`): the net behind QueryString answers 400, not 500.
        try transport.register({ request, body, metadata in
            try await universal.handle(
                request: request, requestBody: body, metadata: metadata, forOperation: "net", using: { api in api.getEmoji },
                deserializer: { _, _, _ in
                    try universal.converter.getOptionalQueryItemAsURI(in: "debug", style: .form, explode: true, name: "count", as: Int.self)
                },
                serializer: { output, _ in (HTTPResponse(status: .ok), HTTPBody(output)) })
        }, method: .get, path: "/api/net")
        try await server.withRunning(body)
    }

    /// Odd shapes a client may send: items without `=`, repeated keys, empty items, `%` junk,
    /// `+`, `=` alone, a long query, percent-encoded UTF-8.
    static let oddQueries = [
        "?debug", "?a&count=1", "?count=1&count", "?&&", "?&", "?count", "?count&count=2", "?=", "?==", "?=1", "?count==2",
        "?%", "?%zz", "?count=%", "?count=%zz", "?%ff=1", "?count=%ff", "?count=%00", "?+", "?count=+", "?count=+5", "?count=-1",
        "?count=1+1", "?count=1e2", "?count=99999999999999999999", "?count[]=1", "?count[a]=1", "?count=1,2", "?ratio", "?ratio=nan",
        "?ratio=Infinity", "?%E2%80%A8=1", "?count=%F0%9F%90%B1", "?" + String(repeating: "a&", count: 500),
        "?" + String(repeating: "count=1&", count: 300), "?;", "?count=1;count=2", "?a=b=c&&&d", "?&count=2&&",
    ]

    @Test(arguments: Wire.allCases, [false, true])
    func oddQueries_AreNever5xx_AndLogNoError(over wire: Wire, validating: Bool) async throws {
        let lines = LoggedLines()
        try await withServer(validating: validating, lines: lines) { address in
            for query in Self.oddQueries {
                let response = try await exchange(wire, with: address, "/api/emoji" + query)
                #expect((200..<500).contains(response.status), "\(wire) validating \(validating) \(query): \(response.status) \(response.body)")
            }
        }
        let errors = lines.all.filter { $0.0 == "request failed" || $0.0 == "handler failed" }
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test(arguments: Wire.allCases, [false, true])
    func anItemWithoutEquals_IsANameWithAnEmptyValue(over wire: Wire, validating: Bool) async throws {
        try await withServer(validating: validating, lines: LoggedLines()) { address in
            for (query, cats) in [("?debug", 1), ("?a&count=2", 2), ("?&&", 1), ("?&count=2&&x&", 2)] {
                let response = try await exchange(wire, with: address, "/api/emoji" + query)
                #expect(response.status == 200 && response.body == String(repeating: "🐱", count: cats), "\(query): \(response.status) \(response.body)")
            }
            // `count` twice (the second empty): the runtime reads the first; the document's check
            // refuses a value given twice, since readers differ on which one counts.
            let twice = try await exchange(wire, with: address, "/api/emoji?count=3&count")
            if validating {
                #expect(twice.status == 400 && twice.body.contains("query parameter count: must be given once, got 2 values"), "\(twice.body)")
            } else {
                #expect(twice.status == 200 && twice.body == "🐱🐱🐱")
            }
        }
    }

    @Test func aQueryTheRuntimeStillCannotRead_Is400NamingTheQuery() async throws {
        let lines = LoggedLines()
        try await withServer(validating: false, lines: lines) { address in
            for wire in Wire.allCases {
                let response = try await exchange(wire, with: address, "/api/net?x=1")
                #expect(response.status == 400, "\(wire): \(response.status)")
                #expect(response.values("content-type") == ["application/problem+json"])
                #expect(response.body.contains("the query cannot be read"), "\(response.body)")
            }
        }
        #expect(lines.all.contains { $0.0 == "request refused" && $0.1["query"] == "\"?x=1\"" }, "\(lines.all)")
        #expect(!lines.all.contains { $0.0 == "request failed" })
    }

    /// `integer` as the document means it: `+5` is not one (Swift's `Int64("+5")` is 5). With the
    /// document, the checks refuse it; without, the runtime decodes it (Swift's `Int(_:)`), as
    /// EnforcingTheDocument.md says.
    @Test(arguments: Wire.allCases)
    func aSignedPlusInteger_IsRefusedByTheChecks(over wire: Wire) async throws {
        try await withServer(validating: true, lines: LoggedLines()) { address in
            for query in ["?count=+5", "?count=%2B5", "?ratio=+0.5"] {
                let response = try await exchange(wire, with: address, "/api/emoji" + query)
                #expect(response.status == 400, "\(query): \(response.status) \(response.body)")
                #expect(response.body.contains("must be"), "\(response.body)")
            }
            for (query, cats) in [("?count=5", 5), ("?count=05", 5), ("?ratio=-0.5&count=2", 2), ("?ratio=1e%2B2&count=1", 1)] {
                let response = try await exchange(wire, with: address, "/api/emoji" + query)
                #expect(response.status == 200 && response.body == String(repeating: "🐱", count: cats), "\(query): \(response.status) \(response.body)")
            }
        }
    }
}
