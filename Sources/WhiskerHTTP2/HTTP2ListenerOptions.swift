public import WhiskerCore

/// The listener option of a cleartext listener that serves HTTP/2 only (h2c with prior
/// knowledge; `Listener.servingOnlyHTTP2()`).
public struct HTTP2Only: ListenerOption, Equatable {
    /// The option.
    public init() {}

    public var logField: (name: String, value: String) { ("http2_only", "true") }

    public func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        guard configuration.http2 != nil else {
            throw WhiskerServerError("the listener \(listener.address) serves only HTTP/2, which is off (configuration.http2 is nil)")
        }
    }
}

/// Whether an HTTP/1.1 request on a listener may switch to HTTP/2 with `Upgrade: h2c`, decided for
/// that listener alone (`Listener.acceptingH2CUpgrade(_:)`).
public struct H2CUpgrade: ListenerOption, Equatable {
    /// Whether `Upgrade: h2c` is answered with `101` here.
    public var accepts: Bool

    /// The option: `accepts` or refuses the upgrade here.
    public init(accepts: Bool) { self.accepts = accepts }

    public var logField: (name: String, value: String) { ("h2c_upgrade", "\(accepts)") }
}

extension WhiskerServer.Listener {
    /// This cleartext listener serving HTTP/2 only (h2c with prior knowledge), as backends that a
    /// proxy or a gRPC client reaches over h2c use: anything but the HTTP/2 preface gets
    /// GOAWAY(PROTOCOL_ERROR). Needs HTTP/2 on (`configuration.http2`).
    public func servingOnlyHTTP2() -> Self { with(HTTP2Only()) }

    /// Whether an HTTP/1.1 request here may switch to HTTP/2 with `Upgrade: h2c` and
    /// `HTTP2-Settings` (answered `101`; HTTP/2 on, cleartext only), for this listener alone;
    /// without the option, the server-wide switch decides (`configuration.acceptsH2CUpgrade`,
    /// off by default), which never reaches a listener of a server that trusts reverse proxies.
    ///
    /// Off, an `Upgrade: h2c` request is served as HTTP/1.1, the upgrade ignored (RFC 9110
    /// §7.8); h2c with prior knowledge is served either way. Keep it off behind a proxy that
    /// forwards `Upgrade` (nginx's WebSocket recipe, HAProxy's `mode http`): a `101` there
    /// opens a tunnel through the proxy in which the client speaks HTTP/2 that the proxy never
    /// parses, so its access rules, limits and logs are bypassed (h2c smuggling).
    public func acceptingH2CUpgrade(_ accepts: Bool = true) -> Self { with(H2CUpgrade(accepts: accepts)) }

    /// Whether the listener serves HTTP/2 only.
    public var servesOnlyHTTP2: Bool { options[HTTP2Only.self] != nil }

    /// This listener's own say on `Upgrade: h2c`, `nil` to leave it to the server-wide switch.
    public var acceptsH2CUpgrade: Bool? { options[H2CUpgrade.self]?.accepts }
}
