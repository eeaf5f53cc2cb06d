/// HTTP/2 settings and abuse limits for a server connection.
///
///     var http2 = HTTP2Settings()
///     http2.maxConcurrentStreams = 256
public struct HTTP2Settings: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once; more are refused.
    public var maxConcurrentStreams: UInt32 = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE: how many request-body bytes a client may send on a stream
    /// before the handler reads them. Bytes are acknowledged only as the handler reads them, so this
    /// is also the most a stream buffers.
    public var initialStreamWindowSize: UInt32 = 256 * 1024
    /// The connection-wide receive window (all streams' unread bytes together).
    public var connectionWindowSize: Int32 = 4 * 1024 * 1024
    /// SETTINGS_MAX_HEADER_LIST_SIZE: the largest request header list, in HPACK's accounting
    /// (name + value + 32 bytes a field, every cookie crumb a field, counted as it is decoded); a
    /// larger one gets 431. One that runs 25 % past it is decoded no further (HPACK can make a
    /// 16 KB frame 65 MB of fields, each validated), and the connection ends with
    /// GOAWAY(ENHANCE_YOUR_CALM), as it does after four refused header blocks at once (one
    /// forgiven every 10 s).
    public var maxHeaderListSize: UInt32 = 80 * 1024
    /// The largest frame payload the server sends (SETTINGS_MAX_FRAME_SIZE applies to what the peer sends).
    public var maxFrameSize: UInt32 = 16 * 1024
    /// Stream resets a connection may cause: `burst` at once, refilled at `perSecond`, counted
    /// twice over, in two buckets. One counts the RST_STREAMs the client sends (rapid reset,
    /// CVE-2023-44487; nghttp2's own limit stays on behind it at twice the rate); the other the RST_STREAMs with an error the server sends because the client
    /// broke a stream's rules (MadeYouReset, CVE-2025-8671: a WINDOW_UPDATE overflowing the stream's
    /// window, a stream over the concurrency limit). Past either the connection ends with
    /// GOAWAY(ENHANCE_YOUR_CALM).
    public var resetRateLimit: (burst: UInt64, perSecond: UInt64) = (1000, 33)
    /// The most CONTINUATION frames accepted for one header block (CVE-2024-27316 style floods).
    public var maxContinuations: Int = 8

    /// Creates the defaults.
    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.maxConcurrentStreams == rhs.maxConcurrentStreams && lhs.initialStreamWindowSize == rhs.initialStreamWindowSize
            && lhs.connectionWindowSize == rhs.connectionWindowSize && lhs.maxHeaderListSize == rhs.maxHeaderListSize
            && lhs.maxFrameSize == rhs.maxFrameSize && lhs.resetRateLimit == rhs.resetRateLimit
            && lhs.maxContinuations == rhs.maxContinuations
    }
}
