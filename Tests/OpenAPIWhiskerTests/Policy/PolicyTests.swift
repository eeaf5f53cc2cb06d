import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
@testable import OpenAPIWhisker
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// One policy per operation, by operationId: a deadline (503 or 504, the handler cancelled; an
/// event stream ended), a rate limit (429 with Retry-After and the RateLimit fields, per client or
/// per principal), and deprecation (`Deprecation`, `Sunset`), over HTTP/1.1 and HTTP/2.
@Suite struct PolicyTests {
    static let document = """
        openapi: 3.1.0
        info: {title: Policies, version: '1'}
        components:
          securitySchemes:
            bearer: {type: http, scheme: bearer}
        paths:
          /slow:
            get:
              operationId: getSlow
              responses: {'200': {description: Late.}, '503': {description: Too late.}}
          /upstream:
            get:
              operationId: getUpstream
              responses: {'200': {description: Late.}, '504': {description: Too late.}}
          /stream:
            get:
              operationId: getStream
              responses: {'200': {description: Ticks.}}
          /adopt:
            post:
              operationId: adopt
              responses: {'201': {description: Adopted.}, '429': {description: Slow down.}}
          /mine:
            get:
              operationId: getMine
              security: [{bearer: []}]
              responses: {'200': {description: Yours.}, '429': {description: Slow down.}}
          /old:
            get:
              operationId: getOld
              deprecated: true
              responses: {'200': {description: Old.}}
          /older:
            get:
              operationId: getOlder
              deprecated: true
              responses: {'200': {description: Older.}}
        """

    static let sunset = Date(timeIntervalSince1970: 1_798_761_600)

    static let policies: [String: OperationPolicy] = [
        "getSlow": OperationPolicy(deadline: .milliseconds(300)),
        "getUpstream": OperationPolicy(deadline: .milliseconds(300), deadlineStatus: .gatewayTimeout),
        // Long enough that the handler, which answers at once, beats it even when every test of
        // the process runs at once on two cores: the deadline's timer is a Dispatch timer, which
        // fires on time however busy the handlers' tasks are (a sleeping task waited with them).
        "getStream": OperationPolicy(deadline: .milliseconds(1500)),
        "adopt": OperationPolicy(rateLimit: RateLimit(2, per: .seconds(60))),
        "getMine": OperationPolicy(rateLimit: RateLimit(1, per: .seconds(60), by: .principal)),
        "getOlder": OperationPolicy(deprecatedSince: Date(timeIntervalSince1970: 1_767_225_600), sunset: sunset, deprecationLink: "https://example.com/v2"),
    ]

    /// A server with the document's operations: `/slow` and `/upstream` take 30 s whatever
    /// happens (ignoring cancellation, as a blocking call would), noting that they were cancelled
    /// and when they end; `/stream` ticks at once and then every 50 ms until cancelled.
    struct Served {
        let server: WhiskerServer
        let lines = LoggedLines()
        let cancelled = Signal<Void>()
        let ended = Count()

