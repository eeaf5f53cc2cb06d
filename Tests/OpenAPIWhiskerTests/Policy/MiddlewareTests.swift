import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import OpenAPIWhisker
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Security and policies as the runtime's `ServerMiddleware` values, passed where the generated
/// `registerHandlers(on:serverURL:middlewares:)` passes them (the runtime's `UniversalServer`,
/// which tells each middleware the operationID), ordered and scoped by the user, and served by a
/// real server over HTTP/1.1 and HTTP/2.
@Suite struct MiddlewareTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Middlewares, version: '1'}
        components:
          securitySchemes:
            bearer: {type: http, scheme: bearer}
        paths:
          /reports:
            post:
              operationId: fileReport
              security: [{bearer: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {type: object, required: [title], properties: {title: {type: string}}}
              responses: {'201': {description: Filed.}}
          /cats:
            get:
              operationId: getCats
              deprecated: true
              responses: {'200': {description: Cats.}, '500': {description: Failed.}}
          /adopt:
            post:
              operationId: adoptCat
              responses: {'201': {description: Adopted.}, '429': {description: Slow down.}}
        """

    /// The order in which middlewares saw a request.
    final class Trail: Sendable {
        private let names = Mutex<[String]>([])
        var all: [String] { names.withLock { $0 } }
        func add(_ name: String) { names.withLock { $0.append(name) } }
    }

    /// A user's own authentication middleware: a legacy `X-Legacy-Token` becomes the bearer token
    /// the document's security scheme reads.
    struct LegacyTokenMiddleware: ServerMiddleware {
        let trail: Trail
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            trail.add("legacy \(operationID)")
            var request = request
            if let token = request.headerFields[HTTPField.Name("X-Legacy-Token")!] { request.headerFields[.authorization] = "Bearer \(token)" }
            return try await next(request, body, metadata)
        }
    }

    /// Notes that a request got this far in the chain.
    struct Checkpoint: ServerMiddleware {
        let trail: Trail
        let name: String
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            trail.add("\(name) \(operationID)")
            return try await next(request, body, metadata)
        }
    }

    struct Output: Sendable {
        var status: HTTPResponse.Status
        var text: String
    }

    /// What the generated `registerHandlers(on:serverURL:middlewares:)` does: each operation
    /// registered on the transport through the runtime's `UniversalServer`, with `middlewares`.
    /// `fileReport` answers who filed it and the body it got; `getCats` fails on `?fail`.
    static func registerHandlers(on transport: WhiskerTransport, middlewares: [any ServerMiddleware]) throws {
        let server = UniversalServer(handler: (), middlewares: middlewares)
        let operations: [(id: String, method: HTTPRequest.Method, path: String, status: HTTPResponse.Status)] = [
            ("fileReport", .post, "/reports", .created), ("getCats", .get, "/cats", .ok), ("adoptCat", .post, "/adopt", .created),
        ]
        for operation in operations {
            try transport.register({ request, body, metadata in
                try await server.handle(
                    request: request, requestBody: body, metadata: metadata, forOperation: operation.id,
                    using: { _ in { (input: (body: String, fail: Bool)) in
                        struct Failed: Error {}
                        if input.fail { throw Failed() }
                        return Output(status: operation.status, text: "\(operation.id) by \(Principal.current?.name ?? "-"): \(input.body)")
                    } },
                    deserializer: { request, body, _ in
                        let text = if let body { try await String(collecting: body, upTo: 1024) } else { "" }
                        return (text, request.path?.contains("?fail") == true)
                    },
                    serializer: { output, _ in (HTTPResponse(status: output.status), HTTPBody(output.text)) }
                )
            }, method: operation.method, path: operation.path)
        }
    }

    static func served(_ middlewares: (OpenAPIDocument) throws -> [any ServerMiddleware]) throws -> WhiskerServer {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = WhiskerTransport(server)
        try registerHandlers(on: transport, middlewares: middlewares(OpenAPIDocument(yaml: Array(document.utf8))))
        return server
    }

    /// A server whose transport checks the document with `policies`, the operations registered
    /// with one middleware of the user's, "yours", that notes each request it sees in `trail`.
    static func checked(policies: [String: OperationPolicy], trail: Trail) throws -> WhiskerServer {
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(
            server, validatingAgainst: OpenAPIDocument(yaml: Array(document.utf8)), authenticators: authenticators, policies: policies
        )
        try registerHandlers(on: transport, middlewares: [Checkpoint(trail: trail, name: "yours")])
        return server
    }

    static let authenticators: [String: Authenticator] = ["bearer": { credential in credential.bearerToken.map { Principal(name: $0) } }]

    @Test(arguments: Wire.allCases)
    func aUsersOwnAuthentication_RunsBeforeTheDocumentsChecks_InTheOrderGiven(over wire: Wire) async throws {
        let trail = Trail()
        let server = try Self.served { document in
            [LegacyTokenMiddleware(trail: trail), try RequestValidationMiddleware(document, authenticators: Self.authenticators), Checkpoint(trail: trail, name: "checked")]
        }
        try await server.withRunning { address in
            let json = [("content-type", "application/json"), ("x-legacy-token", "alice")]
            // The legacy token, turned into a bearer token before the checks, admits alice; the
            // JSON body the checks read reaches the handler from memory.
            let filed = try await exchange(wire, with: address, "/reports", method: "POST", fields: json, body: #"{"title":"fur"}"#)
            #expect(filed.status == 201)
            #expect(filed.body == #"fileReport by alice: {"title":"fur"}"#)
            #expect(trail.all == ["legacy fileReport", "checked fileReport"])
            // Authenticated, then refused by the document: the body lacks its title.
            let invalid = try await exchange(wire, with: address, "/reports", method: "POST", fields: json, body: "{}")
            #expect(invalid.status == 400)
            #expect(invalid.body.contains("body /title: is required"), "\(invalid.body)")
            // No token at all: 401 from the checks, and nothing after them ran.
            let anonymous = try await exchange(wire, with: address, "/reports", method: "POST", fields: [("content-type", "application/json")], body: #"{"title":"fur"}"#)
            #expect(anonymous.status == 401)
            #expect(anonymous.values("www-authenticate") == ["Bearer"])
            #expect(trail.all.filter { $0.hasPrefix("checked") }.count == 1)
            // An operation without security passes the checks without a principal.
            #expect(try await exchange(wire, with: address, "/cats").body == "getCats by -: ")
        }
    }

    @Test(arguments: Wire.allCases)
    func theChecksBeforeTheUsersAuthentication_SeeNoToken(over wire: Wire) async throws {
        // The same two middlewares the other way round: the checks run first and see no bearer
        // token, so the order the user gives is the order they run in.
        let trail = Trail()
        let server = try Self.served { document in
            [try RequestValidationMiddleware(document, authenticators: Self.authenticators), LegacyTokenMiddleware(trail: trail)]
        }
        try await server.withRunning { address in
            let json = [("content-type", "application/json"), ("x-legacy-token", "alice")]
            let refused = try await exchange(wire, with: address, "/reports", method: "POST", fields: json, body: #"{"title":"fur"}"#)
            #expect(refused.status == 401)
            #expect(trail.all.isEmpty)
        }
    }

    @Test(arguments: Wire.allCases)
    func aRateLimitScopedToOneOperation_LimitsItAlone(over wire: Wire) async throws {
        let server = try Self.served { _ in [RateLimitMiddleware(RateLimit(1, per: .seconds(60)), for: ["adoptCat"])] }
        try await server.withRunning { address in
            let first = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(first.status == 201)
            #expect(first.values("ratelimit-policy") == ["\"adoptCat\";q=1;w=60"])
            let second = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(second.status == 429)
            #expect(second.values("retry-after").first.flatMap { Int($0) }.map { (1...60).contains($0) } == true, "\(second.fields)")
            #expect(second.body.contains("\"status\":429"))
            // The operation outside the scope: neither counted nor told about the limit.
            for _ in 0..<3 {
                let cats = try await exchange(wire, with: address, "/cats")
                #expect(cats.status == 200)
                #expect(cats.values("ratelimit-policy").isEmpty && cats.values("ratelimit").isEmpty)
            }
        }
    }

    @Test(arguments: Wire.allCases)
    func deprecation_FromTheDocument_OnAnswersAndErrors_ScopedToItsOperations(over wire: Wire) async throws {
        let sunset = Date(timeIntervalSince1970: 1_798_761_600)
        let server = try Self.served { document in
            [try DeprecationMiddleware(markedIn: document), DeprecationMiddleware(sunset: sunset, for: .matching { $0.hasPrefix("adopt") })]
        }
        try await server.withRunning { address in
            let cats = try await exchange(wire, with: address, "/cats")
            #expect(cats.values("deprecation") == ["@0"])
            #expect(cats.values("sunset").isEmpty)
            // The error the runtime makes of a failing handler is answered with the fields too.
            let failed = try await exchange(wire, with: address, "/cats?fail")
            #expect(failed.status == 500)
            #expect(failed.values("deprecation") == ["@0"])
            let adopted = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(adopted.values("sunset") == ["Fri, 01 Jan 2027 00:00:00 GMT"])
            let filed = try await exchange(wire, with: address, "/reports", method: "POST", body: "{}")
            #expect(filed.values("deprecation").isEmpty)
        }
    }

    @Test(arguments: Wire.allCases)
    func theTransportsOwnChecksAndPolicies_RunBeforeTheMiddlewaresGivenToRegisterHandlers(over wire: Wire) async throws {
        // The one-line sugar: the same middlewares, made by the transport for each operation and
        // run before the runtime's chain, so a refusal never reaches the user's middleware.
        let trail = Trail()
        let server = try Self.checked(policies: ["adoptCat": OperationPolicy(rateLimit: RateLimit(1, per: .seconds(60)))], trail: trail)
        try await server.withRunning { address in
            let anonymous = try await exchange(wire, with: address, "/reports", method: "POST", fields: [("content-type", "application/json")], body: #"{"title":"fur"}"#)
            #expect(anonymous.status == 401)
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 201)
            let limited = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(limited.status == 429)
            #expect(limited.values("ratelimit-policy") == ["\"adoptCat\";q=1;w=60"])
            #expect(trail.all == ["yours adoptCat"], "only the admitted request reached the middleware given to registerHandlers")
        }
    }

    @Test(arguments: Wire.allCases)
    func aPolicysOwnMiddlewares_RunForItsOperationAlone_AfterTheChecks_BeforeRegisterHandlersOnes(over wire: Wire) async throws {
        let trail = Trail()
        let server = try Self.checked(policies: [
            "adoptCat": OperationPolicy(rateLimit: RateLimit(1, per: .seconds(60)), middlewares: [
                Checkpoint(trail: trail, name: "adoption's first"), Checkpoint(trail: trail, name: "adoption's second"),
            ]),
            "fileReport": OperationPolicy(middlewares: [Checkpoint(trail: trail, name: "report's")]),
        ], trail: trail)
        try await server.withRunning { address in
            #expect(try await exchange(wire, with: address, "/cats").status == 200)
            #expect(trail.all == ["yours getCats"], "an operation without a policy's middlewares runs none of them")
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 201)
            #expect(trail.all.suffix(3) == ["adoption's first adoptCat", "adoption's second adoptCat", "yours adoptCat"])
            // Refused by the rate limit, then by the document's checks: neither reaches them.
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 429)
            let anonymous = try await exchange(wire, with: address, "/reports", method: "POST", fields: [("content-type", "application/json")], body: #"{"title":"fur"}"#)
            #expect(anonymous.status == 401)
            let untitled = try await exchange(
                wire, with: address, "/reports", method: "POST", fields: [("content-type", "application/json"), ("authorization", "Bearer tabby")], body: "{}"
            )
            #expect(untitled.status == 400)
            #expect(trail.all.count == 4, "refused requests reached no middleware: \(trail.all)")
            let filed = try await exchange(
                wire, with: address, "/reports", method: "POST", fields: [("content-type", "application/json"), ("authorization", "Bearer tabby")],
                body: #"{"title":"fur"}"#
            )
            #expect(filed.status == 201)
            #expect(filed.body == #"fileReport by tabby: {"title":"fur"}"#, "the policy's middleware sees the principal and passes the checked body on")
            #expect(trail.all.suffix(2) == ["report's fileReport", "yours fileReport"])
        }
    }

    @Test(arguments: Wire.allCases)
    func theChecksWithoutWaiting_AnswerAsTheMiddlewareDoes(over wire: Wire) async throws {
        // The transport's own checks run synchronously before the rest of the chain when they need
        // no waiting (no security, no JSON body): a refusal is the same problem details, and an
        // admitted request reaches the middlewares after them once.
        let trail = Trail()
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(
            server, validatingAgainst: OpenAPIDocument(yaml: Array("""
                openapi: 3.1.0
                info: {title: Quick, version: '1'}
                paths:
                  /cats:
                    get:
                      operationId: getCats
                      parameters:
                        - {name: count, in: query, schema: {type: integer, minimum: 1}}
                      responses: {'200': {description: Cats.}}
                """.utf8)),
            policies: ["getCats": OperationPolicy(middlewares: [Checkpoint(trail: trail, name: "policy's")])]
        )
        try transport.register({ request, _, _ in (HTTPResponse(status: .ok), HTTPBody(request.path ?? "")) }, method: .get, path: "/cats")
        try await server.withRunning { address in
            let refused = try await exchange(wire, with: address, "/cats?count=0")
            #expect(refused.status == 400)
            #expect(refused.values("content-type") == ["application/problem+json"])
            #expect(refused.body.contains("count"), "the refusal names the parameter: \(refused.body)")
            #expect(trail.all.isEmpty)
            let admitted = try await exchange(wire, with: address, "/cats?count=2")
            #expect(admitted.status == 200)
            #expect(admitted.body == "/cats?count=2")
            #expect(trail.all == ["policy's getCats"])
        }
    }

    @Test func operationScope_NamesOperationsByOperationID() {
        let listed: OperationScope = ["adoptCat", "getCats"]
        #expect(listed.contains("adoptCat") && listed.contains("getCats") && !listed.contains("fileReport"))
        #expect(OperationScope.all.contains("anything"))
        #expect(!OperationScope.except(["adoptCat"]).contains("adoptCat") && OperationScope.except(["adoptCat"]).contains("getCats"))
        #expect(OperationScope.matching { $0.hasSuffix("Cat") }.contains("adoptCat"))
        #expect(!OperationScope.only(["adoptCat"]).contains("adoptcat"), "operationIDs are compared exactly")
    }
}
