import HTTPTypes
import Logging
import Synchronization
import MetricsTestKit
import OpenAPIRuntime
import Testing
import WhiskerSockets
@testable import OpenAPIWhiskerPolicies
@testable import WhiskerRedis

/// The Redis store against a real redis-server on loopback (a Unix domain socket): instances that
/// share it count together, and a Redis that is down or hung gives the limit's failure mode, is
/// counted and logged, and is forgotten when it answers again.
@Suite(.serialized) struct RedisStoreTests {
    static func store(_ redis: RedisServer, metrics: TestMetrics? = nil) -> RedisStore {
        RedisStore(
            RedisStore.Configuration(
                address: .unix(path: redis.socket), connections: 2, commandTimeout: .milliseconds(200), retryInterval: .zero
            ),
            metrics: metrics
        )
    }

    static func key(_ host: String) -> RateLimitKey {
        RateLimitKey(RateLimiter.key(client: try! SocketAddress(host: host, port: 1), principal: nil, by: .client))
    }

    @Test func twoInstancesSharingRedis_AdmitTheLimitOnce_EachClientItsOwn() async throws {
        let redis = try RedisServer()
        // A token every 6 minutes: none comes back while the test runs, however slow the machine.
        let limit = RateLimit(10, per: .seconds(3600))
        let policy = RateLimitPolicy(limit, name: "adoptCat")
        let replicas = [Self.store(redis), Self.store(redis)]
        var decisions: [RateLimitDecision] = []
        for index in 0..<30 { decisions.append(try await replicas[index % 2].take(Self.key("192.0.2.7"), policy: policy)) }
        #expect(decisions.filter(\.allowed).count == 10, "10 in all across the two, not 20")
        #expect(decisions.prefix(10).map(\.remaining) == Array((0..<10).reversed()))
        #expect(decisions.prefix(10).allSatisfy { $0.allowed && (1...360).contains($0.reset) })
        #expect(decisions.dropFirst(10).allSatisfy { !$0.allowed && $0.retryAfter.map { (1...360).contains($0) } == true })
        // The fields a refused request gets, as the in-memory store's.
        let refused = policy.fields(for: decisions[29])
        #expect(refused[HTTPField.Name("RateLimit-Policy")!] == #""adoptCat";q=10;w=3600"#)
        #expect(refused[HTTPField.Name("RateLimit")!] == "\"adoptCat\";r=0;t=\(decisions[29].retryAfter ?? 0)")
        // Another client, and the same client under another policy, have full buckets.
        #expect(try await replicas[0].take(Self.key("192.0.2.8"), policy: policy).remaining == 9)
        #expect(try await replicas[1].take(Self.key("192.0.2.7"), policy: RateLimitPolicy(limit, name: "getReport")).remaining == 9)
    }

    @Test func aBucket_RefillsWithRedisClock_AndItsKeyExpiresWhenFull() async throws {
        let redis = try RedisServer()
        let store = Self.store(redis)
        // 2 per 2 s: a token every second.
        let policy = RateLimitPolicy(RateLimit(2, per: .seconds(2)), name: "op")
        #expect(try await store.take(Self.key("192.0.2.9"), policy: policy).allowed)
        #expect(try await store.take(Self.key("192.0.2.9"), policy: policy).allowed)
        #expect(try await !store.take(Self.key("192.0.2.9"), policy: policy).allowed)
        try await Task.sleep(for: .milliseconds(2100))  // the time under test: a window passing
        #expect(try await store.take(Self.key("192.0.2.9"), policy: policy).remaining == 1, "full again after the window")
        let ttl = try await store.run("return redis.call('PTTL', KEYS[1])", keys: ["whisker:rl:op:4:192.0.2.9"], arguments: [])
        guard case .integer(let milliseconds) = ttl else { Issue.record("PTTL answered \(ttl)"); return }
        #expect((1...1000).contains(milliseconds), "the key lives until the bucket is full: \(milliseconds) ms")
    }

