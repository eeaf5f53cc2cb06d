import Logging
import WhiskerSockets

/// What a listener asks of the connections it accepts besides HTTP: a stream wrapper (TLS), a
/// PROXY protocol header first, or nothing but the health checks.
struct ListenerRole {
    /// Wraps each accepted socket (TLS), or `nil` for cleartext.
    var wrapper: (any StreamWrapper)?
    /// Each connection starts with a PROXY protocol header from one of these trusted proxies.
    var proxyProtocol: WhiskerServer.ReverseProxies?
    /// The health checks' own listener: it answers nothing else.
    var servesOnlyHealth = false
}

extension WhiskerServer {
    /// A listener to open: an address to bind or a socket to adopt, and the wrapper of its
    /// accepted sockets if it is the encrypted one.
    struct Endpoint {
        enum Source {
            /// Bind and listen on this address.
            case bind(host: String, port: Int)
            /// Adopt a socket the process inherited, already listening (socket activation).
            case inherited(SystemdSocketActivation.Descriptor)
        }

        let source: Source
        let role: ListenerRole
        var wrapper: (any StreamWrapper)? { role.wrapper }

        /// The listening socket, accepting on `worker`'s queue (a connection that the registry
        /// gives to that worker starts there at once).
        func listen(on worker: IOWorker) throws(WhiskerServerError) -> Listener {
            switch source {
            case .bind(let host, let port):
                do {
                    return try Listener(address: SocketAddress(host: host, port: port), worker: worker)
                } catch {
                    throw WhiskerServerError("cannot listen on \(WhiskerServer.display(host, port)): \(error)")
                }
            case .inherited(let descriptor):
                do {
                    return try Listener(inheritedDescriptor: descriptor.fd, worker: worker)
                } catch {
                    throw WhiskerServerError("cannot serve the inherited socket \(descriptor): \(error)")
                }
            }
        }

        /// The `listening` log line's metadata: the address, whether it speaks TLS, and for an
        /// inherited socket its descriptor and name.
        func logMetadata(_ listener: Listener) -> Logger.Metadata {
            var metadata: Logger.Metadata = ["address": "\(listener.localAddress)", "tls": "\(wrapper != nil)"]
            if case .inherited(let descriptor) = source {
                metadata["inherited"] = "\(descriptor)"
            }
            if role.proxyProtocol != nil { metadata["proxy_protocol"] = "true" }
            if role.servesOnlyHealth { metadata["health_only"] = "true" }
            return metadata
        }
    }

    /// The listeners the configuration asks for, with the encrypted listener prepared (so a bad
    /// certificate fails here, naming the file, before anything listens).
    static func endpoints(of configuration: Configuration) throws(WhiskerServerError) -> [Endpoint] {
        try configuration.protocolHandover?.validate()
        for policy in configuration.cors { try policy.validate() }
        let offered = ["http/1.1"] + (configuration.protocolHandover?.applicationProtocols ?? [])
        let wrapper = try configuration.secureListener.map { (listener) throws(WhiskerServerError) in try listener.prepare(offering: offered) }
        if let activation = configuration.socketActivation {
            return try inheritedEndpoints(activation, configuration, wrapper: wrapper)
        }
        let proxies = configuration.reverseProxies
        var endpoints: [Endpoint] = []
        if configuration.servesCleartext {
            let expectsHeader = proxies?.proxyProtocol.contains(.cleartext) == true
            endpoints.append(Endpoint(source: .bind(host: configuration.host, port: configuration.port),
                                      role: ListenerRole(proxyProtocol: expectsHeader ? proxies : nil)))
        }
        if let listener = configuration.secureListener, let wrapper {
            let expectsHeader = proxies?.proxyProtocol.contains(.https) == true
            endpoints.append(Endpoint(source: .bind(host: listener.host ?? configuration.host, port: listener.port),
                                      role: ListenerRole(wrapper: wrapper, proxyProtocol: expectsHeader ? proxies : nil)))
        }
        guard !endpoints.isEmpty else { throw WhiskerServerError("nothing to listen on: cleartext is off and no HTTPS listener is configured") }
        return endpoints + healthEndpoint(of: configuration)
    }

    /// The health checks' own listener, if they have one.
    private static func healthEndpoint(of configuration: Configuration) -> [Endpoint] {
        guard let port = configuration.healthChecks?.port else { return [] }
        return [Endpoint(source: .bind(host: configuration.host, port: port), role: ListenerRole(servesOnlyHealth: true))]
    }

    /// One endpoint per inherited socket, in order; TLS by name. Checked before any socket is
    /// adopted, so a bad combination leaves every descriptor untouched.
    private static func inheritedEndpoints(_ activation: SocketActivation, _ configuration: Configuration, wrapper: (any StreamWrapper)?) throws(WhiskerServerError) -> [Endpoint] {
        guard !activation.descriptors.isEmpty else {
            throw WhiskerServerError("socket activation passed no sockets to serve (LISTEN_FDS)")
        }
        let tlsNames = activation.tlsNames.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
        let proxies = configuration.reverseProxies
        var endpoints: [Endpoint] = []
        for descriptor in activation.descriptors {
            let expectsHeader = proxies?.proxyProtocolSocketNames.contains(descriptor.name) == true
            if activation.servesTLS(descriptor) {
                guard let wrapper else {
                    throw WhiskerServerError("the inherited socket \(descriptor) is named for TLS, but no TLS certificate is configured (configuration.https)")
                }
                endpoints.append(Endpoint(source: .inherited(descriptor), role: ListenerRole(wrapper: wrapper, proxyProtocol: expectsHeader ? proxies : nil)))
            } else {
                guard configuration.servesCleartext else {
                    throw WhiskerServerError("the inherited socket \(descriptor) would serve cleartext HTTP, but cleartext is off (servesCleartext); name it \(tlsNames) to serve TLS on it")
                }
                endpoints.append(Endpoint(source: .inherited(descriptor), role: ListenerRole(proxyProtocol: expectsHeader ? proxies : nil)))
            }
        }
        if configuration.secureListener != nil, !endpoints.contains(where: { $0.wrapper != nil }) {
            let names = activation.descriptors.map(\.name).joined(separator: ":")
            throw WhiskerServerError("HTTPS is configured (configuration.https), but no inherited socket is named \(tlsNames) to serve it on (the names are \(names))")
        }
        if let names = proxies?.proxyProtocolSocketNames, let missing = names.first(where: { name in !activation.descriptors.contains { $0.name == name } }) {
            throw WhiskerServerError("reverseProxies.proxyProtocolSocketNames names \"\(missing)\", but no inherited socket has that name (the names are \(activation.descriptors.map(\.name).joined(separator: ":")))")
        }
        return endpoints + healthEndpoint(of: configuration)
    }
}
