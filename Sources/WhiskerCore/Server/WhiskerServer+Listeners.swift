import Logging
import WhiskerSockets

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
        let wrapper: (any StreamWrapper)?

        func listen() throws(WhiskerServerError) -> Listener {
            switch source {
            case .bind(let host, let port):
                do {
                    return try Listener(address: SocketAddress(host: host, port: port))
                } catch {
                    throw WhiskerServerError("cannot listen on \(WhiskerServer.display(host, port)): \(error)")
                }
            case .inherited(let descriptor):
                do {
                    return try Listener(inheritedDescriptor: descriptor.fd)
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
            return metadata
        }
    }

    /// The listeners the configuration asks for, with the encrypted listener prepared (so a bad
    /// certificate fails here, naming the file, before anything listens).
    static func endpoints(of configuration: Configuration) throws(WhiskerServerError) -> [Endpoint] {
        try configuration.protocolHandover?.validate()
        let offered = ["http/1.1"] + (configuration.protocolHandover?.applicationProtocols ?? [])
        let wrapper = try configuration.secureListener.map { (listener) throws(WhiskerServerError) in try listener.prepare(offering: offered) }
        if let activation = configuration.socketActivation {
            return try inheritedEndpoints(activation, configuration, wrapper: wrapper)
        }
        var endpoints: [Endpoint] = []
        if configuration.servesCleartext {
            endpoints.append(Endpoint(source: .bind(host: configuration.host, port: configuration.port), wrapper: nil))
        }
        if let listener = configuration.secureListener, let wrapper {
            endpoints.append(Endpoint(source: .bind(host: listener.host ?? configuration.host, port: listener.port), wrapper: wrapper))
        }
        guard !endpoints.isEmpty else { throw WhiskerServerError("nothing to listen on: cleartext is off and no HTTPS listener is configured") }
        return endpoints
    }

    /// One endpoint per inherited socket, in order; TLS by name. Checked before any socket is
    /// adopted, so a bad combination leaves every descriptor untouched.
    private static func inheritedEndpoints(_ activation: SocketActivation, _ configuration: Configuration, wrapper: (any StreamWrapper)?) throws(WhiskerServerError) -> [Endpoint] {
        guard !activation.descriptors.isEmpty else {
            throw WhiskerServerError("socket activation passed no sockets to serve (LISTEN_FDS)")
        }
        let tlsNames = activation.tlsNames.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
        var endpoints: [Endpoint] = []
        for descriptor in activation.descriptors {
            if activation.servesTLS(descriptor) {
                guard let wrapper else {
                    throw WhiskerServerError("the inherited socket \(descriptor) is named for TLS, but no TLS certificate is configured (configuration.https)")
                }
                endpoints.append(Endpoint(source: .inherited(descriptor), wrapper: wrapper))
            } else {
                guard configuration.servesCleartext else {
                    throw WhiskerServerError("the inherited socket \(descriptor) would serve cleartext HTTP, but cleartext is off (servesCleartext); name it \(tlsNames) to serve TLS on it")
                }
                endpoints.append(Endpoint(source: .inherited(descriptor), wrapper: nil))
            }
        }
        if configuration.secureListener != nil, !endpoints.contains(where: { $0.wrapper != nil }) {
            let names = activation.descriptors.map(\.name).joined(separator: ":")
            throw WhiskerServerError("HTTPS is configured (configuration.https), but no inherited socket is named \(tlsNames) to serve it on (the names are \(names))")
        }
        return endpoints
    }
}