    @Test(arguments: [StoreFailure.allow, .refuse])
    func redisKilled_TheLimitsFailureMode_CountedAndLogged_ThenRecovery(mode: StoreFailure) async throws {
        let redis = try RedisServer()
        let metrics = TestMetrics()
        let limit = RateLimit(5, per: .seconds(60), store: Self.store(redis, metrics: metrics), whenStoreFails: mode)
        let middleware = RateLimitMiddleware(limit, for: ["adoptCat"])
        func adopt() async throws -> HTTPResponse {
            try await middleware.intercept(
                HTTPRequest(method: .post, scheme: "http", authority: "cats", path: "/api/adopt"), body: nil,
                metadata: ServerRequestMetadata(), operationID: "adoptCat"
            ) { _, _, _ in (HTTPResponse(status: .created), nil) }.0
        }
        let before = try await adopt()
        #expect(before.status == .created && before.headerFields[HTTPField.Name("RateLimit")!] != nil)

        redis.kill()
        let during = try await adopt()
        switch mode {
        case .allow:
            #expect(during.status == .created, "fail open: the request goes on")
            #expect(during.headerFields[HTTPField.Name("RateLimit")!] == nil, "unlimited, so no limit is told")
        case .refuse:
            #expect(during.status == .serviceUnavailable, "fail closed: 503")
            #expect(during.headerFields[.retryAfter] == "1")
        }
        // The connection that had reached Redis fails reading or writing; a new one, connecting.
        let failures = ["io", "connect"].reduce(0) { total, reason in
            total + ((try? metrics.expectCounter("whisker.store.failures", [("store", "redis"), ("reason", reason)]).totalValue) ?? 0)
        }
        #expect(failures >= 1)
        #expect(try metrics.expectGauge("whisker.store.up", [("store", "redis")]).lastValue == 0)

        try redis.start()
        let after = try await adopt()
        #expect(after.status == .created, "back: the limit counts again")
        #expect(after.headerFields[HTTPField.Name("RateLimit")!] == #""adoptCat";r=4;t=12"#, "a new Redis, a full bucket")
        #expect(try metrics.expectGauge("whisker.store.up", [("store", "redis")]).lastValue == 1)
    }

    @Test func aHungRedis_TimesOut_ThenAnswersWhenResumed() async throws {
        let redis = try RedisServer()
        let store = Self.store(redis)
        let policy = RateLimitPolicy(RateLimit(5, per: .seconds(60)), name: "op")
        #expect(try await store.take(Self.key("192.0.2.10"), policy: policy).allowed)
        redis.pause(true)
        await #expect(throws: RedisError.self) { try await store.take(Self.key("192.0.2.10"), policy: policy) }
        do {
            _ = try await store.take(Self.key("192.0.2.10"), policy: policy)
        } catch let error as RedisError {
            #expect(error.reason == "timeout", "\(error)")
        }
        redis.pause(false)
        #expect(try await store.take(Self.key("192.0.2.10"), policy: policy).allowed)
    }

