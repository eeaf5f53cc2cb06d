import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
import WhiskerCore
import WhiskerHTTP
import WhiskerHTTP2
import WhiskerTesting
@testable import OpenAPIWhisker
@testable import OpenAPIWhiskerDocument
@testable import OpenAPIWhiskerPolicies

/// Idempotency keys: each answer of the draft (a replay, 409, 422, 400), the handler run once for
/// 50 retries at once, what is not kept, expiry and the memory bounds; then through the transport
/// over both protocols, scoped by principal, from a policy or the document's `x-idempotency`.
@Suite struct IdempotencyTests {
    /// A handler that counts its runs and answers 201 with the body it got (or what `answer` says).
    final class Handler: Sendable {
        let runs = Atomic(0)
        let answer: @Sendable (Int) async throws -> (HTTPResponse, HTTPBody?)

        init(answer: @escaping @Sendable (Int) async throws -> (HTTPResponse, HTTPBody?) = { run in (HTTPResponse(status: .created), HTTPBody("run \(run)")) }) {
            self.answer = answer
        }

        func call(_ middleware: IdempotencyMiddleware, key: String?, body: String = #"{"name":"Tom"}"#) async throws -> (HTTPResponse, String) {
            var request = HTTPRequest(method: .post, scheme: "http", authority: "cats", path: "/api/adopt")
            if let key { request.headerFields[HTTPField.Name("Idempotency-Key")!] = key }
            let (head, answer) = try await middleware.intercept(request, body: HTTPBody(body), metadata: ServerRequestMetadata(), operationID: "adoptCat") { _, _, _ in
                try await self.answer(self.runs.add(1, ordering: .relaxed).newValue)
            }
            guard let answer else { return (head, "") }
            return (head, try await String(collecting: answer, upTo: 1 << 20))
        }
    }

    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    @Test func aRetry_GetsTheFirstAnswer_TheHandlerRunsOnce() async throws {
        let handler = Handler()
        let middleware = IdempotencyMiddleware(IdempotencyKeys(.required), for: ["adoptCat"])
        let (first, firstBody) = try await handler.call(middleware, key: #""order-1""#)
        #expect(first.status == .created && firstBody == "run 1" && first.headerFields[Self.replayed] == nil)
        let (retry, retryBody) = try await handler.call(middleware, key: "order-1")   // bare, as many clients send it: the same key
        #expect(retry.status == .created && retryBody == "run 1")
        #expect(retry.headerFields[Self.replayed] == "true")
        #expect(handler.runs.load(ordering: .relaxed) == 1)
        // Another key is another request.
        #expect(try await handler.call(middleware, key: "order-2").1 == "run 2")
    }

    @Test func theSameKey_WithAnotherBody_Is422() async throws {
        let handler = Handler()
        let middleware = IdempotencyMiddleware(IdempotencyKeys(.optional))
        _ = try await handler.call(middleware, key: "k", body: #"{"name":"Tom"}"#)
        let (other, detail) = try await handler.call(middleware, key: "k", body: #"{"name":"Felix"}"#)
        #expect(other.status == .unprocessableContent)
        #expect(detail.contains("used with another request"))
        #expect(handler.runs.load(ordering: .relaxed) == 1)
    }

    @Test func theSameKey_WhileTheFirstRuns_Is409_And50RetriesAtOnceRunTheHandlerOnce() async throws {
        let started = AsyncStream<Void>.makeStream()
        let finish = AsyncStream<Void>.makeStream()
        let handler = Handler { run in
            started.continuation.yield()
            for await _ in finish.stream { break }
            return (HTTPResponse(status: .created), HTTPBody("run \(run)"))
        }
        let middleware = IdempotencyMiddleware(IdempotencyKeys(.required))
        try await withThrowingTaskGroup(of: (HTTPResponse, String).self) { group in
            group.addTask { try await handler.call(middleware, key: "once") }
            for await _ in started.stream { break }
            // 49 retries while the first is still running: each 409, with Retry-After.
            for _ in 0..<49 { group.addTask { try await handler.call(middleware, key: "once") } }
            var conflicts = 0
            for _ in 0..<49 {
                let (head, detail) = try await group.next()!
                #expect(head.status == .conflict && head.headerFields[.retryAfter] == "1", "\(head.status) \(detail)")
                conflicts += 1
            }
            finish.continuation.yield()
            let (first, body) = try await group.next()!
            #expect(first.status == .created && body == "run 1")
            #expect(conflicts == 49)
        }
        #expect(handler.runs.load(ordering: .relaxed) == 1, "50 requests with one key, one run")
        #expect(try await handler.call(middleware, key: "once").1 == "run 1", "then a retry gets the answer")
    }

    @Test func aMissingOrMalformedKey() async throws {
        let handler = Handler()
        let required = IdempotencyMiddleware(IdempotencyKeys(.required))
        let (missing, detail) = try await handler.call(required, key: nil)
        #expect(missing.status == .badRequest && detail.contains("requires an Idempotency-Key"))
        for bad in ["", String(repeating: "k", count: 256), "caf\u{e9}", "tab\tkey"] {
            #expect(try await handler.call(required, key: bad).0.status == .badRequest, "\(bad)")
        }
        #expect(handler.runs.load(ordering: .relaxed) == 0)
        // Optional: a request without a key runs as it would without the policy, every time.
        let optional = IdempotencyMiddleware(IdempotencyKeys(.optional))
        _ = try await handler.call(optional, key: nil)
        _ = try await handler.call(optional, key: nil)
        #expect(handler.runs.load(ordering: .relaxed) == 2)
    }

    @Test func whatIsNotKept_AFailureA5xxAStreamOrALongBody_RunsAgain() async throws {
        struct Failed: Error {}
        let answers: [@Sendable (Int) async throws -> (HTTPResponse, HTTPBody?)] = [
            { _ in throw Failed() },
            { _ in (HTTPResponse(status: .serviceUnavailable), nil) },
            { _ in (HTTPResponse(status: .ok), HTTPBody(AsyncStream { $0.finish() }, length: .unknown, iterationBehavior: .single)) },
            { _ in (HTTPResponse(status: .ok), HTTPBody(String(repeating: "🐱", count: 100))) },
        ]
        for answer in answers {
            let handler = Handler(answer: answer)
            let middleware = IdempotencyMiddleware(IdempotencyKeys(.required, maxStoredBodySize: 64))
            _ = try? await handler.call(middleware, key: "k")
            _ = try? await handler.call(middleware, key: "k")
            #expect(handler.runs.load(ordering: .relaxed) == 2)
        }
    }

    @Test func records_ExpireAndStayWithinTheirBounds() async throws {
        let store = InMemoryIdempotencyStore(maxRecords: 3, maxBytes: 1 << 20)
        let now = ContinuousClock.now
        #expect(store.claimNow("a", fingerprint: "f", lease: .seconds(60), now: now) == nil)
        try await store.complete("a", fingerprint: "f", response: IdempotentResponse(status: .created, headerFields: [:], body: [1]), keepFor: .seconds(10))
        #expect(store.claimNow("a", fingerprint: "f", lease: .seconds(60), now: now + .seconds(5))?.fingerprint == "f", "kept within its expiry")
        #expect(store.claimNow("a", fingerprint: "g", lease: .seconds(60), now: now + .seconds(11)) == nil, "expired: the key is new again")
        // A lease ends too: a claim whose server never answered frees its key.
        #expect(store.claimNow("b", fingerprint: "f", lease: .seconds(1), now: now) == nil)
        #expect(store.claimNow("b", fingerprint: "f", lease: .seconds(1), now: now + .seconds(2)) == nil)
        // 3 records at most, the oldest completed ones forgotten first, a claim in flight kept.
        for key in ["c", "d", "e", "f"] {
            _ = store.claimNow(key, fingerprint: "f", lease: .seconds(60), now: now)
            try await store.complete(key, fingerprint: "f", response: IdempotentResponse(status: .ok, headerFields: [:], body: []), keepFor: .seconds(60))
        }
        #expect(store.usage.records == 3)
        // Bytes: two records of 600 KiB do not fit in 1 MiB.
        let big = IdempotentResponse(status: .ok, headerFields: [:], body: Array(repeating: 7, count: 600 << 10))
        for key in ["g", "h"] {
            _ = store.claimNow(key, fingerprint: "f", lease: .seconds(60), now: .now)
            try await store.complete(key, fingerprint: "f", response: big, keepFor: .seconds(60))
        }
        #expect(store.usage.bytes <= 1 << 20 && store.usage.records >= 1, "\(store.usage)")
    }

    @Test func theFingerprintAndTheRecordsBytes() throws {
        // FIPS 180-4's examples: one block, two blocks, none.
        #expect(Self.hex(SHA256.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let response = IdempotentResponse(status: .created, headerFields: [.contentType: "application/json", .location: "/cats/7"], body: Array("{\"a\":\n1}".utf8) + [0, 255])
        #expect(IdempotentResponse(encoded: response.encoded()) == response)
        #expect(IdempotentResponse(encoded: Array("nonsense".utf8)) == nil)
    }

    static let document = MiddlewareTests.document.replacingOccurrences(of: "operationId: adoptCat", with: "operationId: adoptCat\n      x-idempotency: required")

    @Test(arguments: Wire.allCases)
    func throughTheTransport_ScopedByPrincipal_FromAPolicyOrTheDocument(over wire: Wire) async throws {
        let trail = MiddlewareTests.Trail()
        let server = makeTestServer { $0.http2 = HTTP2Settings() }
        let transport = try WhiskerTransport(
            server, validatingAgainst: OpenAPIDocument(yaml: Array(Self.document.utf8)), authenticators: MiddlewareTests.authenticators,
            policies: ["fileReport": OperationPolicy(idempotency: IdempotencyKeys(.optional))]
        )
        try MiddlewareTests.registerHandlers(on: transport, middlewares: [MiddlewareTests.Checkpoint(trail: trail, name: "ran")])
        try await server.withRunning { address in
            func file(as who: String, key: String, title: String = "fur") async throws -> WireResponse {
                try await exchange(wire, with: address, "/reports", method: "POST", fields: [
                    ("content-type", "application/json"), ("authorization", "Bearer \(who)"), ("idempotency-key", key),
                ], body: #"{"title":"\#(title)"}"#)
            }
            let alice = try await file(as: "alice", key: "r1")
            #expect(alice.status == 201 && alice.body == #"fileReport by alice: {"title":"fur"}"#)
            // Bob's key of the same name is his own.
            let bob = try await file(as: "bob", key: "r1")
            #expect(bob.status == 201 && bob.body == #"fileReport by bob: {"title":"fur"}"#)
            let again = try await file(as: "alice", key: "r1")
            #expect(again.status == 201 && again.body == alice.body && again.values("idempotent-replayed") == ["true"])
            #expect(try await file(as: "alice", key: "r1", title: "whiskers").status == 422)
            // An invalid request is refused by the checks before it claims a key.
            #expect(try await exchange(wire, with: address, "/reports", method: "POST", fields: [
                ("content-type", "application/json"), ("authorization", "Bearer carol"), ("idempotency-key", "r2"),
            ], body: "{}").status == 400)
            #expect(try await file(as: "carol", key: "r2").status == 201)
            // adoptCat: the document's `x-idempotency: required`.
            #expect(try await exchange(wire, with: address, "/adopt", method: "POST").status == 400)
            let adopted = try await exchange(wire, with: address, "/adopt", method: "POST", fields: [("idempotency-key", "a1")])
            let readopted = try await exchange(wire, with: address, "/adopt", method: "POST", fields: [("idempotency-key", "a1")])
            #expect(adopted.status == 201 && readopted.status == 201 && readopted.values("idempotent-replayed") == ["true"])
        }
        #expect(trail.all == ["ran fileReport", "ran fileReport", "ran fileReport", "ran adoptCat"], "one run per key and principal")
    }

    @Test func anXIdempotencyOtherThanRequiredOrOptional_IsADocumentError() throws {
        let document = MiddlewareTests.document.replacingOccurrences(of: "operationId: adoptCat", with: "operationId: adoptCat\n      x-idempotency: always")
        #expect(throws: DocumentError.self) { try WhiskerTransport(makeTestServer(), validatingAgainst: OpenAPIDocument(yaml: Array(document.utf8))) }
    }
}
