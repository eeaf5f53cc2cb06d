public import OpenAPIWhiskerPolicies

/// Idempotency records in Redis: one string per key, `whisker:idem:` and the key, holding `i` and
/// the fingerprint while its request runs (expiring with the lease), then `c`, the fingerprint, a
/// line break and the response (`IdempotentResponse.encoded()`), expiring after the policy's
/// expiry. Each operation is one script run, atomic.
extension RedisStore {
    /// Claims `key` (`SET` unless there is a record), or returns its record, in one round trip.
    public func claim(_ key: String, fingerprint: String, lease: Duration) async throws -> IdempotencyRecord? {
        let reply = try await run(Self.claimScript, keys: [idempotencyKey(key)], arguments: [Array(fingerprint.utf8), Self.milliseconds(lease)])
        switch reply {
        case .null: return nil
        case .string(let value):
            guard let record = Self.record(value) else { throw counted(RedisError.unexpectedReply("a record that is not one: \(value.prefix(80))")) }
            return record
        default: throw counted(RedisError.unexpectedReply("\(reply)"))
        }
    }

    /// Stores `response` in place of the claim made with `fingerprint`, if it is still there.
    public func complete(_ key: String, fingerprint: String, response: IdempotentResponse, keepFor: Duration) async throws {
        let value = Array("c\(fingerprint)\n".utf8) + response.encoded()
        _ = try await run(Self.completeScript, keys: [idempotencyKey(key)], arguments: [Array(fingerprint.utf8), value, Self.milliseconds(keepFor)])
    }

    /// Deletes the claim made with `fingerprint`, if it is still there.
    public func release(_ key: String, fingerprint: String) async throws {
        _ = try await run(Self.releaseScript, keys: [idempotencyKey(key)], arguments: [Array(fingerprint.utf8)])
    }

    private func idempotencyKey(_ key: String) -> String { configuration.keyPrefix + "idem:" + key }

    private static func milliseconds(_ duration: Duration) -> [UInt8] {
        let (seconds, attoseconds) = duration.components
        return Array(String(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)).utf8)
    }

    /// A record as the scripts store it.
    static func record(_ value: [UInt8]) -> IdempotencyRecord? {
        guard let state = value.first else { return nil }
        let rest = value.dropFirst()
        switch state {
        case UInt8(ascii: "i"):
            return .inFlight(fingerprint: String(decoding: rest, as: UTF8.self))
        case UInt8(ascii: "c"):
            guard let end = rest.firstIndex(of: UInt8(ascii: "\n")), let response = IdempotentResponse(encoded: rest[rest.index(after: end)...]) else { return nil }
            return .completed(fingerprint: String(decoding: rest[..<end], as: UTF8.self), response: response)
        default:
            return nil
        }
    }

    /// ARGV: the fingerprint, the lease in milliseconds. Returns the record, or nothing once claimed.
    static let claimScript = """
        local record = redis.call('GET', KEYS[1])
        if record then return record end
        redis.call('SET', KEYS[1], 'i' .. ARGV[1], 'PX', ARGV[2])
        return false
        """

    /// ARGV: the fingerprint, the record, its expiry in milliseconds.
    static let completeScript = """
        if redis.call('GET', KEYS[1]) == 'i' .. ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
        return 1
        """

    /// ARGV: the fingerprint.
    static let releaseScript = """
        if redis.call('GET', KEYS[1]) == 'i' .. ARGV[1] then redis.call('DEL', KEYS[1]) end
        return 1
        """
}
