#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
public import WhiskerSockets

/// A bare HTTP/1.1 client for tests: sends exact bytes and reads exact responses, so tests can
/// say what goes over the wire. Its blocking socket calls run on its own Dispatch queue (never on
/// Swift's cooperative pool, which the server's handlers need), each bounded by a receive timeout.
///
///     let client = try await TestClient.connect(to: address)
///     try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
///     let response = try await client.readResponse()
///     #expect(response.status == 200)
public final class TestClient: @unchecked Sendable {
    // Safe to send: `fd` is immutable and `buffer` is touched only on `queue`, which serialises
    // every call (each public method hops onto it).
    private let fd: Int32
    private let tls: TestTLSClient?
    /// A serial queue of its own: its default target is the overcommit pool, where blocking is
    /// safe. (Blocking on `DispatchQueue.global()` would take one of the few threads that the
    /// server's connection queues, and Swift concurrency, run on: with a TLS handshake waiting
    /// for the server there, the server could not answer until libdispatch added a thread.)
    private let queue: DispatchQueue
    private var buffer: [UInt8] = []

    private init(fd: Int32, tls: TestTLSClient?, queue: DispatchQueue) {
        self.fd = fd
        self.tls = tls
        self.queue = queue
    }

    /// The protocol ALPN chose on a TLS connection (`"http/1.1"`, `"h2"`), or `nil`.
    public var negotiatedApplicationProtocol: String? { tls?.applicationProtocol }
    /// The TLS version of a TLS connection (`"TLSv1.3"`), or `nil`.
    public var tlsVersion: String? { tls?.version }
    /// The subject of the certificate the server presented (`"/CN=localhost"`), or `nil`.
    public var tlsPeerCertificateSubject: String? { tls?.peerCertificateSubject }

    deinit { LibC.close(fd) }

    /// Connects to `address`, over TLS if `tls` is given.
    /// - Parameters:
    ///   - address: The server's address.
    ///   - timeout: How long any one read may wait before it fails.
    ///   - tls: TLS settings (the CA to trust, ALPN); `nil` for cleartext.
    ///   - preamble: Bytes sent first, before the TLS handshake (a PROXY protocol header).
    /// - Throws: ``TestClientError`` when the TLS handshake fails (with OpenSSL's reason), or
    ///   `SocketError` when the connection is refused.
    public static func connect(to address: SocketAddress, timeout: Duration = .seconds(10), tls: TestTLSOptions? = nil, preamble: [UInt8] = []) async throws -> TestClient {
        let queue = DispatchQueue(label: "whisker.test-client")
        return try await onQueue(queue) {
            let fd = try connectedSocket(to: address, timeout: timeout, sendTimeout: true)
            do {
                var sent = 0
                while sent < preamble.count {
                    let count = preamble[sent...].withUnsafeBytes { LibC.send(fd, $0.baseAddress, $0.count, noSignalSendFlags) }
                    guard count > 0 else { throw SocketError(call: "send", code: errno) }
                    sent += count
                }
                return try TestClient(fd: fd, tls: tls.map { try TestTLSClient(fd: fd, options: $0) }, queue: queue)
            } catch {
                LibC.close(fd)
                throw error
            }
        }
    }

