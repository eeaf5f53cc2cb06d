#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import ServiceLifecycle
import UnixSignals
import Whisker

// The services that run next to the server in cat-service's ServiceGroup, one per signal it acts on.

/// Reloads the HTTPS certificate and key from their files on SIGHUP (`systemctl reload`), for
/// new connections; open ones keep the certificate they started with. A file that does not load
/// is logged and the current certificate stays. Without HTTPS, SIGHUP is logged and ignored.
struct CertificateReloadOnHangup: Service {
    let server: WhiskerServer
    let logger: Logger

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            guard server.configuration.https != nil else {
                logger.notice("SIGHUP received: no TLS certificate to reload")
                continue
            }
            do {
                try await server.reloadTLS()
            } catch {
                logger.error("SIGHUP received, but the TLS certificate was not reloaded; keeping the current one", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// Exits at once, without draining, when a second SIGINT or SIGTERM arrives during a graceful
/// shutdown (an operator pressing Ctrl-C twice). The first one is the service group's. It ends
/// when its own graceful shutdown comes, after the server's.
struct SecondSignalExit: Service {
    let logger: Logger

    func run() async throws {
        var count = 0
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint).cancelOnGracefulShutdown() {
            count += 1
            guard count > 1 else {
                logger.notice("\(signal) received, shutting down gracefully")
                continue
            }
            logger.warning("second \(signal) received, exiting without draining")
            exit(1)
        }
    }
}
