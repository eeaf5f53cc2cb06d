import HTTPTypes
import WhiskerCore
import WhiskerSockets

/// HTTP/2 as the core sees it (``ProtocolHandover``): it takes a connection over on the client's
/// preface (prior knowledge on cleartext, or after ALPN `h2`), or after `Upgrade: h2c` on a
/// listener that accepts it (`Listener.acceptsH2CUpgrade`), and tells
/// HTTP/2 clients in their own protocol when it cannot serve them. With HTTP/2 off (`settings`
/// nil) it still recognises the preface, to answer GOAWAY(HTTP_1_1_REQUIRED) instead of a 400
/// that the client would read as frames.
struct HTTP2Handover: ServerFeature, ProtocolHandover {
    /// `nil`: HTTP/2 is off.
    let settings: HTTP2Settings?
    /// The cleartext port serves HTTP/2 only (see `Configuration.cleartextHTTP2Only`).
    let cleartextOnly: Bool
    /// Listeners that leave it to the server accept `Upgrade: h2c` (see
    /// `Configuration.acceptsH2CUpgrade`).
    var upgradesByDefault = false

    var applicationProtocols: [String] { settings == nil ? [] : ["h2"] }

    func validate(_ configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        if cleartextOnly && settings == nil {
            throw WhiskerServerError("cleartextHTTP2Only needs HTTP/2, which is off (configuration.http2 is nil)")
        }
    }

    func contribute(to contributions: inout ServerFeatureContributions) { contributions.add(self as any ProtocolHandover) }

    func firstBytes(_ buffer: ReadBuffer, on connection: Connection) -> FirstBytesVerdict {
        let stream = connection.stream
        switch (HTTP2Preface.match(buffer), settings) {
        case (.needMore, _):
            return .needMore
        case (.yes, _?):
            return .takeOver
        case (.yes, nil), (.broken, nil):
            // An HTTP/2 client with prior knowledge, and HTTP/2 is off: say so in its protocol
            // (RFC 9113 §7, HTTP_1_1_REQUIRED), not with a 505 it would read as frames.
            return .refuse(answer: HTTP2Preface.goAway(errorCode: 0xD, reason: Self.off), reason: Self.off)
        case (.broken, _?):
            return .refuse(answer: HTTP2Preface.goAway(errorCode: 0x1, reason: Self.invalid), reason: Self.invalid)
        case (.no, _):
            // ALPN said h2 (or the port is HTTP/2 only), so these bytes cannot be HTTP/1.1: a
            // connection error (RFC 9113 §3.4), not a 400 the client would read as frames.
            let isHTTP2Only = stream.tlsDetails.map { $0.applicationProtocol == "h2" } ?? (cleartextOnly || connection.listenerOptions[HTTP2Only.self] != nil)
            guard isHTTP2Only else { return .http1 }
            return .refuse(answer: HTTP2Preface.goAway(errorCode: 0x1, reason: Self.invalid), reason: Self.invalid)
        }
    }

    /// `Upgrade: h2c` is for cleartext only (over TLS, ALPN chooses), on a listener that accepts it:
    /// its own ``H2CUpgrade`` option, else the server-wide switch, which never applies on a server
    /// that trusts reverse proxies (through one, a `101` is a tunnel past it: h2c smuggling).
    func acceptsUpgrade(_ request: HTTPRequest, on connection: Connection) -> Bool {
        let accepts = connection.listenerOptions[H2CUpgrade.self]?.accepts ?? (upgradesByDefault && !connection.context.trustsProxies)
        return accepts && settings != nil && connection.stream.tlsDetails == nil && HTTP2Upgrade.settingsPayload(request) != nil
    }

    func takeOver(_ connection: Connection, upgrade: HTTPRequest?) throws -> any ConnectionHandler {
        guard let settings else { throw WhiskerServerError("HTTP/2 is off: nothing can take the connection over") }
        guard let upgrade else { return try HTTP2Connection(connection: connection, settings: settings) }
        let payload = HTTP2Upgrade.settingsPayload(upgrade)
        let http2 = try HTTP2Connection(connection: connection, settings: settings, upgrade: (payload ?? [], isHEAD: upgrade.method == .head))
        connection.stream.write(HTTP2Upgrade.switchingProtocols[...], flush: true)
        http2.startUpgradedRequest(upgrade)
        return http2
    }

    func refusal(_ buffer: ReadBuffer, reason: String) -> RefusalAnswer {
        switch HTTP2Preface.match(buffer) {
        case .needMore: .needMore
        case .yes, .broken: .answer(HTTP2Preface.goAway(errorCode: 0, reason: reason))
        case .no: .notMine
        }
    }

    private static let off = "HTTP/2 is off on this server; use HTTP/1.1"
    private static let invalid = "invalid connection preface"
}
