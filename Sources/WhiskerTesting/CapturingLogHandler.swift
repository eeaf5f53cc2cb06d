public import Logging
import Synchronization

/// A `LogHandler` that keeps what is logged, for assertions: each message with its metadata goes
/// to a ``LoggedLines`` that the test reads afterwards.
///
///     let lines = LoggedLines()
///     var accessLog = Logger(label: "access") { _ in CapturingLogHandler(lines: lines) }
///     accessLog.logLevel = .info
///     let server = makeTestServer { $0.accessLog = accessLog }
///     ... send requests ...
///     #expect(lines.all.first?.0 == "GET /hello 200")
public struct CapturingLogHandler: LogHandler {
    /// Where the messages go.
    public let lines: LoggedLines
    /// The logger's own metadata, kept with each message under what the message gives (as
    /// swift-log's handlers merge it).
    public var metadata: Logger.Metadata = [:]
    /// The lowest level the handler keeps; everything, unless the logger says otherwise.
    public var logLevel: Logger.Level = .trace

    /// Creates a handler that appends to `lines`.
    /// - Parameters:
    ///   - lines: Where the messages go; several handlers may share it.
    public init(lines: LoggedLines) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        lines.append(("\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

/// What a ``CapturingLogHandler`` kept: each message with the metadata logged with it, in order.
public final class LoggedLines: Sendable {
    private let lines = Mutex<[(String, Logger.Metadata)]>([])
    private let appended = Signal<Void>()

    /// Creates an empty list.
    public init() {}

    /// Every message kept so far, with its metadata.
    public var all: [(String, Logger.Metadata)] { lines.withLock { $0 } }

    /// Keeps one message and its metadata.
    public func append(_ line: (String, Logger.Metadata)) {
        lines.withLock { $0.append(line) }
        appended.fire()
    }

    /// Waits until at least `count` messages were kept (a server logs a request after its response
    /// left, so a client may see the response first); `false` if they do not come within `timeout`
    /// of each other.
    public func wait(forCount count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        while all.count < count {
            guard await appended.wait(timeout: timeout) != nil else { return all.count >= count }
        }
        return true
    }
}

extension Logger {
    /// A logger whose messages (from `level` up) are kept in `lines`, for tests that check what
    /// the server logged.
    public static func capturing(_ lines: LoggedLines, label: String = "test", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = level
        return logger
    }
}
