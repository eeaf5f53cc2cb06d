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
            /// Serve a listening socket systemd passed (socket activation), TCP or Unix domain
            /// (`ListenStream=/run/x.sock`): see ``Listener/inherited(_:)``.
            case inherited(SystemdSocketActivation.Descriptor)
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

        /// Cleartext HTTP on a listening socket systemd passed to this process (socket activation):
        /// the server adopts it instead of binding, and closes it when it stops.
        ///
        ///     if let activation = try SystemdSocketActivation.fromEnvironment() {
        ///         configuration.listeners = activation.descriptors.map { .inherited($0) }
        ///     }
        ///
        /// WhiskerTLS serves the ones meant for TLS (`activation.listeners(https:)`).
        public static func inherited(_ descriptor: SystemdSocketActivation.Descriptor) -> Self {
            Self(address: .inherited(descriptor))
        }
    }
}

extension WhiskerServer.Listener {
    /// This listener on `host` and `port` instead (each kept when `nil`), if it binds a TCP port:
    /// what a setting that moves a listener does.
    public func binding(host: String? = nil, port: Int? = nil) -> Self {
        guard case .tcp(let bound, let boundPort) = address else { return self }
        var listener = self
        listener.address = .tcp(host: host ?? bound, port: port ?? boundPort)
        return listener
    }

    /// Whether this is a cleartext TCP listener that serves the routes.
    public var isCleartextTCP: Bool {
        guard case .tcp = address, !isTLS, options.servesRoutes else { return false }
        return true
    }
}

extension WhiskerServer.Configuration {
    /// Where a setting that adds a TCP listener without naming a host puts it: the host of the
    /// first listener that binds a TCP port, else `127.0.0.1`.
    public var hostForNewListeners: String {
        for listener in listeners { if case .tcp(let host, _) = listener.address { return host } }
        return "127.0.0.1"
    }

    /// Adds `listener` after the ones that serve the routes, before the ones that answer only
    /// their option's requests (a health checks' own listener stays last).
    public mutating func insertServingListener(_ listener: WhiskerServer.Listener) {
        listeners.insert(listener, at: listeners.firstIndex { !$0.options.servesRoutes } ?? listeners.endIndex)
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

    /// The sockets to open for `configuration`: one for each of its ``Configuration/listeners``, in order.
    static func endpoints(of configuration: Configuration, contributions: ServerFeatureContributions) throws(WhiskerServerError) -> [Endpoint] {
        for feature in configuration.features { try feature.validate(configuration) }
        guard !configuration.listeners.isEmpty else { throw WhiskerServerError("nothing to listen on: configuration.listeners is empty") }
        let offered = ["http/1.1"] + contributions.protocolHandovers.flatMap(\.applicationProtocols)
        var endpoints: [Endpoint] = []
        for listener in configuration.listeners {
            for option in listener.options.all { try option.validate(listener, in: configuration) }
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
            case .inherited(let descriptor):
                endpoints.append(Endpoint(source: .inherited(descriptor), role: role))
            }
        }
        return endpoints
    }
}
