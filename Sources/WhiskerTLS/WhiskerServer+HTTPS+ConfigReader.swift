#if Configuration
public import WhiskerConfiguration
public import WhiskerCore

extension WhiskerServer.ConfigurationKeys {
    /// `tls.certificate` and `tls.privateKey` (HTTPS, given together), `tls.port` (default 8443),
    /// and mutual TLS: `tls.clientCA` and `tls.clientCertificate` (`required`, the default, or
    /// `optional`), which need HTTPS. (`tls.port` is a listener's key: it stays as it is until the
    /// listeners' redesign, issue 39 item 2.)
    public static let tls = Self(["tls.certificate", "tls.privateKey", "tls.port", "tls.clientCA", "tls.clientCertificate"]) {
        configuration, sources throws(WhiskerServer.ConfigurationError) in
        try configuration.applyTLSKeys(sources)
    }
}

extension WhiskerServer.Configuration {
    /// `tls.*`: HTTPS from a certificate and key, on `tls.port`, with mutual TLS from `tls.clientCA`.
    mutating func applyTLSKeys(_ sources: WhiskerServer.ConfigurationSources) throws(WhiskerServer.ConfigurationError) {
        let certificate = try sources.string("tls.certificate")
        let privateKey = try sources.string("tls.privateKey")
        let port = try sources.port("tls.port")
        let clientCA = try sources.string("tls.clientCA")
        let requirement = try sources.choice("tls.clientCertificate", from: ["required", "optional"])
        if certificate != nil || privateKey != nil {
            guard let certificate = certificate ?? https?.tls.certificateChainPath, let privateKey = privateKey ?? https?.tls.privateKeyPath else {
                let given = sources.origin(of: certificate != nil ? "tls.certificate" : "tls.privateKey")
                throw WhiskerServer.ConfigurationError(key: certificate != nil ? "tls.privateKey" : "tls.certificate",
                    "\(given) is set alone: tls.certificate and tls.privateKey go together, give both or neither")
            }
            var tls = https?.tls ?? TLSConfiguration(certificateChainPath: certificate, privateKeyPath: privateKey)
            tls.certificateChainPath = certificate
            tls.privateKeyPath = privateKey
            https = .init(host: https?.host, port: port ?? https?.port ?? 8443, tls: tls)
        } else if let port {
            https?.port = port
        }
        if clientCA != nil || requirement != nil {
            guard var tls = https?.tls else {
                let given = sources.origin(of: clientCA != nil ? "tls.clientCA" : "tls.clientCertificate")
                throw WhiskerServer.ConfigurationError(key: "tls.certificate", "\(given) needs HTTPS: set tls.certificate and tls.privateKey")
            }
            guard let path = clientCA ?? tls.clientCertificates?.trustedCAPath else {
                throw WhiskerServer.ConfigurationError(key: "tls.clientCA", "\(sources.origin(of: "tls.clientCertificate")) needs tls.clientCA")
            }
            tls.clientCertificates = .init(trustedCAPath: path, isRequired: (requirement ?? "required") == "required")
            https?.tls = tls
        }
    }
}
#endif
