import WhiskerSockets
import WhiskerTLS

extension WhiskerServer {
    /// A listener to open: an address, and the loaded TLS context if it speaks HTTPS.
    struct Endpoint {
        let host: String
        let port: Int
        let tls: TLSContext?

        func listen() throws(WhiskerServerError) -> Listener {
            do {
                return try Listener(address: SocketAddress(host: host, port: port))
            } catch {
                throw WhiskerServerError("cannot listen on \(WhiskerServer.display(host, port)): \(error)")
            }
        }
    }

    /// The listeners the configuration asks for, with TLS loaded (so a bad certificate fails here,
    /// naming the file, before anything listens).
    static func endpoints(of configuration: Configuration) throws(WhiskerServerError) -> [Endpoint] {
        var endpoints: [Endpoint] = []
        if configuration.servesCleartext {
            endpoints.append(Endpoint(host: configuration.host, port: configuration.port, tls: nil))
        }
        if let https = configuration.https {
            let context: TLSContext
            do {
                var tls = https.tls
                if configuration.http2 == nil { tls.applicationProtocols.removeAll { $0 == "h2" } }
                context = try TLSContext(tls)
            } catch {
                throw WhiskerServerError("cannot serve HTTPS: \(error)")
            }
            endpoints.append(Endpoint(host: https.host ?? configuration.host, port: https.port, tls: context))
        }
        guard !endpoints.isEmpty else { throw WhiskerServerError("nothing to listen on: cleartext is off and no HTTPS listener is configured") }
        return endpoints
    }
}
