/// permessage-deflate (RFC 7692): whether and how a WebSocket route compresses messages.
///
/// On by default. Browsers and most clients offer the extension; the server accepts the first
/// offer it can honour and then compresses every message of at least ``minimumSize`` bytes it
/// sends (RSV1 set on its first frame), and inflates every compressed message it receives.
/// A client that offers nothing, or only what the server cannot honour, gets no compression.
///
/// ```swift
/// // Compression off for this route:
/// try server.webSocket("/ws/ticks", compression: nil) { socket in ... }
/// // A larger window, for a route with few connections and large, repetitive messages:
/// try server.webSocket("/ws/reports", compression: WebSocketCompression(serverWindowBits: 15, memoryLevel: 8)) { socket in ... }
/// ```
///
/// **Memory.** Each connection that has sent or received a compressed message holds zlib's
/// deflate state (about `2^(serverWindowBits + 2) + 2^(memoryLevel + 9)` bytes plus 6 KiB: 38 KiB
/// with the defaults, 12 and 5; 262 KiB with zlib's 15 and 8) and its inflate state (7 KiB plus the
/// client's window: 4 KiB when the client lets the server choose it, as Chromium and Python's
/// `websockets` do, else 32 KiB). Both are made on first use, so an idle connection that never
/// exchanged a compressed message holds neither. ``WebSocketLimits`` has the whole bound.
///
/// **Bombs.** A compressed message's inflated bytes count against
/// ``WebSocketLimits/maxMessageSize`` (and a compressed frame's against
/// ``WebSocketLimits/maxFrameSize``) while it is inflated: the connection closes with 1009 as soon
/// as the output would cross the limit, so a few kilobytes that inflate to gigabytes cost at
/// most the limit in memory.
///
/// **Negotiation** (RFC 7692 sections 5 and 7). The offers in `Sec-WebSocket-Extensions` are
/// taken in order; an offer is declined (and the next one tried) when it has an unknown
/// parameter, a parameter twice, a value that is not allowed (window bits outside 8-15, a value
/// on a flag), or `server_max_window_bits=8`, which zlib cannot produce. A header that does not
/// parse declines every offer. Declining is never a failed handshake: the connection goes on
/// without compression. The answer names `server_no_context_takeover` and
/// `client_no_context_takeover` when the client asked for them (or the settings do), the
/// server's window when the client limited it, and ``clientWindowBits`` when the client offered
/// `client_max_window_bits`.
///
/// Without the package's `Compression` trait (a build that links no zlib) every offer is
/// declined and this value changes nothing.
public struct WebSocketCompression: Sendable, Equatable {
    /// The window (2^bits bytes, 9-15) the server compresses with; smaller when a client's
    /// `server_max_window_bits` asks for less. Default 12 (4 KiB).
    public var serverWindowBits: Int
    /// The window (8-15) the server asks the client to compress with, when the client offers
    /// `client_max_window_bits` (else the client uses up to 32 KiB and the server's inflater
    /// holds that much). Default 12 (4 KiB).
    public var clientWindowBits: Int
    /// zlib's `memLevel` (1-9) for the server's deflate state: its hash table and output buffer.
    /// Default 5 (16 KiB; zlib's default 8 takes 128 KiB).
    public var memoryLevel: Int
    /// zlib's compression level, 1 (fastest) to 9 (smallest). Default 6.
    public var level: Int
    /// Messages shorter than this many bytes are sent uncompressed (permessage-deflate is per
    /// message, RSV1 clear): below it deflate's framing costs more than it saves. Default 64.
    public var minimumSize: Int
    /// Start each outgoing message with an empty window (`server_no_context_takeover`, always
    /// announced when set): worse compression of similar messages, no window kept between them.
    /// Default false (also set when a client asks for it).
    public var serverNoContextTakeover: Bool
    /// Ask the client to start each message with an empty window (`client_no_context_takeover`).
    /// Default false (announced anyway when a client offers it).
    public var clientNoContextTakeover: Bool

    /// Settings for permessage-deflate.
    /// - Parameters:
    ///   - serverWindowBits: The server's window, 9-15 (default 12; clamped to that range).
    ///   - clientWindowBits: The window asked of clients that offer `client_max_window_bits`, 8-15 (default 12; clamped).
    ///   - memoryLevel: zlib's memLevel, 1-9 (default 5; clamped).
    ///   - level: zlib's level, 1-9 (default 6; clamped).
    ///   - minimumSize: The smallest message compressed, in bytes (default 64).
    ///   - serverNoContextTakeover: Start each outgoing message afresh (default false).
    ///   - clientNoContextTakeover: Ask the client to start each message afresh (default false).
    public init(
        serverWindowBits: Int = 12,
        clientWindowBits: Int = 12,
        memoryLevel: Int = 5,
        level: Int = 6,
        minimumSize: Int = 64,
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false
    ) {
        self.serverWindowBits = min(max(serverWindowBits, 9), 15)
        self.clientWindowBits = min(max(clientWindowBits, 8), 15)
        self.memoryLevel = min(max(memoryLevel, 1), 9)
        self.level = min(max(level, 1), 9)
        self.minimumSize = max(minimumSize, 0)
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
    }

    /// The defaults: windows of 4 KiB both ways, memLevel 5, level 6, messages of 64 bytes and more.
    public static let `default` = WebSocketCompression()
}

/// What a permessage-deflate negotiation settled (RFC 7692 section 7.1): the parameters both
/// sides use, and the `Sec-WebSocket-Extensions` value that tells the client.
struct PerMessageDeflate: Equatable {
    /// The window the server compresses with (9-15).
    var serverWindowBits: Int
    /// The window the client compresses with, at most (8-15): what the server's inflater needs.
    var clientWindowBits: Int
    /// The server resets its compressor after each message.
    var serverNoContextTakeover: Bool
    /// The client resets its compressor after each message (the server may reset its inflater).
    var clientNoContextTakeover: Bool
    /// The settings the server's compressor takes beyond the negotiation.
    var memoryLevel: Int
    var level: Int
    var minimumSize: Int
    /// The response's `Sec-WebSocket-Extensions` value.
    var responseValue: String

