import Foundation
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting
@testable import OpenAPIWhisker
@testable import OpenAPIWhiskerDocument
@testable import OpenAPIWhiskerPolicies

/// Policies and middlewares by the document's tags (swift-openapi-generator #551: scoped middleware
/// without a module and a document of its own for each part of the API).
@Suite struct TagPolicyTests {
    static let document = MiddlewareTests.document
        .replacingOccurrences(of: "operationId: adoptCat", with: "operationId: adoptCat\n      tags: [cats]")
        .replacingOccurrences(of: "operationId: getCats", with: "operationId: getCats\n      tags: [cats, public]")
        .replacingOccurrences(of: "operationId: fileReport", with: "operationId: fileReport\n      tags: [reports]")

    @Test(arguments: Wire.allCases)
    func aTagsPolicy_AppliesToItsOperations_UnderTheirOwn(over wire: Wire) async throws {
        let trail = MiddlewareTests.Trail()
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(
            server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)), authenticators: MiddlewareTests.authenticators,
            policies: ["adoptCat": OperationPolicy(middlewares: [MiddlewareTests.Checkpoint(trail: trail, name: "adoption's")])],
            policiesByTag: [
                "cats": OperationPolicy(rateLimit: RateLimit(1, per: .seconds(60)), middlewares: [MiddlewareTests.Checkpoint(trail: trail, name: "cats'")]),
                "public": OperationPolicy(rateLimit: RateLimit(5, per: .seconds(60))),
            ]
        )
        try MiddlewareTests.registerHandlers(on: transport, middlewares: [])
        try await server.withRunning { address in
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 201)
            let limited = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(limited.status == 429 && limited.values("ratelimit-policy") == ["\"adoptCat\";q=1;w=60"], "the tag's limit")
            // getCats has both tags: the first one's limit wins.
            let cats = try await exchange(wire, with: address, "/cats")
            #expect(cats.status == 200 && cats.values("ratelimit-policy") == ["\"getCats\";q=1;w=60"])
            // An operation without the tags: no limit, no middleware.
            let filed = try await exchange(wire, with: address, "/reports", method: "POST", fields: [
                ("content-type", "application/json"), ("authorization", "Bearer alice"),
            ], body: #"{"title":"fur"}"#)
            #expect(filed.status == 201 && filed.values("ratelimit-policy").isEmpty)
        }
        #expect(trail.all == ["cats' adoptCat", "adoption's adoptCat", "cats' getCats"], "the tag's middlewares first, then the operation's")
    }

    @Test func aTagNoOperationHas_IsADocumentError() throws {
        let document = OpenAPIDocument(yaml: Array(Self.document.utf8))
        #expect(throws: DocumentError.self) { try WhiskerTransport(makeTestServer(), validatingAgainst: document, policiesByTag: ["kats": OperationPolicy()]) }
        #expect(throws: DocumentError.self) { try OperationScope.tagged(["kats"], in: document) }
    }

    @Test func aMiddlewareScopedByTag() throws {
        let scope = try OperationScope.tagged(["cats"], in: OpenAPIDocument(yaml: Array(Self.document.utf8)))
        #expect(scope.contains("adoptCat") && scope.contains("getCats") && !scope.contains("fileReport"))
    }
}
