import WhiskerCore
import WhiskerSockets

/// The client connection preface of HTTP/2 (RFC 9113 §3.4), which a client with prior knowledge
/// (or one that negotiated `h2` in ALPN) sends instead of a request line, and the GOAWAY a server
/// sends when it will not serve such a client.
enum HTTP2Preface {
    static let bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The preface's first line: a client that sent it meant HTTP/2, whatever follows.
    private static let requestLineLength = "PRI * HTTP/2.0\r\n".utf8.count

    enum Match {
        /// The buffer starts with the whole preface.
        case yes
        /// It does not, and never will.
        case no
        /// What arrived so far is a prefix of the preface.
        case needMore
        /// It starts with the preface's first line and then goes wrong: an HTTP/2 client's
        /// broken preface, not an HTTP/1.1 request.
        case broken
    }

    /// How `buffer` compares with the preface.
    static func match(_ buffer: ReadBuffer) -> Match {
        buffer.withUnsafeReadableBytes { readable in
            let count = min(readable.count, bytes.count)
            guard let mismatch = (0..<count).first(where: { readable[$0] != bytes[$0] }) else {
                return count == bytes.count ? .yes : .needMore
            }
            return mismatch >= requestLineLength ? .broken : .no
        }
    }

    /// The server's preface (an empty SETTINGS frame) and GOAWAY naming no stream (last stream id
    /// 0) with `errorCode` and `reason` as its debug data (RFC 9113 §6.5, §6.8): what a connection
    /// the server will not serve over HTTP/2 gets before it closes.
    static func goAway(errorCode: UInt32, reason: String) -> [UInt8] {
        let debug = Array(reason.utf8)
        let length = 8 + debug.count
        var bytes: [UInt8] = [0, 0, 0, 0x4, 0, 0, 0, 0, 0]
        bytes += [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), 0x7, 0, 0, 0, 0, 0]
        bytes += [0, 0, 0, 0]
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: errorCode >> (24 - 8 * $0)) }
        return bytes + debug
    }
}