        init() throws {
            let lines = lines
            server = makeTestServer {
                $0.http2 = HTTP2Settings()
                $0.logger = .capturing(lines, label: "server", level: .debug)
            }
            let transport = try WhiskerTransport(
                server, validatingAgainst: OpenAPIDocument(yaml: Array(PolicyTests.document.utf8)),
                authenticators: ["bearer": { credential in
                    guard let token = credential.bearerToken else { return nil }
                    return Principal(name: token)
                }],
                policies: PolicyTests.policies
            )
            let (ended, cancelled) = (ended, cancelled)
            let late: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?) = { _, _, _ in
                await withTaskCancellationHandler {
                    // Awaiting another task's value does not pass cancellation on.
                    await Task.detached { try? await Task.sleep(for: .seconds(30)) }.value
                } onCancel: {
                    cancelled.fire()
                }
                ended.add()
                return (HTTPResponse(status: .ok), HTTPBody("late"))
            }
            try transport.register(late, method: .get, path: "/slow")
            try transport.register(late, method: .get, path: "/upstream")
            try transport.register({ _, _, _ in
                let ticks = AsyncStream<ArraySlice<UInt8>> { continuation in
                    continuation.yield(ArraySlice("tick\n".utf8))
                    let task = Task {
                        while !Task.isCancelled {
                            continuation.yield(ArraySlice("tick\n".utf8))
                            try? await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
                return (HTTPResponse(status: .ok), HTTPBody(ticks, length: .unknown, iterationBehavior: .single))
            }, method: .get, path: "/stream")
            try transport.register({ _, _, _ in (HTTPResponse(status: .created), HTTPBody("welcome")) }, method: .post, path: "/adopt")
            try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody(Principal.current?.name ?? "-")) }, method: .get, path: "/mine")
            try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody("old")) }, method: .get, path: "/old")
            try transport.register({ _, _, _ in (HTTPResponse(status: .ok), HTTPBody("older")) }, method: .get, path: "/older")
        }
    }

    @Test(arguments: Wire.allCases)
    func deadline_AnswersAtTheDeadline_AndCancelsTheHandler(over wire: Wire) async throws {
        let served = try Served()
        try await served.server.withRunning { address in
            let slow = try await exchange(wire, with: address, "/slow")
            #expect(slow.status == 503)
            #expect(slow.body.contains("did not answer within its deadline (0.3 s)"), "\(slow.body)")
            #expect(await served.cancelled.wait() != nil, "the handler's task is cancelled")
            let upstream = try await exchange(wire, with: address, "/upstream")
            #expect(upstream.status == 504)
            #expect(served.ended.value == 0, "answered at the deadline, before the handlers ended")
        }
        let logged = served.lines.all.map { "\($0.0) \($0.1)" }
        #expect(logged.filter { $0.contains("deadline passed") && $0.contains("getSlow") && $0.contains("503") }.count == 1, "\(logged)")
        #expect(logged.contains { $0.contains("deadline passed") && $0.contains("getUpstream") && $0.contains("504") })
    }

    @Test(arguments: Wire.allCases)
    func deadline_EndsAStreamOfUnknownLengthCleanly(over wire: Wire) async throws {
        let served = try Served()
        try await served.server.withRunning { address in
            let stream = try await exchange(wire, with: address, "/stream")
            #expect(stream.status == 200)
            let ticks = stream.body.split(separator: "\n")
            #expect(!ticks.isEmpty && ticks.allSatisfy { $0 == "tick" }, "whole ticks of an endless stream, then a clean end: \(stream.body)")
        }
        #expect(served.lines.all.map { "\($0.0) \($0.1)" }.contains { $0.contains("deadline passed") && $0.contains("getStream") && $0.contains("cleanly") })
    }

    @Test(arguments: Wire.allCases)
    func rateLimit_429WithRetryAfterAndTheRateLimitFields(over wire: Wire) async throws {
        let served = try Served()
        try await served.server.withRunning { address in
            let first = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(first.status == 201)
            #expect(first.values("ratelimit-policy") == ["\"adopt\";q=2;w=60"])
            #expect(first.values("ratelimit").first?.hasPrefix("\"adopt\";r=1;t=") == true, "\(first.fields)")
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 201)
            let refused = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(refused.status == 429)
            let retryAfter = refused.values("retry-after").first.flatMap { Int($0) }
            #expect(retryAfter.map { (1...30).contains($0) } == true, "a token is back in 30 s: \(refused.fields)")
            #expect(refused.values("ratelimit").first?.hasPrefix("\"adopt\";r=0;t=") == true)
            #expect(refused.body.contains("\"status\":429"))
        }
        #expect(served.lines.all.map { "\($0.0) \($0.1)" }.contains { $0.contains("request refused") && $0.contains("adopt") && $0.contains("429") })
    }

    @Test(arguments: Wire.allCases)
    func rateLimit_ByPrincipal_OneBucketEach(over wire: Wire) async throws {
        let served = try Served()
        try await served.server.withRunning { address in
            let alice = try await exchange(wire, with: address, "/mine", fields: [("authorization", "Bearer alice")])
            #expect(alice.status == 200)
            #expect(alice.body == "alice", "Principal.current")
            #expect(try await exchange(wire, with: address, "/mine", fields: [("authorization", "Bearer alice")]).status == 429)
            #expect(try await exchange(wire, with: address, "/mine", fields: [("authorization", "Bearer bob")]).status == 200, "bob has his own bucket")
        }
    }

    @Test(arguments: Wire.allCases)
    func deprecation_FromTheDocument_AndSunsetWhenConfigured(over wire: Wire) async throws {
        let served = try Served()
        try await served.server.withRunning { address in
            let old = try await exchange(wire, with: address, "/old")
            #expect(old.status == 200)
            #expect(old.values("deprecation") == ["@0"])
            #expect(old.values("sunset").isEmpty)
            let older = try await exchange(wire, with: address, "/older")
            #expect(older.values("deprecation") == ["@1767225600"])
            #expect(older.values("sunset") == ["Fri, 01 Jan 2027 00:00:00 GMT"])
            #expect(older.values("link") == ["<https://example.com/v2>; rel=\"deprecation\""])
            let current = try await exchange(wire, with: address, "/adopt", method: "POST")
            #expect(current.values("deprecation").isEmpty)
        }
    }

    @Test func aPolicyForAnOperationTheDocumentLacks_IsAnError() throws {
        #expect(throws: DocumentError.self) {
            try WhiskerTransport(
                makeTestServer(), validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)),
                policies: ["adoptCats": OperationPolicy(deadline: .seconds(1))]
            )
        }
    }
}

/// A count shared between handlers and the test.
final class Count: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}
