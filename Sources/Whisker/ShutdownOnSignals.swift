#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
public import Dispatch
public import WhiskerCore

/// Starts `server`'s graceful shutdown (``/WhiskerCore/WhiskerServer/shutdown()``) when the process
/// gets SIGTERM (systemd's stop, `kill`) or SIGINT (Ctrl-C): what an executable that runs one
/// server needs, without swift-service-lifecycle. Keep the returned sources alive while the server
/// runs:
///
///     let signals = shutdownOnSignals(server)
///     try await server.run()
///     withExtendedLifetime(signals) {}
///
/// Call it from a function rather than inline in top-level code: the handlers run on a Dispatch
/// queue, not the main actor.
public func shutdownOnSignals(_ server: WhiskerServer) -> [any DispatchSourceSignal] {
    [SIGTERM, SIGINT].map { number in
        #if canImport(Darwin)
        signal(number, SIG_IGN)  // kqueue delivers it to the source only when the default action is off
        #endif
        let source = DispatchSource.makeSignalSource(signal: number)
        source.setEventHandler { Task { await server.shutdown() } }
        source.resume()
        return source
    }
}
