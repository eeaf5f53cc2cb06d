#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Logging
import WhiskerCore
import WhiskerSockets

/// The first handler of a connection on a listener that requires the PROXY protocol: takes the
/// header off the socket, exactly (no byte of what follows, so that TLS or HTTP/1.1 read on from
/// the socket as if it had started there), records it on the ``Connection`` and hands over to
/// HTTP/1.1.
///
/// It peeks at what has arrived (`MSG_PEEK`), asks ``ProxyProtocolHeader/parse(_:maxLength:)``
/// how much of it is header, and takes only that: a header split across segments is taken in
/// pieces, each of them header bytes. The connection is closed, with a log line, when its peer is
/// not a trusted proxy (before anything is read), when the bytes are not a header, when the peer
/// closes first, or when the header is not complete within
/// ``WhiskerServer/ReverseProxies/proxyHeaderTimeout``.
final class ProxyProtocolReader: ConnectionHandler {
    /// The connection, which owns this reader (held strongly: see ``Connection``).
    private let connection: Connection
    private let proxies: WhiskerServer.ReverseProxies
    private let timer: ConnectionTimer
    /// The header bytes taken so far (a header that arrived in pieces).
    private var taken: [UInt8] = []
    private var isDone = false

    init(connection: Connection, proxies: WhiskerServer.ReverseProxies) {
        self.connection = connection
        self.proxies = proxies
        self.timer = ConnectionTimer(worker: connection.stream.worker)
    }

    private var logger: Logger { connection.context.logger }

    func start(buffered: inout ReadBuffer) {
        let peer = connection.stream.peer
        guard connection.socket != nil else { return refuse("the connection has no socket to read a PROXY header from") }
        guard proxies.trusts(peer) else {
            return refuse("the peer is not a trusted proxy (reverseProxies.trusted)")
        }
        timer.start { [weak self] in self?.timedOut() }
        timer.arm(DispatchTime.now().adding(proxies.proxyHeaderTimeout))
    }

    func readable() {
        guard !isDone, let socket = connection.socket else { return }
        let limit = max(proxies.maxProxyHeaderLength, ProxyProtocolHeader.maxVersion1Length) + 1 - taken.count
        do {
            try withUnsafeTemporaryAllocation(byteCount: max(limit, 1), alignment: 1) { (space) throws(SocketError) in
                switch try socket.peek(into: space) {
                case .wouldBlock: return
                case .endOfStream: return refuse("the peer closed before its PROXY header was complete", level: .debug)
                case .bytes(let count):
                    let received = UnsafeRawBufferPointer(rebasing: space[..<count])
                    switch ProxyProtocolHeader.parse(taken + received, maxLength: proxies.maxProxyHeaderLength) {
                    case .needMore:
                        // Every byte received is part of the header: take them all.
                        try take(count, from: socket, into: space)
                    case .header(let header, let length):
                        try take(length - taken.count, from: socket, into: space)
                        finish(header)
                    case .invalid(let reason):
                        refuse(reason)
                    }
                }
            }
        } catch {
            refuse("reading the PROXY header failed: \(error)", level: .debug)
        }
    }

    /// Reads `count` bytes (peeked before, so they are there) off the socket, keeping them.
    private func take(_ count: Int, from socket: SocketConnection, into space: UnsafeMutableRawBufferPointer) throws(SocketError) {
        var remaining = count
        while remaining > 0 {
            guard case .bytes(let read) = try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: space[..<remaining])) else {
                throw SocketError(call: "read", code: EIO)
            }
            taken += UnsafeRawBufferPointer(rebasing: space[..<read])
            remaining -= read
        }
    }

    private func finish(_ header: ProxyProtocolHeader) {
        stop()
        connection.preamble = ConnectionPreamble(header)
        connection.startHTTP1()
    }

    private func timedOut() {
        refuse("no complete PROXY header within \(proxies.proxyHeaderTimeout)")
    }

    /// Closes the connection, saying why.
    private func refuse(_ reason: String, level: Logger.Level = .warning) {
        guard !isDone else { return }
        stop()
        logger.log(level: level, "closing a connection without a PROXY protocol header: \(reason)", metadata: ["peer": "\(connection.stream.peer)"])
        // A close with unread input would be a reset: what the peer sent is read and dropped first.
        if let socket = connection.socket { socket.closeAfterAnswer() } else { connection.close() }
    }

    /// Nothing is in flight: close now.
    func beginShutdown() {
        stop()
        connection.close()
    }

    func streamClosed() { stop() }

    /// No more reading, no more deadline.
    private func stop() {
        isDone = true
        timer.cancel()
    }
}
