import CHiredis
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection of a ``RedisStore``'s pool: a hiredis context used from one serial queue, which
/// is also the line commands wait in. hiredis' blocking API is bounded by the store's timeouts
/// (connecting, and each read and write: `SO_RCVTIMEO`, `SO_SNDTIMEO`), so a command holds the
/// queue's thread for at most about twice the command timeout.
///
/// `@unchecked Sendable`: its mutable state (the context, the scripts' SHA-1s, when to try to
/// connect again) is read and written only by blocks on `queue`.
final class RedisConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    private let settings: RedisStore.Configuration
    private var context: UnsafeMutablePointer<redisContext>?
    /// Each script's SHA-1 as this server knows it (`SCRIPT LOAD`), for `EVALSHA`.
    private var loaded: [String: String] = [:]
    /// After a failed connect, no new attempt before this instant: requests fail at once meanwhile.
    private var retryAt: ContinuousClock.Instant?

    init(_ settings: RedisStore.Configuration, index: Int) {
        self.settings = settings
        queue = DispatchQueue(label: "whisker.redis.\(index)")
    }

    deinit {
        if let context { redisFree(context) }
    }

    /// Runs `script` (`EVALSHA`, loading it first on a new connection or when Redis forgot it)
    /// with `keys` and `arguments`, on this connection's queue.
    /// - Throws: ``RedisError`` when the command could not run within the timeouts, or Redis
    ///   answered with an error.
    func evaluate(_ script: String, keys: [String], arguments: [[UInt8]]) async throws -> RedisReply {
        let enqueued = ContinuousClock.now
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.evaluateNow(script, keys: keys, arguments: arguments, enqueued: enqueued) })
            }
        }
    }

    private func evaluateNow(_ script: String, keys: [String], arguments: [[UInt8]], enqueued: ContinuousClock.Instant) throws -> RedisReply {
        // A command that waited its whole timeout in line would only make the line longer.
        guard ContinuousClock.now - enqueued < settings.commandTimeout else { throw RedisError.timedOut("waiting for a connection") }
        let reused = context != nil
        do {
            return try evaluateConnected(script, keys: keys, arguments: arguments)
        } catch RedisError.io where reused {
            // The connection had gone stale (Redis restarted, or closed it as idle): the first
            // command finds out. Once more, on a new one. Should Redis have run the script before
            // the connection broke, the bucket loses one token: it errs towards the limit.
            return try evaluateConnected(script, keys: keys, arguments: arguments)
        }
    }

    private func evaluateConnected(_ script: String, keys: [String], arguments: [[UInt8]]) throws -> RedisReply {
        try connectIfNeeded()
        let arguments = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        do {
            return try command([Array("EVALSHA".utf8), Array(try sha(of: script).utf8)] + arguments)
        } catch RedisError.reply(let message) where message.hasPrefix("NOSCRIPT") {
            // Redis' script cache was flushed (SCRIPT FLUSH): load it again, once.
            loaded[script] = nil
            return try command([Array("EVALSHA".utf8), Array(try sha(of: script).utf8)] + arguments)
        }
    }

    /// `script`'s SHA-1, loaded into this connection's server the first time.
    private func sha(of script: String) throws -> String {
        if let sha = loaded[script] { return sha }
        guard let sha = try command(["SCRIPT", "LOAD", script]).text else { throw RedisError.unexpectedReply("SCRIPT LOAD answered no SHA-1") }
        loaded[script] = sha
        return sha
    }

    /// Connects, authenticates and selects the database, unless connected; after a failed attempt,
    /// fails at once until ``RedisStore/Configuration/retryInterval`` has passed.
    private func connectIfNeeded() throws {
        guard context == nil else { return }
        if let retryAt, ContinuousClock.now < retryAt { throw RedisError.unavailable("not retrying yet after a failed connection") }
        let timeout = Self.timeval(settings.connectTimeout)
        let connected: UnsafeMutablePointer<redisContext>? =
            switch settings.address {
            case .tcp(let host, let port): redisConnectWithTimeout(host, Int32(port), timeout)
            case .unix(let path): redisConnectUnixWithTimeout(path, timeout)
            }
        guard let connected, connected.pointee.err == 0 else {
            let reason = connected.map { Self.message(of: $0) } ?? "out of memory"
            if let connected { redisFree(connected) }
            retryAt = .now + settings.retryInterval
            throw RedisError.connect(reason)
        }
        context = connected
        retryAt = nil
        do {
            guard redisSetTimeout(connected, Self.timeval(settings.commandTimeout)) == 0 else { throw RedisError.io(Self.message(of: connected)) }
            // TCP only: on a Unix domain socket it fails, and leaves the context in error.
            if case .tcp = settings.address, redisEnableKeepAlive(connected) != 0 { throw RedisError.io(Self.message(of: connected)) }
            if let password = settings.password {
                _ = try command(settings.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
            }
            if settings.database != 0 { _ = try command(["SELECT", String(settings.database)]) }
        } catch {
            drop()
            retryAt = .now + settings.retryInterval
            throw error
        }
    }

    /// Sends one command and reads its reply. An I/O error or a timeout drops the connection (its
    /// stream is out of step): the next command connects again.
    private func command(_ arguments: [String]) throws -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    private func command(_ arguments: [[UInt8]]) throws -> RedisReply {
        guard let context else { throw RedisError.unavailable("not connected") }
        let raw = Self.withArgumentVector(arguments) { argv, lengths in
            redisCommandArgv(context, Int32(arguments.count), argv, lengths)
        }
        guard let raw else {
            let error = context.pointee.err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK)
                ? RedisError.timedOut("no reply within \(settings.commandTimeout)") : RedisError.io(Self.message(of: context))
            drop()
            throw error
        }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        let value = RedisReply(reply.pointee)
        if case .error(let message) = value { throw RedisError.reply(message) }
        return value
    }

    private func drop() {
        if let context { redisFree(context) }
        context = nil
        // A new connection may reach a new server (a restart), which knows no script.
        loaded = [:]
    }

    /// `arguments` as the pointers and lengths `redisCommandArgv` takes (binary-safe: a body may
    /// hold any byte), for the call's duration.
    private static func withArgumentVector<Result>(
        _ arguments: [[UInt8]], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        let copies = arguments.map { argument in
            let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { bytes in UnsafeMutableRawBufferPointer(copy).copyMemory(from: bytes) }
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0.baseAddress) }
        let lengths = arguments.map(\.count)
        return pointers.withUnsafeMutableBufferPointer { argv in
            lengths.withUnsafeBufferPointer { body(argv.baseAddress!, $0.baseAddress!) }
        }
    }

    private static func message(of context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return .init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}

