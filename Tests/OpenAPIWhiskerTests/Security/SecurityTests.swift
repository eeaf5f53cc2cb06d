import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
@testable import OpenAPIWhisker
@testable import OpenAPIWhiskerDocument
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// Security requirements from the document: alternatives (OR) of schemes (AND) with scopes, each
/// scheme's credential found where it says, and the answers: 401 with a challenge, 403, or the
/// handler with its principal; never a credential in a log line.
@Suite struct SecurityTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Reports, version: '1'}
        security:
          - bearer: []
        components:
          securitySchemes:
            bearer: {type: http, scheme: bearer}
            basic: {type: http, scheme: basic}
            key: {type: apiKey, in: header, name: X-API-Key}
            queryKey: {type: apiKey, in: query, name: key}
            cookieKey: {type: apiKey, in: cookie, name: session}
            client: {type: mutualTLS}
        paths:
          /report:
            get:
              operationId: getReport
              security:
                - key: []
                - bearer: ['reports:read']
              responses: {'200': {description: The report.}}
          /both:
            get:
              operationId: getBoth
              security:
                - key: []
                  basic: []
              responses: {'200': {description: Both.}}
          /open:
            get:
              operationId: getOpen
              security:
                - {}
                - bearer: []
              responses: {'200': {description: Anyone.}}
          /default:
            get:
              operationId: getDefault
              responses: {'200': {description: The document's requirement.}}
          /none:
            get:
              operationId: getNone
              security: []
              responses: {'200': {description: No requirement.}}
          /elsewhere:
            get:
              operationId: getElsewhere
              security:
                - queryKey: []
                - cookieKey: []
                - client: []
              responses: {'200': {description: 'A key in the query or a cookie, or a client certificate.'}}
        """

    static let secret = "s3cr3t-token"

    /// alice (bearer `s3cr3t-token`) reads reports; bob (bearer `weak`) holds no scope; the key
    /// `k1` is the reporter's, in any place; basic `u:p` is u.
    static let authenticators: [String: Authenticator] = [
        "bearer": { credential in
            switch credential {
            case .bearer(SecurityTests.secret): Principal(name: "alice", scopes: ["reports:read"])
            case .bearer("weak"): Principal(name: "bob")
            default: nil
            }
        },
        "basic": { $0 == .basic(user: "u", password: "p") ? Principal(name: "u") : nil },
        "key": { $0 == .apiKey("k1") ? Principal(name: "reporter") : nil },
        "queryKey": { $0 == .apiKey("k1") ? Principal(name: "query reporter") : nil },
        "cookieKey": { $0 == .apiKey("k1") ? Principal(name: "cookie reporter") : nil },
        "client": { _ in Principal(name: "certificate") },
    ]

    func outcome(_ path: String, _ fields: HTTPFields = [:]) async throws -> SecurityRequirements.Outcome {
        let operations = try DocumentOperations(OpenAPIDocument(yaml: Array(Self.document.utf8)))
        let operation = try #require(operations.operation(method: "GET", registeredPath: String(path.prefix { $0 != "?" })))
        let requirements = try #require(operation.security)
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path, headerFields: fields)
        return try await requirements.check(head, tls: nil) { scheme, credential in try await Self.authenticators[scheme.name]!(credential) }
    }

    @Test func requirements_AlternativesOfSchemesWithScopes() async throws {
        #expect(try await outcome("/report", [HTTPField.Name("X-API-Key")!: "k1"]) == .admitted(Principal(name: "reporter")), "the first alternative")
        #expect(try await outcome("/report", [.authorization: "Bearer \(Self.secret)"]) == .admitted(Principal(name: "alice", scopes: ["reports:read"])), "the second")
        #expect(try await outcome("/report", [.authorization: "Bearer weak"]) == .forbidden(detail: "not allowed: bearer needs reports:read"))
        #expect(try await outcome("/report", [.authorization: "Bearer nope"]) == .unauthenticated(detail: "credentials refused for bearer; no credentials for key", challenges: ["Bearer"]))
        #expect(try await outcome("/report") == .unauthenticated(detail: "no credentials for key or bearer", challenges: ["Bearer"]))
        let basic = "Basic " + Data("u:p".utf8).base64EncodedString()
        #expect(try await outcome("/both", [HTTPField.Name("X-API-Key")!: "k1", .authorization: basic]) == .admitted(Principal(name: "reporter")), "both schemes (AND)")
        #expect(try await outcome("/both", [HTTPField.Name("X-API-Key")!: "k1"]) == .unauthenticated(detail: "no credentials for basic", challenges: ["Basic realm=\"basic\", charset=\"UTF-8\""]))
        #expect(try await outcome("/open") == .admitted(nil), "an empty alternative admits anyone")
        #expect(try await outcome("/default", [.authorization: "Bearer weak"]) == .admitted(Principal(name: "bob")), "the document's requirement")
        #expect(try await outcome("/none") == .admitted(nil), "security: [] requires nothing")
        #expect(try await outcome("/elsewhere?key=k1") == .admitted(Principal(name: "query reporter")))
        #expect(try await outcome("/elsewhere", [.cookie: "a=b; session=k1"]) == .admitted(Principal(name: "cookie reporter")))
        #expect(try await outcome("/elsewhere") == .unauthenticated(detail: "no credentials for queryKey or cookieKey or client", challenges: []), "no client certificate on a cleartext request")
    }

    @Test func aSchemeWithoutAnAuthenticator_IsAnErrorWhenRegistered() throws {
        var some = Self.authenticators
        some["basic"] = nil
        let transport = try WhiskerTransport(makeTestServer(), validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)), authenticators: some)
        #expect(throws: DocumentError.self) { try transport.register({ _, _, _ in (HTTPResponse(status: .ok), nil) }, method: .get, path: "/both") }
        try transport.register({ _, _, _ in (HTTPResponse(status: .ok), nil) }, method: .get, path: "/report")
    }

    @Test(arguments: Wire.allCases)
    func answers_401WithAChallenge_403_OrTheHandlerWithItsPrincipal_AndNoCredentialLogged(over wire: Wire) async throws {
        let lines = LoggedLines()
        let server = makeTestServer {
            $0.http2 = HTTP2Settings()
            $0.logger = .capturing(lines, label: "server", level: .trace)
            $0.accessLog = .capturing(lines, label: "access", level: .trace)
        }
        let transport = try WhiskerTransport(server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)), authenticators: Self.authenticators)
        for path in ["/report", "/elsewhere"] {
            try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody(RequestContext.current?.principal?.name ?? "-")) }, method: .get, path: path)
        }
        try await server.withRunning { address in
            func send(_ fields: [(String, String)]) async throws -> WireResponse {
                try await exchange(wire, with: address, "/report", fields: fields)
            }
            let none = try await send([])
            #expect(none.status == 401)
            #expect(none.values("www-authenticate") == ["Bearer"])
            #expect(none.body.contains("\"detail\":\"no credentials for key or bearer\""))
            let refused = try await send([("authorization", "Bearer \(Self.secret)x")])
            #expect(refused.status == 401)
            let weak = try await send([("authorization", "Bearer weak")])
            #expect(weak.status == 403)
            #expect(weak.body.contains("\"detail\":\"not allowed: bearer needs reports:read\""))
            let good = try await send([("authorization", "Bearer \(Self.secret)")])
            #expect(good.status == 200)
            #expect(good.body == "alice", "the handler reads RequestContext.current?.principal")
            let key = try await send([("x-api-key", "k1")])
            #expect(key.body == "reporter")
            // In the request target the access log shows, under a name that says nothing of keys.
            let queryKey = try await exchange(wire, with: address, "/elsewhere?key=k1&count=3")
            #expect(queryKey.body == "query reporter")
        }
        let logged = lines.all.map { "\($0.0) \($0.1)" }
        #expect(logged.contains { $0.contains("request refused") && $0.contains("401") }, "\(logged)")
        #expect(!logged.contains { $0.contains(Self.secret) || $0.contains("k1") }, "no credential in any of \(logged.count) log lines: \(logged)")
        #expect(logged.contains { $0.contains("/elsewhere?key=<redacted>&count=3") }, "the access log's target, the key's value redacted")
    }
}