    /// The first offer of `fieldValues` (the request's `Sec-WebSocket-Extensions` lines) that the
    /// server can honour with `settings`, or `nil` when there is none.
    static func negotiate(_ fieldValues: [String], settings: WebSocketCompression) -> PerMessageDeflate? {
        guard let offers = ExtensionHeader.parse(fieldValues) else { return nil }
        for offer in offers where offer.name == "permessage-deflate" {
            if let agreement = accept(offer.parameters, settings: settings) { return agreement }
        }
        return nil
    }

    /// The agreement for one offer's parameters, or `nil` to decline it (RFC 7692 section 5).
    private static func accept(_ parameters: [(name: String, value: String?)], settings: WebSocketCompression) -> PerMessageDeflate? {
        var seen = Set<String>()
        var serverNoContextTakeover = settings.serverNoContextTakeover
        var clientNoContextTakeover = settings.clientNoContextTakeover
        var serverMaxWindowBits: Int?
        var clientMaxWindowBits: Int??  // nil: not offered; .some(nil): offered without a value
        for (name, value) in parameters {
            guard seen.insert(name).inserted else { return nil }  // a parameter twice: decline
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let value, let bits = windowBits(value) else { return nil }
                // zlib's deflate cannot make a 256-byte window (it makes 512): decline the offer.
                guard bits >= 9 else { return nil }
                serverMaxWindowBits = bits
            case "client_max_window_bits":
                if let value {
                    guard let bits = windowBits(value) else { return nil }
                    clientMaxWindowBits = .some(bits)
                } else {
                    clientMaxWindowBits = .some(nil)
                }
            default:
                return nil  // a parameter this extension does not define: decline
            }
        }
        let serverBits = min(settings.serverWindowBits, serverMaxWindowBits ?? 15)
        // The client's window: ours when it let us choose, never more than it offered; 15 (what
        // RFC 7692 assumes) when it did not offer the parameter, which the answer may not name.
        let clientBits: Int
        var response = ["permessage-deflate"]
        if serverNoContextTakeover { response.append("server_no_context_takeover") }
        if clientNoContextTakeover { response.append("client_no_context_takeover") }
        if serverMaxWindowBits != nil { response.append("server_max_window_bits=\(serverBits)") }
        switch clientMaxWindowBits {
        case .none:
            clientBits = 15
        case .some(let offered):
            clientBits = min(settings.clientWindowBits, offered ?? 15)
            response.append("client_max_window_bits=\(clientBits)")
        }
        return PerMessageDeflate(
            serverWindowBits: serverBits, clientWindowBits: clientBits,
            serverNoContextTakeover: serverNoContextTakeover, clientNoContextTakeover: clientNoContextTakeover,
            memoryLevel: settings.memoryLevel, level: settings.level, minimumSize: settings.minimumSize,
            responseValue: response.joined(separator: "; ")
        )
    }

    /// 8-15 written as RFC 7692 7.1.2 allows: one or two digits, no leading zero.
    private static func windowBits(_ value: String) -> Int? {
        guard (1...2).contains(value.utf8.count), value.utf8.first != UInt8(ascii: "0"),
              value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let bits = Int(value),
              (8...15).contains(bits)
        else { return nil }
        return bits
    }
}

/// `Sec-WebSocket-Extensions` (RFC 6455 9.1): `extension *("," extension)`, each
/// `token *(";" token ["=" (token / quoted-string)])`, over every line of the field.
enum ExtensionHeader {
    struct Offer: Equatable {
        var name: String
        var parameters: [(name: String, value: String?)]

        static func == (lhs: Offer, rhs: Offer) -> Bool {
            lhs.name == rhs.name && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
                && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
        }
    }

    /// The offers, in order (names lowercased; values unquoted), or `nil` when a line does not parse.
    static func parse(_ lines: [String]) -> [Offer]? {
        var offers: [Offer] = []
        for line in lines {
            var scanner = Scanner(Array(line.utf8))
            while true {
                scanner.skipSpace()
                if scanner.atEnd { break }
                if scanner.take(UInt8(ascii: ",")) { continue }  // empty list elements are allowed (RFC 9110 5.6.1)
                guard let name = scanner.token() else { return nil }
                var offer = Offer(name: name.lowercased(), parameters: [])
                while true {
                    scanner.skipSpace()
                    guard scanner.take(UInt8(ascii: ";")) else { break }
                    scanner.skipSpace()
                    guard let parameter = scanner.token() else { return nil }
                    scanner.skipSpace()
                    var value: String?
                    if scanner.take(UInt8(ascii: "=")) {
                        scanner.skipSpace()
                        guard let parsed = scanner.token() ?? scanner.quotedString() else { return nil }
                        value = parsed
                    }
                    offer.parameters.append((parameter.lowercased(), value))
                }
                offers.append(offer)
                scanner.skipSpace()
                if scanner.atEnd { break }
                guard scanner.take(UInt8(ascii: ",")) else { return nil }
            }
        }
        return offers
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// An RFC 9110 token.
        mutating func token() -> String? {
            let start = index
            while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A quoted string, its escapes undone.
        mutating func quotedString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
                if byte == UInt8(ascii: "\\") {
                    guard index < bytes.count else { return nil }
                    value.append(bytes[index])
                    index += 1
                } else {
                    value.append(byte)
                }
            }
            return nil
        }

        private static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                 UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
                 UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }
}
