/// The bounds of one WebSocket connection: sizes, rates and times.
///
/// What a connection holds at most (its memory bound) follows from them: the message being
/// assembled (`maxMessageSize`), the messages read but not yet taken by the handler
/// (`maxBufferedMessages` of at most `maxMessageSize` each: reading stops while they wait, so that
/// TCP flow control slows the peer), a read buffer of at most one read (64 KiB; a frame's payload
/// is moved out as it arrives, so a large frame does not grow it), a control frame (125 bytes) and
/// the frames the handler queued to send (`send` suspends until each one is in the kernel; pongs
/// are coalesced, and dropped while 64 KiB wait for a peer that does not read). With
/// the defaults: about 1 MiB + 4 x 1 MiB + 64 KiB, reached only by a peer that sends 1 MiB messages
/// faster than the handler takes them.
///
/// With permessage-deflate (``WebSocketCompression``, on by default) a connection that has
/// exchanged compressed messages also holds zlib's state, made on first use: with the default
/// settings about 38 KiB to compress and 11 KiB to inflate (7 KiB and a 4 KiB window; 39 KiB for a
/// client that keeps a 32 KiB window), so about 50 KiB beside the figures above; with zlib's own
/// defaults (window 15, memLevel 8) about 300 KiB. Measured on the demo (1,000 connections on
/// loopback, each having echoed one 1 KB message, Python's `websockets`): 14 KiB of resident memory
/// a connection uncompressed, 55 KiB compressed, 15 KiB compressed before any message. A
/// compressed message's inflated size counts against `maxFrameSize` and `maxMessageSize` while
/// it is inflated, so the bound above holds
/// whatever the compression ratio: a bomb is closed with 1009 once it reaches the limit.
///
/// ```swift
/// server.webSocket("/ws/echo", limits: WebSocketLimits(maxMessageSize: 64 * 1024, idleTimeout: .seconds(30))) { socket in
///     for try await message in socket.messages { try await socket.send(message) }
/// }
/// ```
public struct WebSocketLimits: Sendable, Equatable {
    /// The largest frame payload accepted; a bigger frame closes the connection with 1009
    /// (message too big) as soon as its header is read, before any of its payload is buffered.
    /// A compressed frame's inflated bytes count too, as they are inflated.
    public var maxFrameSize: Int
    /// The largest message (the sum of its fragments) accepted; past it, 1009 as soon as the
    /// header of the frame that would cross it is read (for a compressed message, as soon as
    /// inflating would cross it).
    public var maxMessageSize: Int
    /// How many whole messages wait for the handler before the connection stops reading.
    public var maxBufferedMessages: Int
    /// How long a connection may go without a frame from the peer before it is closed
    /// with 1001 (going away); `nil` for never.
    public var idleTimeout: Duration?
    /// How long to wait for the peer's close frame after sending ours (a close by the handler,
    /// a failure, the server's shutdown) before closing the TCP connection anyway.
    public var closeTimeout: Duration
    /// How many pings and pongs a peer may send in a burst, on top of `controlFramesPerSecond`;
    /// past it the connection is closed with 1008 (policy violation).
    public var controlFrameBurst: Int
    /// How many pings and pongs a second a peer may send in the long run.
    public var controlFramesPerSecond: Int

    /// Limits with defaults suited to a browser-facing endpoint.
    /// - Parameters:
    ///   - maxFrameSize: The largest frame payload, in bytes (default 1 MiB).
    ///   - maxMessageSize: The largest message, in bytes (default 1 MiB).
    ///   - maxBufferedMessages: Messages waiting for the handler before reading pauses (default 4).
    ///   - idleTimeout: The longest silence from the peer (default 60 s; `nil` for none).
    ///   - closeTimeout: The wait for the peer's close frame (default 3 s).
    ///   - controlFrameBurst: Pings and pongs allowed in a burst (default 100).
    ///   - controlFramesPerSecond: Pings and pongs allowed a second beyond the burst (default 10).
    public init(
        maxFrameSize: Int = 1 << 20,
        maxMessageSize: Int = 1 << 20,
        maxBufferedMessages: Int = 4,
        idleTimeout: Duration? = .seconds(60),
        closeTimeout: Duration = .seconds(3),
        controlFrameBurst: Int = 100,
        controlFramesPerSecond: Int = 10
    ) {
        self.maxFrameSize = maxFrameSize
        self.maxMessageSize = maxMessageSize
        self.maxBufferedMessages = maxBufferedMessages
        self.idleTimeout = idleTimeout
        self.closeTimeout = closeTimeout
        self.controlFrameBurst = controlFrameBurst
        self.controlFramesPerSecond = controlFramesPerSecond
    }

    /// The limits with defaults.
    public static let `default` = WebSocketLimits()
}
