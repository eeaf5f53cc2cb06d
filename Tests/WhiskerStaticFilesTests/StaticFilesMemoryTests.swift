import Testing
import WhiskerCore
import WhiskerTesting

/// The resident memory of the process while a client holds a large file back: a memory suite
/// (the Makefile's MEMORY_SUITES), run in a process of its own, one test at a time.
@Suite(.serialized) struct StaticFilesMemoryTests {
    /// A client that stops reading a 200 MB file does not make the server read it into memory:
    /// over cleartext (sendfile) and over TLS (chunks, each written before the next is read).
    @Test(arguments: [false, true]) func slowReader_MemoryStaysBounded(tls: Bool) async throws {
        let fixture = try StaticFilesTests.Transport.fixture()
        try fixture.sparse("root/huge.bin", size: 200 * 1024 * 1024)
        try await StaticFilesTests.Transport.server(fixture).withRunningAddresses { addresses in
            let baseline = residentBytes()
            let client = try await TestClient.connect(to: addresses[tls ? 1 : 0], tls: tls ? TestTLSOptions(trustedCAPath: TestCertificates.ca) : nil)
            try await client.send("GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await client.receiveSome()
            // The client reads nothing more; watch the server for a second and a half.
            var peak = baseline
            for _ in 0..<15 {
                try await Task.sleep(for: .milliseconds(100))
                peak = max(peak, residentBytes())
            }
            let growth = peak - baseline
            print("static files slow reader (\(tls ? "TLS" : "cleartext")): resident growth \(growth / 1024) KiB for a 200 MiB file")
            #expect(growth < 32 * 1024 * 1024, "resident memory grew by \(growth) bytes")
            try await client.close()
        }
    }
}
