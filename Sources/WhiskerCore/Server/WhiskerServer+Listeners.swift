import Logging
import WhiskerSockets

/// What a listener asks of the connections it accepts besides HTTP: a stream wrapper (TLS), and
/// the options of the modules (``ListenerOption``).
package struct ListenerRole {
    /// Wraps each accepted socket (TLS), or `nil` for cleartext.
    var wrapper: (any StreamWrapper)?
    /// The listener's options.
    package var options = ListenerOptions()
}

extension WhiskerServer {
    /// A socket the server listens on, and what it asks of the connections it accepts there:
    /// one element of ``Configuration/listeners``.
    ///
    ///     configuration.listeners = [
    ///         .tcp(host: "0.0.0.0", port: 8080),
    ///         .unixDomainSocket("/run/cats/cats.sock", permissions: 0o660),   // for nginx on this host
    ///         .tcp(port: 9090).servingOnlyHealthChecks(),       // WhiskerHealth
    ///     ]
    ///
    /// An HTTPS listener comes from WhiskerTLS, with its certificate:
    /// `.https(port: 8443, tls: TLSConfiguration(...))`.
    public struct Listener: Sendable {
        /// Where the listening socket comes from.
        public enum Address: Sendable, Equatable {
            /// Bind a TCP port on a numeric IPv4 or IPv6 address (or `localhost`); port 0 picks a free one.
            case tcp(host: String, port: Int)
            /// Bind a Unix domain socket at `path`, with the file mode `permissions`. A socket file a
            /// process that is gone left there is replaced; a file that is not a socket, or one
            /// another process serves, is a startup error. The file is removed when the server stops.
            case unixDomainSocket(path: String, permissions: UInt32)
            /// Serve the sockets systemd passed with this `FileDescriptorName=` (socket activation:
            /// ``Configuration/socketActivation``): TCP or Unix domain (`ListenStream=/run/x.sock`).
            case inherited(name: String)
        }

        /// Where the listening socket comes from.
        public var address: Address
        /// What the listener asks of its connections besides HTTP, each option a module's:
        /// `expectingProxyProtocol()` (WhiskerProxies), `servingOnlyHealthChecks()`
        /// (WhiskerHealth), `servingOnlyHTTP2()` and `acceptingH2CUpgrade(_:)` (WhiskerHTTP2).
        public var options: ListenerOptions
        /// The TLS side (WhiskerTLS's `.https(...)` sets it), `nil` for cleartext.
        package var secure: (any SecureListener)?

        /// Whether connections speak TLS here.
        public var isTLS: Bool { secure != nil }

        /// A listener on `address` with `options`.
        public init(address: Address, options: ListenerOptions = ListenerOptions()) {
            self.address = address
            self.options = options
        }

        package init(address: Address, options: ListenerOptions = ListenerOptions(), secure: (any SecureListener)?) {
            self.init(address: address, options: options)
            self.secure = secure
        }

        /// Cleartext HTTP (and h2c, with HTTP/2 on) on a TCP port.
        /// - Parameters:
        ///   - host: A numeric IPv4 or IPv6 address, or `localhost`.
        ///   - port: The port; 0 picks a free one.
        public static func tcp(host: String = "127.0.0.1", port: Int) -> Self {
            Self(address: .tcp(host: host, port: port))
        }

        /// Cleartext HTTP on a Unix domain socket: for a reverse proxy on the same machine
        /// (nginx's `proxy_pass http://unix:/run/cats/cats.sock:`), with no port to expose and the
        /// file's mode deciding who may connect. A peer on it is a process of this machine the
        /// mode lets in: with `configuration.reverseProxies` set it is trusted like a listed
        /// proxy (the forwarding field it appends to names the client).
        /// - Parameters:
        ///   - path: The socket file's path (at most 107 bytes).
        ///   - permissions: The file's mode; `0o660` (owner and group) by default.
        public static func unixDomainSocket(_ path: String, permissions: UInt32 = 0o660) -> Self {
            Self(address: .unixDomainSocket(path: path, permissions: permissions))
        }

        /// The sockets systemd passed under `name` (`FileDescriptorName=`, or the socket unit's
        /// name), from ``Configuration/socketActivation``, served as cleartext HTTP.
        public static func inherited(_ name: String) -> Self {
            Self(address: .inherited(name: name))
        }
    }
}

