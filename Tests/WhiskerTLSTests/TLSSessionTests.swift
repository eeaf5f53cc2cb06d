import COpenSSL
import Testing
import WhiskerSockets
import WhiskerTesting
@testable import WhiskerTLS

@Suite struct TLSSessionTests {
    let context: TLSContext

    init() throws {
        var configuration = TestCertificates.localhostTLS
        configuration.applicationProtocols = ["h2", "http/1.1"]
        context = try TLSContext(configuration)
    }

    @Test(arguments: [
        (["h2", "http/1.1"], "h2"),
        (["http/1.1", "h2"], "h2"),  // the server's preference wins
        (["http/1.1"], "http/1.1"),
        (["spdy/3"], nil),  // no overlap: no ALPN, which means HTTP/1.1
        ([], nil),
    ] as [([String], String?)])
    func alpn_PicksTheServersFirstProtocolThatTheClientOffers(offered: [String], chosen: String?) throws {
        let client = try MemoryTLSClient(alpn: offered)
        let server = try TLSSession(context: context)
        #expect(try handshake(client, server) == .established(applicationProtocol: chosen))
        #expect(client.isEstablished, "the client verified the localhost certificate against the CA")
        #expect(server.version == "TLSv1.3")
    }

    @Test func tls12_IsAccepted() throws {
        let client = try MemoryTLSClient(onlyVersion: "TLSv1.2")
        let server = try TLSSession(context: context)
        try handshake(client, server)
        #expect(server.version == "TLSv1.2")
    }

    @Test func tls11_IsRefused_WithAReadableReason_AndAnAlertForTheClient() throws {
        let client = try MemoryTLSClient(onlyVersion: "TLSv1.1")
        let server = try TLSSession(context: context)
        let error = try #require(throws: TLSError.self) { try handshake(client, server) }
        #expect(error.operation == "handshake")
        #expect(error.description.contains("unsupported protocol"), "\(error)")
        #expect(!client.handshake(), "the client got the alert and gave up")
    }

    @Test func bytesThatAreNotTLS_FailTheHandshake() throws {
        let server = try TLSSession(context: context)
        Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8).withUnsafeBufferPointer { server.feed($0) }
        #expect(throws: TLSError.self) { try server.handshake() }
    }

    @Test func dataFlowsBothWays_InPiecesLargerThanARecord() throws {
        let client = try MemoryTLSClient()
        let server = try TLSSession(context: context)
        try handshake(client, server)

        let request = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        client.write(request)
        var buffer = ReadBuffer()
        // Feed the records in uneven pieces: the session decrypts whatever is complete.
        let records = client.takeOutput()
        var received = 0
        for piece in stride(from: 0, to: records.count, by: 7_001) {
            records[piece..<min(piece + 7_001, records.count)].withUnsafeBufferPointer { server.feed($0) }
            guard case .bytes(let count) = try server.read(into: &buffer) else { Issue.record("closed early"); return }
            received += count
        }
        #expect(received == request.count)
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == request)

        let response = [UInt8](repeating: 0x5A, count: 200_000)
        try server.write(response[...])
        client.feed(server.takeOutput() ?? [])
        #expect(client.read() == response)
    }

    @Test func closeNotify_EndsTheStream_AndTheServerAnswersWithItsOwn() throws {
        let client = try MemoryTLSClient()
        let server = try TLSSession(context: context)
        try handshake(client, server)
        client.shutdown()
        client.takeOutput().withUnsafeBufferPointer { server.feed($0) }
        var buffer = ReadBuffer()
        #expect(try server.read(into: &buffer) == .closed)
        server.shutdown()
        client.feed(server.takeOutput() ?? [])
        #expect(client.read() == nil, "the client reads the server's close_notify")
    }

    @Test func corruptRecord_IsAnError_NotACrashOrGarbage() throws {
        let client = try MemoryTLSClient()
        let server = try TLSSession(context: context)
        try handshake(client, server)
        client.write(Array("hello".utf8))
        var records = client.takeOutput()
        records[records.count - 3] ^= 0xFF
        records.withUnsafeBufferPointer { server.feed($0) }
        var buffer = ReadBuffer()
        #expect(throws: TLSError.self) { try server.read(into: &buffer) }
        #expect(buffer.readableBytes == 0)
    }
}
