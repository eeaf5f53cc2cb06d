public import WhiskerCore
import Logging

extension WhiskerServer {
    /// Reads the HTTPS certificate chains and keys again from the files that the HTTPS listeners
    /// name, and hands the new certificates to every connection accepted
    /// from now on. Connections already open keep the certificate they started with, so nothing
    /// is dropped: renew the files (certbot, cert-manager), then call this, for example on SIGHUP
    /// (`systemctl reload`).
    ///
    ///     for await _ in await UnixSignalsSequence(trapping: .sighup) {
    ///         do { try await server.reloadTLS() } catch { logger.error("\(error)") }
    ///     }
    ///
    /// - Throws: ``/WhiskerCore/WhiskerServerError`` naming the file when a new certificate or key does not
    ///   load (or they do not match); that listener's certificate then stays in use (the others
    ///   are reloaded). Also when the server has no HTTPS listener or is not running.
    public func reloadTLS() throws(WhiskerServerError) {
        guard configuration.listeners.contains(where: \.isTLS) else {
            throw WhiskerServerError("no HTTPS listener is configured: there is no certificate to reload")
        }
        let wrappers = runningStreamWrappers.compactMap { $0 as? TLSStreamWrapper }
        guard !wrappers.isEmpty else { throw WhiskerServerError("the server is not running: there is no certificate to reload") }
        var failure: WhiskerServerError?
        for wrapper in wrappers {
            do {
                try wrapper.reload()
                configuration.logger.notice("reloaded the TLS certificate", metadata: [
                    "certificate": "\(wrapper.configuration.certificateChainPath)", "private_key": "\(wrapper.configuration.privateKeyPath)",
                ])
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