extension WhiskerServer.Configuration {
    /// The listeners ``listeners`` leaves to the older settings when it is empty: cleartext on
    /// ``host``:``port`` (unless ``servesCleartext`` is off), the HTTPS listener of `https`
    /// (WhiskerTLS), each socket of ``socketActivation`` instead of both (TLS for the ones named in
    /// its `tlsNames`), and the health checks' own port. PROXY protocol as
    /// `reverseProxies.proxyProtocol` and `proxyProtocolSocketNames` say (WhiskerProxies).
    ///
    /// To add a listener to these, say a Unix domain socket:
    ///
    ///     configuration.listeners = try configuration.impliedListeners() + [.unixDomainSocket("/run/cats.sock")]
    ///
    /// - Throws: ``WhiskerServerError`` for settings that cannot work together, each named.
    public func impliedListeners() throws(WhiskerServerError) -> [WhiskerServer.Listener] { try impliedListeners(ServerFeatureContributions(self)) }

    /// ``impliedListeners()`` with the features' contributions already gathered.
    func impliedListeners(_ contributions: ServerFeatureContributions) throws(WhiskerServerError) -> [WhiskerServer.Listener] {
        let secureListener = contributions.secureListener
        let proxyProtocol = contributions.proxyTrust?.impliedProxyProtocol ?? (cleartext: false, https: false, socketNames: [])
        /// The listener with the PROXY protocol option if `expects`.
        func proxied(_ listener: WhiskerServer.Listener, _ expects: Bool) -> WhiskerServer.Listener {
            guard expects, let option = contributions.proxyTrust?.listenerOption else { return listener }
            return listener.with(option)
        }
        var listeners: [WhiskerServer.Listener] = []
        if let activation = socketActivation {
            guard !activation.descriptors.isEmpty else {
                throw WhiskerServerError("socket activation passed no sockets to serve (\(SystemdSocketActivation.descriptorCountVariable))")
            }
            let tlsNames = activation.tlsNames.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
            var names: [String] = []
            for descriptor in activation.descriptors where !names.contains(descriptor.name) { names.append(descriptor.name) }
            for name in names {
                var listener = proxied(.inherited(name), proxyProtocol.socketNames.contains(name))
                let socket = activation.descriptors.first { $0.name == name }.map { "\($0)" } ?? name
                if activation.tlsNames.contains(name) {
                    guard let secureListener else {
                        throw WhiskerServerError("the inherited socket \(socket) is named for TLS, but no TLS certificate is configured (configuration.https)")
                    }
                    listener.secure = secureListener
                } else if !servesCleartext {
                    throw WhiskerServerError("the inherited socket \(socket) would serve cleartext HTTP, but cleartext is off (servesCleartext); name it \(tlsNames) to serve TLS on it")
                }
                listeners.append(listener)
            }
            if secureListener != nil, !listeners.contains(where: \.isTLS) {
                throw WhiskerServerError("HTTPS is configured (configuration.https), but no inherited socket is named \(tlsNames) to serve it on (the names are \(names.joined(separator: ":")))")
            }
            if let missing = proxyProtocol.socketNames.sorted().first(where: { !names.contains($0) }) {
                throw WhiskerServerError("reverseProxies.proxyProtocolSocketNames names \"\(missing)\", but no inherited socket has that name (the names are \(names.joined(separator: ":")))")
            }
        } else {
            if servesCleartext {
                listeners.append(proxied(.tcp(host: host, port: port), proxyProtocol.cleartext))
            }
            if let secureListener {
                listeners.append(proxied(WhiskerServer.Listener(
                    address: .tcp(host: secureListener.host ?? host, port: secureListener.port), secure: secureListener), proxyProtocol.https))
            }
            guard !listeners.isEmpty else { throw WhiskerServerError("nothing to listen on: cleartext is off and no HTTPS listener is configured") }
        }
        if let (port, option) = contributions.healthChecksListener {
            listeners.append(WhiskerServer.Listener.tcp(host: host, port: port).with(option))
        }
        return listeners
    }

}

