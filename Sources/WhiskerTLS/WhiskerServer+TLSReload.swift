public import WhiskerCore
import Logging

extension WhiskerServer {
    /// Reads the HTTPS certificate chain and key again from the files that
    /// `configuration.https` names, and hands the new certificate to every connection accepted
    /// from now on. Connections already open keep the certificate they started with, so nothing
    /// is dropped: renew the files (certbot, cert-manager), then call this, for example on SIGHUP
    /// (`systemctl reload`).
    ///
    ///     for await _ in await UnixSignalsSequence(trapping: .sighup) {
    ///         do { try await server.reloadTLS() } catch { logger.error("\(error)") }
    ///     }
    ///
    /// - Throws: ``WhiskerServerError`` naming the file when the new certificate or key does not
    ///   load (or they do not match); the current certificate then stays in use. Also when the
    ///   server has no HTTPS listener or is not running.
    public func reloadTLS() throws(WhiskerServerError) {
        guard let https = configuration.https else { throw WhiskerServerError("no HTTPS listener is configured: there is no certificate to reload") }
        guard let wrapper = runningStreamWrapper as? TLSStreamWrapper else { throw WhiskerServerError("the server is not running: there is no certificate to reload") }
        try wrapper.reload()
        configuration.logger.notice("reloaded the TLS certificate", metadata: [
            "certificate": "\(https.tls.certificateChainPath)", "private_key": "\(https.tls.privateKeyPath)",
        ])
    }
}
