import COpenSSL
import Testing
import WhiskerTesting
@testable import WhiskerTLS

/// Loading a certificate and key (`TLSContext`): errors that name the file and say why, and leave
/// nothing behind in OpenSSL's error queue.
@Suite struct TLSContextTests {
    @Test func missingCertificate_NamesTheFile() {
        var configuration = TestCertificates.localhostTLS
        configuration.certificateChainPath = "/nonexistent/cert.pem"
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration) }
        #expect(error?.description.hasPrefix("TLS: loading the certificate chain from /nonexistent/cert.pem failed") == true, "\(String(describing: error))")
    }

    @Test func fileThatIsNotPEM_NamesTheFile_AndSaysWhy() {
        var configuration = TestCertificates.localhostTLS
        configuration.privateKeyPath = String(#filePath)
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration) }
        #expect(error?.operation == "loading the private key from \(#filePath)")
        #expect(error?.reasons.isEmpty == false)
    }

    @Test func keyOfAnotherCertificate_IsRefused() {
        var configuration = TestCertificates.localhostTLS
        configuration.privateKeyPath = TestCertificates.caKey
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration) }
        #expect(error?.description.contains("key values mismatch") == true, "\(String(describing: error))")
    }

    @Test func errorsLeaveNothingInOpenSSLsQueue() {
        var configuration = TestCertificates.localhostTLS
        configuration.certificateChainPath = "/nonexistent/cert.pem"
        _ = try? TLSContext(configuration)
        #expect(ERR_peek_error() == 0, "a later call on this thread must not see stale errors")
    }
}
