#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
import WhiskerCore
import WhiskerSockets
import WhiskerTesting
@testable import WhiskerWebSocket

/// A peer that pings and never reads, on a socket with a small receive buffer, so that what the
/// server writes to it piles up on the server's side (on loopback, a normal client's large
/// receive buffer would take it all).
@Suite(.timeLimit(.minutes(1))) struct SlowReaderTests {
    /// A blocking TCP socket to 127.0.0.1:`port` with a small receive buffer and 10 s timeouts.
    private func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var size: Int32 = 2048
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(result == 0)
        return fd
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            try #require(count > 0, "write failed: errno \(errno)")
            offset += count
        }
    }

    /// Everything the server sends until it closes (or 10 s pass without a byte).
    private func readAll(_ fd: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return received }
            received += chunk[..<count]
        }
    }

    @Test func aPeerThatPingsAndDoesNotRead_GetsNoMoreThanAbout64KiBOfPongs() async throws {
        let server = makeTestServer()
        try server.webSocket("/ws/echo", limits: WebSocketLimits(controlFrameBurst: 100_000, controlFramesPerSecond: 100_000)) { socket in
            for try await message in socket.messages { try await socket.send(message) }
        }
        try await server.withRunning { address in
            let fd = try connect(port: address.port)
            defer { close(fd) }
            try write(fd, Array("GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8))
            // 3,000 pings of 125 bytes, one write each, nothing read: 381 KB of pongs if each
            // were answered; then a close, which the server reads after every ping. The writes are
            // paced (0.5 ms, pacing, not synchronisation) so that most pings arrive in a read of
            // their own, where coalescing would not merge their pongs.
            // Seconds of blocking calls: on a queue of their own, not on the pool of as many
            // threads as cores that the other tests' tasks and servers share.
            let bytes = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue(label: "whisker.test-slow-reader").async {
                    continuation.resume(with: Result {
                        for _ in 0..<3000 {
                            try write(fd, ClientFrame.ping([UInt8](repeating: 0x70, count: 125)))
                            usleep(500)
                        }
                        try write(fd, ClientFrame.close(1000))
                        return readAll(fd)
                    })
                }
            }
            let head = bytes.firstRange(of: Array("\r\n\r\n".utf8)).map { $0.upperBound } ?? 0
            var frames = Array(bytes[head...])[...]
            var pongs = 0
            var sawClose = false
            while frames.count >= 2 {
                let length = Int(frames[frames.startIndex + 1] & 0x7F)
                #expect(length <= 125)
                if frames.first! & 0x0F == 0xA { pongs += 1 }
                if frames.first! & 0x0F == 0x8 { sawClose = true }
                frames = frames.dropFirst(2 + length)
            }
            // 64 KiB waiting in the server's send queue, plus what the small receive buffer took.
            #expect(pongs <= 2 * WebSocketConnection.maxUnsentForPong / 127, "\(pongs) pongs")
            #expect(sawClose)
        }
    }
}
