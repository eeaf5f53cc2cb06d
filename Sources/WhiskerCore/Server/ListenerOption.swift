/// Something a listener asks of the connections it accepts besides HTTP, defined by the module
/// that acts on it: a PROXY protocol header first (WhiskerProxies), HTTP/2 only or `Upgrade: h2c`
/// answered (WhiskerHTTP2), nothing but the health checks (WhiskerHealth). Each module offers
/// its options as methods on ``WhiskerServer/Listener``:
///
///     configuration.listeners = [
///         .tcp(host: "0.0.0.0", port: 8080).expectingProxyProtocol(),
///         .tcp(port: 9090).servingOnlyHealthChecks(),
///     ]
///
/// A feature of your own reads its option where it sees the connection
/// (``Connection/listenerOptions``, ``EarlyAnswerContext/listenerOptions``).
public protocol ListenerOption: Sendable {
    /// How the `listening` log line shows the option, as `name=value`.
    var logField: (name: String, value: String) { get }
    /// Whether the listener still serves the routes; `false` for one that answers only what the
    /// option says (the health checks' own listener), which cleartext being off does not close.
    var servesRoutes: Bool { get }
    /// Checked when the server starts: an option the configuration cannot serve (its feature
    /// is off) throws, naming the listener and the setting.
    func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError)
}

extension ListenerOption {
    public var servesRoutes: Bool { true }
    public func validate(_ listener: WhiskerServer.Listener, in configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {}
}

/// The options of one listener, at most one of each type.
public struct ListenerOptions: Sendable {
    /// Every option, in the order set.
    public private(set) var all: [any ListenerOption] = []

    /// No options: plain HTTP (and what the server's features do on every listener).
    public init() {}

    /// The option of type `Option`, if set; setting `nil` removes it.
    public subscript<Option: ListenerOption>(_ type: Option.Type) -> Option? {
        get { all.lazy.compactMap { $0 as? Option }.first }
        set {
            all.removeAll { $0 is Option }
            if let newValue { all.append(newValue) }
        }
    }

    /// Sets `option`, replacing one of its type.
    public mutating func set(_ option: any ListenerOption) {
        let type = ObjectIdentifier(Swift.type(of: option))
        all.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type }
        all.append(option)
    }

    /// Whether the listener serves the routes: no option says otherwise.
    public var servesRoutes: Bool { all.allSatisfy(\.servesRoutes) }
}

extension WhiskerServer.Listener {
    /// This listener with `option` set (replacing one of its type): what the modules' option
    /// methods (`expectingProxyProtocol()`, `servingOnlyHTTP2()`, ...) call.
    public func with(_ option: any ListenerOption) -> Self {
        var listener = self
        listener.options.set(option)
        return listener
    }
}
