import Logging
import Synchronization

/// The lowest level cat-service logs, changeable while it runs: a SIGHUP that reads a new
/// `logLevel` from the configuration file sets it, and every logger made through
/// `SwitchedLogHandler` follows at once.
final class LogLevelSwitch: Sendable {
    private let current: Mutex<Logger.Level>

    init(_ level: Logger.Level) {
        current = Mutex(level)
    }

    var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// A standard error log handler whose level is the switch's, unless a logger sets its own (the
/// access log does: it logs every request at info, whatever the level).
struct SwitchedLogHandler: LogHandler {
    private var base: StreamLogHandler
    private let levels: LogLevelSwitch
    private var ownLevel: Logger.Level?

    init(label: String, levels: LogLevelSwitch) {
        base = StreamLogHandler.standardError(label: label)
        base.logLevel = .trace
        self.levels = levels
    }

    var logLevel: Logger.Level {
        get { ownLevel ?? levels.level }
        set { ownLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        base.log(event: event)
    }
}
