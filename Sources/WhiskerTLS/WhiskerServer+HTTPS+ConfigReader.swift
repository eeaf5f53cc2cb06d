#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `tls.certificate` and `tls.privateKey` (HTTPS, given together), `tls.port` (default 8443),
    /// and mutual TLS: `tls.clientCA` and `tls.clientCertificate` (`required`, the default, or
    /// `optional`), which need HTTPS. (These make or change the HTTPS listener.)
    public static let tls = Self(["tls.certificate", "tls.privateKey", "tls.port", "tls.clientCA", "tls.clientCertificate"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyTLSKeys(sources)
    }
}

extension WhiskerServer.Configuration {
    /// `tls.*`: HTTPS from a certificate and key, on `tls.port`, with mutual TLS from `tls.clientCA`
    /// (``serveHTTPS(_:port:host:)`` says on which listeners).
    mutating func applyTLSKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let certificate = try sources.string("tls.certificate")
        let privateKey = try sources.string("tls.privateKey")
        let port = try sources.port("tls.port")
        let clientCA = try sources.string("tls.clientCA")
        let requirement = try sources.choice("tls.clientCertificate", from: ["required", "optional"])
        var tls = listeners.lazy.compactMap(\.tls).first
        if certificate != nil || privateKey != nil {
            guard let certificate = certificate ?? tls?.certificateChainPath, let privateKey = privateKey ?? tls?.privateKeyPath else {
                let given = sources.origin(of: certificate != nil ? "tls.certificate" : "tls.privateKey")
                throw WhiskerServer.ConfigurationError(key: certificate != nil ? "tls.privateKey" : "tls.certificate",
                    "\(given) is set alone: tls.certificate and tls.privateKey go together, give both or neither")
            }
            var configured = tls ?? TLSConfiguration(certificateChainPath: certificate, privateKeyPath: privateKey)
            configured.certificateChainPath = certificate
            configured.privateKeyPath = privateKey
            tls = configured
        }
        if clientCA != nil || requirement != nil {
            guard var configured = tls else {
                let given = sources.origin(of: clientCA != nil ? "tls.clientCA" : "tls.clientCertificate")
                throw WhiskerServer.ConfigurationError(key: "tls.certificate", "\(given) needs HTTPS: set tls.certificate and tls.privateKey")
            }
            guard let path = clientCA ?? configured.clientCertificates?.trustedCAPath else {
                throw WhiskerServer.ConfigurationError(key: "tls.clientCA", "\(sources.origin(of: "tls.clientCertificate")) needs tls.clientCA")
            }
            configured.clientCertificates = .init(trustedCAPath: path, isRequired: (requirement ?? "required") == "required")
            tls = configured
        }
        guard let tls, certificate != nil || privateKey != nil || clientCA != nil || requirement != nil || port != nil else { return }
        do {
            try serveHTTPS(tls, port: port, host: sources.string("host"))
        } catch {
            throw WhiskerServer.ConfigurationError(key: "tls.certificate", "\(sources.origin(of: certificate != nil ? "tls.certificate" : "tls.port")): \(error)")
        }
    }
}
#endif
