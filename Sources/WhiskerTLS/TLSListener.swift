import Logging
import Synchronization
import WhiskerCore
import WhiskerSockets

/// An HTTPS listener's TLS side as the core sees it (``SecureListener``): at start it loads the
/// certificate and returns the wrapper that puts every accepted socket behind a ``TLSStream``.
struct TLSListener: SecureListener {
    let tls: TLSConfiguration

    func prepare(offering applicationProtocols: [String]) throws(WhiskerServerError) -> any StreamWrapper {
        var tls = tls
        tls.applicationProtocols.removeAll { !applicationProtocols.contains($0) }
        return try TLSStreamWrapper(tls)
    }
}

/// The TLS context new connections get: one per running server, shared by its HTTPS listeners,
/// replaced by `WhiskerServer.reloadTLS()`. A connection keeps the context it started with (its
/// `SSL` holds it), so replacing this one never touches open connections.
final class TLSStreamWrapper: StreamWrapper {
    let configuration: TLSConfiguration
    private let context: Mutex<TLSContext>

    init(_ configuration: TLSConfiguration) throws(WhiskerServerError) {
        self.configuration = configuration
        self.context = Mutex(try Self.load(configuration))
    }

    func wrap(_ socket: SocketConnection, logger: Logger) throws -> any ByteStream {
        try TLSStream(socket: socket, context: context.withLock { $0 }, logger: logger)
    }

    /// Reads the certificate and key files again; on failure the current ones stay.
    func reload() throws(WhiskerServerError) {
        let loaded = try Self.load(configuration)
        context.withLock { $0 = loaded }
    }

    private static func load(_ configuration: TLSConfiguration) throws(WhiskerServerError) -> TLSContext {
        do {
            return try TLSContext(configuration)
        } catch {
            throw WhiskerServerError("cannot serve HTTPS: \(error)")
        }
    }
}
