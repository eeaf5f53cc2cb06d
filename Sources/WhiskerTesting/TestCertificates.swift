public import WhiskerTLS

/// The development certificates that Whisker's own tests use (Tests/Certificates, made by
/// Scripts/make-dev-certificates.sh): a CA, and certificates for `localhost`, 127.0.0.1 and ::1
/// that it signed, for HTTPS tests on the loopback address.
///
///     let server = makeTestServer {
///         $0.listeners.append(.https(port: 0, tls: TestCertificates.localhostTLS))
///     }
///     ...
///     let client = try await TestClient.connect(to: address, tls: TestTLSOptions(trustedCAPath: TestCertificates.ca))
///
/// The paths are found from this source file's (`#filePath`), so they hold wherever the package
/// is checked out and built, as a dependency too. Their private keys are public: for tests only.
public enum TestCertificates {
    /// The folder that holds them: Tests/Certificates of the package.
    public static let directory: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // this file, WhiskerTesting, Sources
        return parts.joined(separator: "/") + "/Tests/Certificates"
    }()

    /// The development CA, subject "Whisker development CA": what a test client trusts.
    public static var ca: String { directory + "/ca.pem" }
    /// The development CA's private key.
    public static var caKey: String { directory + "/ca-key.pem" }
    /// The server certificate, subject "localhost", for `localhost`, 127.0.0.1 and ::1.
    public static var localhost: String { directory + "/localhost.pem" }
    /// The private key of ``localhost``.
    public static var localhostKey: String { directory + "/localhost-key.pem" }
    /// A second certificate for the same names, subject "localhost renewed", as a renewal brings.
    public static var renewed: String { directory + "/localhost-renewed.pem" }
    /// The private key of ``renewed``.
    public static var renewedKey: String { directory + "/localhost-renewed-key.pem" }

    /// A client certificate (mutual TLS), subject "CN=cat client,O=Whisker development", with the
    /// names `URI:spiffe://cats.example/client` and `email:client@cats.example`.
    public static var client: String { directory + "/client.pem" }
    /// The private key of ``client``.
    public static var clientKey: String { directory + "/client-key.pem" }

    /// ``localhost`` and its key, as an HTTPS listener takes them.
    public static var localhostTLS: TLSConfiguration {
        TLSConfiguration(certificateChainPath: localhost, privateKeyPath: localhostKey)
    }
}