    @Test func urls() throws {
        let plain = try RedisStore.Configuration(url: "redis://cache.internal")
        #expect(plain.address == .tcp(host: "cache.internal", port: 6379) && plain.database == 0 && plain.password == nil)
        let full = try RedisStore.Configuration(url: "redis://cats:s3cr@t@10.0.0.5:6380/2")
        #expect(full.address == .tcp(host: "10.0.0.5", port: 6380) && full.user == "cats" && full.password == "s3cr@t" && full.database == 2)
        let passwordOnly = try RedisStore.Configuration(url: "redis://:pw@[::1]:7000")
        #expect(passwordOnly.address == .tcp(host: "::1", port: 7000) && passwordOnly.user == nil && passwordOnly.password == "pw")
        #expect(passwordOnly.address.description == "[::1]:7000")
        #expect(try RedisStore.Configuration(url: "unix:///run/redis.sock").address == .unix(path: "/run/redis.sock"))
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h:99999", "redis://h/x", "redis://[::1", "unix://relative"] {
            #expect(throws: RedisStore.Configuration.URLError.self, "\(bad)") { try RedisStore.Configuration(url: bad) }
        }
        let error = try #require(throws: RedisStore.Configuration.URLError.self) { try RedisStore.Configuration(url: "redis://u:hunter2@h:0") }
        #expect(!error.description.contains("hunter2"), "a password never reaches a log line: \(error)")
    }

    /// Two instances' idempotency middlewares over one Redis, and a handler that counts its runs
    /// and, when asked, waits to be let go.
    final class Replicas: Sendable {
        let instances: [IdempotencyMiddleware]
        let runs = Atomic(0)
        let started = AsyncStream<Void>.makeStream()
        let finish = AsyncStream<Void>.makeStream()
        /// A body with every byte value: the record is binary-safe.
        let body = (0...255).map { UInt8($0) }

        init(_ stores: [RedisStore]) { instances = stores.map { IdempotencyMiddleware(IdempotencyKeys(.required, store: $0)) } }

        func post(_ instance: Int, key: String, wait: Bool = false) async throws -> (HTTPResponse, [UInt8]) {
            var request = HTTPRequest(method: .post, scheme: "http", authority: "cats", path: "/api/adopt")
            request.headerFields[HTTPField.Name("Idempotency-Key")!] = key
            let (head, answer) = try await instances[instance].intercept(request, body: HTTPBody("Tom"), metadata: ServerRequestMetadata(), operationID: "adoptCat") { _, _, _ in
                self.runs.add(1, ordering: .relaxed)
                if wait {
                    self.started.continuation.yield()
                    for await _ in self.finish.stream { break }
                }
                return (HTTPResponse(status: .created, headerFields: [.contentType: "application/octet-stream"]), HTTPBody(self.body))
            }
            guard let answer else { return (head, []) }
            return (head, Array(try await ArraySlice<UInt8>(collecting: answer, upTo: 1024)))
        }
    }

    @Test func idempotencyRecords_SharedByInstances_OneRunFor50RetriesAcrossThem() async throws {
        let redis = try RedisServer()
        let replicas = Replicas([Self.store(redis), Self.store(redis)])
        let first = try await replicas.post(0, key: "k1")
        let retry = try await replicas.post(1, key: "k1")
        #expect(first.0.status == .created && first.1 == replicas.body)
        #expect(retry.0.status == .created && retry.1 == replicas.body && retry.0.headerFields[.contentType] == "application/octet-stream")
        #expect(retry.0.headerFields[HTTPField.Name("Idempotent-Replayed")!] == "true", "the other instance replays the first's answer")
        #expect(replicas.runs.load(ordering: .relaxed) == 1)

        try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
            group.addTask { try await replicas.post(0, key: "k2", wait: true).0.status }
            for await _ in replicas.started.stream { break }
            for index in 0..<49 { group.addTask { try await replicas.post(index % 2, key: "k2").0.status } }
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<49 { statuses.append(try await group.next()!) }
            #expect(statuses.allSatisfy { $0 == .conflict }, "\(statuses)")
            replicas.finish.continuation.yield()
            #expect(try await group.next() == .created)
        }
        #expect(replicas.runs.load(ordering: .relaxed) == 2, "one run for k1, one for k2's 50 requests on two instances")

        redis.kill()
        #expect(try await replicas.post(1, key: "k3").0.status == .created, "fail open: the request runs, unprotected")
        let closed = IdempotencyMiddleware(IdempotencyKeys(.required, store: Self.store(redis), whenStoreFails: .refuse))
        var request = HTTPRequest(method: .post, scheme: "http", authority: "cats", path: "/api/adopt")
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = "k4"
        let (refused, _) = try await closed.intercept(request, body: nil, metadata: ServerRequestMetadata(), operationID: "adoptCat") { _, _, _ in
            Issue.record("a refused request ran")
            return (HTTPResponse(status: .created), nil)
        }
        #expect(refused.status == .serviceUnavailable && refused.headerFields[.retryAfter] == "1")
    }
}