    private static func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (TestClient) throws -> T) async throws -> T {
        try await Self.onQueue(queue) { try body(self) }
    }

    /// Sends text exactly as given (write `\r\n` yourself).
    public func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    /// Sends bytes exactly as given.
    public func send(_ bytes: [UInt8]) async throws {
        try await onQueue { client in try client.sendAll(bytes[...]) }
    }

    /// Sends `count` bytes of a repeating pattern in pieces of `chunk` bytes, without holding
    /// them all in memory (large uploads).
    public func sendPattern(count: Int, chunk: Int = 64 * 1024) async throws {
        try await onQueue { client in
            let piece = [UInt8]((0..<chunk).map { UInt8(truncatingIfNeeded: $0) })
            var left = count
            while left > 0 {
                let n = min(left, chunk)
                try client.sendAll(piece[0..<n])
                left -= n
            }
        }
    }

    /// The checksum ``TestResponse/bodyChecksum`` has for `count` bytes of the pattern
    /// ``sendPattern(count:chunk:)`` sends (byte `i` of each 64 KiB piece is `i % 256`).
    public static func checksum(ofPattern count: Int, chunk: Int = 64 * 1024) -> UInt64 {
        var checksum: UInt64 = 0
        for index in 0..<count { checksum = checksum &* 31 &+ UInt64(UInt8(truncatingIfNeeded: index % chunk)) }
        return checksum
    }

    private func sendAll(_ bytes: ArraySlice<UInt8>) throws {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            if let tls {
                offset += try bytes[offset...].withUnsafeBytes { try tls.send($0) }
                continue
            }
            let written = bytes[offset...].withUnsafeBytes { LibC.send(fd, $0.baseAddress, $0.count, noSignalSendFlags) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SocketError(call: "send", code: errno)
            }
            offset += written
        }
    }

    /// Shuts down the sending side (the server sees end of stream); on TLS, sends close_notify first.
    public func shutdownWrite() async throws {
        try await onQueue { client in
            client.tls?.shutdown()
            _ = LibC.shutdown(client.fd, Int32(SHUT_WR))
        }
    }

    /// Reads one response: head, then the body by `Content-Length`, chunked coding, or until
    /// the server closes. Interim (1xx) responses are returned as responses of their own.
    /// - Parameters:
    ///   - isHEAD: Pass true when the request was HEAD (no body follows the head).
    ///   - collectBody: Pass false to count a large body (``TestResponse/bodyCount``) without keeping it.
    public func readResponse(isHEAD: Bool = false, collectBody: Bool = true) async throws -> TestResponse {
        try await onQueue { client in try client.readResponseNow(isHEAD: isHEAD, collectBody: collectBody) }
    }

    /// Reads what the server sends next (after anything already buffered): at least one byte, or
    /// an empty array at end of stream. For protocols this client does not parse (HTTP/2 frames).
    public func receiveSome() async throws -> [UInt8] {
        try await onQueue { client in
            if client.buffer.isEmpty, !(try client.fill()) { return [] }
            defer { client.buffer.removeAll() }
            return client.buffer
        }
    }

    /// Whether the server has sent something (or closed) that a read would return now, without
    /// waiting: for a client that keeps sending and must notice the server's answer between sends.
    public func hasBytesToRead() async throws -> Bool {
        try await onQueue { client in
            if !client.buffer.isEmpty { return true }
            var descriptor = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            return LibC.poll(&descriptor, 1, 0) > 0
        }
    }

    /// Closes the socket now, as a client that goes away mid-request.
    public func close() async throws {
        try await onQueue { client in
            var linger = LibC.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<LibC.linger>.size))
            _ = LibC.shutdown(client.fd, Int32(SHUT_RDWR))
        }
    }

    /// Reads everything until the server closes the connection, and returns it as text.
    public func readUntilClose() async throws -> String {
        try await onQueue { client in
            while try client.fill() {}
            defer { client.buffer.removeAll() }
            return String(decoding: client.buffer, as: UTF8.self)
        }
    }

    /// Whether the server has closed the connection: true when a read returns end of stream
    /// (or a reset) within the client's timeout, false when bytes arrive instead.
    public func isClosedByServer() async throws -> Bool {
        try await onQueue { client in
            if !client.buffer.isEmpty { return false }
            do { return !(try client.fill()) } catch let error as SocketError where error.isDisconnect { return true }
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        if let tls {
            let count = try chunk.withUnsafeMutableBytes { try tls.receive($0) }
            buffer.append(contentsOf: chunk[0..<count])
            return count > 0
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { LibC.recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw TestClientError("timed out waiting for the server") }
                throw SocketError(call: "recv", code: errno)
            }
            if count == 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
    }

    private func readLine() throws -> String {
        while true {
            if let lf = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<lf], as: UTF8.self)
                buffer.removeSubrange(...lf)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            guard try fill() else { throw TestClientError("connection closed in the middle of a line") }
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError("connection closed with \(count - buffer.count) body bytes missing") }
        }
        defer { buffer.removeSubrange(..<count) }
        return Array(buffer[..<count])
    }

    /// Reads and drops `count` bytes, folding them into a checksum.
    private func discardBytes(_ count: Int, into checksum: inout UInt64) throws {
        var left = count
        while left > 0 {
            if buffer.isEmpty { guard try fill() else { throw TestClientError("connection closed with \(left) body bytes missing") } }
            let n = min(left, buffer.count)
            for byte in buffer[..<n] { checksum = checksum &* 31 &+ UInt64(byte) }
            buffer.removeSubrange(..<n)
            left -= n
        }
    }

    private func readResponseNow(isHEAD: Bool, collectBody: Bool) throws -> TestResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw TestClientError("malformed status line \"\(statusLine)\"")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError("malformed header line \"\(line)\"") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " \t")))
        }
        var response = TestResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
        if isHEAD || status < 200 || status == 204 || status == 304 { return response }
        if let length = response.header("content-length").flatMap({ Int($0) }) {
            if collectBody {
                response.body = try readBytes(length)
                response.bodyCount = length
            } else {
                var checksum: UInt64 = 0
                try discardBytes(length, into: &checksum)
                response.bodyCount = length
                response.bodyChecksum = checksum
            }
        } else if response.header("transfer-encoding")?.lowercased() == "chunked" {
            response.chunkCount = 0
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw TestClientError("bad chunk size \"\(sizeLine)\"") }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                if collectBody {
                    response.body += try readBytes(size)
                } else {
                    var checksum = response.bodyChecksum ?? 0
                    try discardBytes(size, into: &checksum)
                    response.bodyChecksum = checksum
                }
                response.bodyCount += size
                response.chunkCount! += 1
                guard try readLine().isEmpty else { throw TestClientError("chunk not followed by CRLF") }
            }
        } else {
            while try fill() {}
            response.body = buffer
            response.bodyCount = buffer.count
            buffer.removeAll()
        }
        return response
    }
}

/// A response as read off the wire by ``TestClient``.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reason: String
    /// Header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes (decoded from chunked coding when chunked).
    public var body: [UInt8]
    /// The number of body bytes received (also when they were not collected).
    public var bodyCount = 0
    /// A checksum of the body, when it was counted rather than collected (see ``TestClient/checksum(ofPattern:chunk:)``).
    public var bodyChecksum: UInt64?
    /// The number of chunks, for a chunked body.
    public var chunkCount: Int?

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of a header, by case-insensitive name.
    public func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// A test client failure: a timeout or a response it could not read.
public struct TestClientError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// A blocking TCP socket connected to `address`, whose receives (and sends, if `sendTimeout`) give
/// up after `timeout`; closed again if the connection is refused.
func connectedSocket(to address: SocketAddress, timeout: Duration, sendTimeout: Bool = false, noDelay: Bool = false) throws -> Int32 {
    let fd = openSocket(address.family, LibC.streamSocket, nonBlocking: false)
    guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
    var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    if sendTimeout { setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) }
    if noDelay {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    let result = try address.withSockAddr { (pointer, length) throws(SocketError) -> Int32 in
        LibC.connect(fd, pointer, length)
    }
    guard result == 0 else {
        let code = errno
        LibC.close(fd)
        throw SocketError(call: "connect(\(address))", code: code)
    }
    return fd
}