extension WhiskerServer {
    /// A listener to open: an address to bind or a socket to adopt, and what its connections are
    /// asked (TLS prepared, so a bad certificate fails before anything listens).
    struct Endpoint {
        enum Source {
            /// Bind and listen on this address (a Unix domain socket's file with these permissions).
            case bind(SocketAddress, permissions: UInt32?)
            /// Adopt a socket the process inherited, already listening (socket activation).
            case inherited(SystemdSocketActivation.Descriptor)
        }

        let source: Source
        let role: ListenerRole
        var wrapper: (any StreamWrapper)? { role.wrapper }

        /// The listening socket, accepting on `worker`'s queue (a connection that the registry
        /// gives to that worker starts there at once).
        func listen(on worker: IOWorker) throws(WhiskerServerError) -> WhiskerSockets.Listener {
            switch source {
            case .bind(let address, let permissions):
                do {
                    return try WhiskerSockets.Listener(address: address, worker: worker, permissions: permissions)
                } catch {
                    throw WhiskerServerError("cannot listen on \(address.unixPath == nil ? WhiskerServer.display(address.host, address.port) : "\(address)"): \(error)")
                }
            case .inherited(let descriptor):
                do {
                    return try WhiskerSockets.Listener(inheritedDescriptor: descriptor.fd, worker: worker)
                } catch {
                    throw WhiskerServerError("cannot serve the inherited socket \(descriptor): \(error)")
                }
            }
        }

        /// The `listening` log line's metadata: the address, whether it speaks TLS, and for an
        /// inherited socket its descriptor and name.
        func logMetadata(_ listener: WhiskerSockets.Listener) -> Logger.Metadata {
            var metadata: Logger.Metadata = ["address": "\(listener.localAddress)", "tls": "\(wrapper != nil)"]
            if case .inherited(let descriptor) = source {
                metadata["inherited"] = "\(descriptor)"
            }
            for option in role.options.all { metadata[option.logField.name] = "\(option.logField.value)" }
            return metadata
        }
    }

    /// The sockets to open for `configuration`: its ``Configuration/listeners``, or the implied ones.
    static func endpoints(of configuration: Configuration, contributions: ServerFeatureContributions) throws(WhiskerServerError) -> [Endpoint] {
        for feature in configuration.features { try feature.validate(configuration) }
        let listeners = configuration.listeners.isEmpty ? try configuration.impliedListeners(contributions) : configuration.listeners
        let offered = ["http/1.1"] + contributions.protocolHandovers.flatMap(\.applicationProtocols)
        var endpoints: [Endpoint] = []
        for listener in listeners {
            for option in listener.options.all { try option.validate(listener, in: configuration) }
            if !listener.isTLS, listener.options.servesRoutes, !configuration.servesCleartext {
                throw WhiskerServerError("the listener \(listener.address) would serve cleartext HTTP, but cleartext is off (servesCleartext)")
            }
            let wrapper = try listener.secure.map { (secure) throws(WhiskerServerError) in try secure.prepare(offering: offered) }
            let role = ListenerRole(wrapper: wrapper, options: listener.options)
            switch listener.address {
            case .tcp(let host, let port):
                let address: SocketAddress
                do { address = try SocketAddress(host: host, port: port) } catch { throw WhiskerServerError("cannot listen on \(display(host, port)): \(error)") }
                endpoints.append(Endpoint(source: .bind(address, permissions: nil), role: role))
            case .unixDomainSocket(let path, let permissions):
                let address: SocketAddress
                do { address = try SocketAddress(unixPath: path) } catch { throw WhiskerServerError("cannot listen on unix:\(path): \(error)") }
                endpoints.append(Endpoint(source: .bind(address, permissions: permissions), role: role))
            case .inherited(let name):
                let descriptors = configuration.socketActivation?.descriptors.filter { $0.name == name } ?? []
                guard !descriptors.isEmpty else {
                    let names = configuration.socketActivation.map { $0.descriptors.map(\.name).joined(separator: ":") }
                    throw WhiskerServerError("no inherited socket is named \"\(name)\" (\(names.map { "the names are \($0)" } ?? "no socket activation: configuration.socketActivation"))")
                }
                endpoints += descriptors.map { Endpoint(source: .inherited($0), role: role) }
            }
        }
        return endpoints
    }
}