/// A Redis reply, copied out of hiredis' memory.
enum RedisReply: Equatable {
    case integer(Int64)
    /// A bulk string: any bytes.
    case string([UInt8])
    case status(String)
    case error(String)
    case array([RedisReply])
    case null

    init(_ reply: redisReply) {
        let bytes = { reply.str.map { Array(UnsafeRawBufferPointer(start: $0, count: reply.len)) } ?? [] }
        let text = { String(decoding: bytes(), as: UTF8.self) }
        switch reply.type {
        case REDIS_REPLY_INTEGER: self = .integer(reply.integer)
        case REDIS_REPLY_STRING: self = .string(bytes())
        case REDIS_REPLY_STATUS: self = .status(text())
        case REDIS_REPLY_ERROR: self = .error(text())
        case REDIS_REPLY_ARRAY: self = .array((0..<reply.elements).map { RedisReply(reply.element[$0]!.pointee) })
        default: self = .null
        }
    }

    /// A string or status reply's text.
    var text: String? {
        switch self {
        case .string(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }
}

/// Why a ``RedisStore`` could not answer.
public enum RedisError: Error, CustomStringConvertible, Sendable {
    /// Connecting (or authenticating) failed.
    case connect(String)
    /// The connection failed while a command was sent or its reply read.
    case io(String)
    /// No reply within the command timeout, or the command waited that long for a connection.
    case timedOut(String)
    /// A recent connection failed and the retry interval has not passed.
    case unavailable(String)
    /// Redis answered with an error.
    case reply(String)
    /// Redis answered, but not what the script returns.
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .connect(let reason): "cannot connect to Redis: \(reason)"
        case .io(let reason): "Redis connection failed: \(reason)"
        case .timedOut(let what): "Redis timed out: \(what)"
        case .unavailable(let why): "Redis unavailable: \(why)"
        case .reply(let message): "Redis answered an error: \(message)"
        case .unexpectedReply(let reply): "Redis answered an unexpected reply: \(reply)"
        }
    }

    /// The metric's `reason`.
    var reason: String {
        switch self {
        case .connect: "connect"
        case .io: "io"
        case .timedOut: "timeout"
        case .unavailable: "unavailable"
        case .reply, .unexpectedReply: "reply"
        }
    }
}
