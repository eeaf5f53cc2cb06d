public import HTTPTypes
public import WhiskerCore

extension WhiskerServer {
    /// Cross-origin resource sharing for the routes under one path prefix: which web pages (by
    /// origin) may call them from a browser, with which methods, headers and credentials.
    ///
    ///     configuration.cors = [.init(allowedOrigins: ["https://cats.example", "https://*.cats.example"], pathPrefix: "/api/")]
    ///
    /// The server answers a browser's preflight itself (an `OPTIONS` with `Origin` and
    /// `Access-Control-Request-Method`) for every registered path under ``pathPrefix``, before
    /// routing, over HTTP/1.1 and HTTP/2: `204` with the `Access-Control-Allow-*` fields when the
    /// origin, the method (one the path has) and the requested headers are allowed; otherwise `403`
    /// with a line that says which of them is not (a path with no route is `404`). Every handler's
    /// response to a request with an allowed `Origin` gets `Access-Control-Allow-Origin` (and
    /// `-Credentials`, `-Expose-Headers`); a response under the prefix always says `Vary: Origin`,
    /// since what it carries depends on it.
    public struct CORS: Sendable, Equatable {
        /// The routes it covers: paths that start with this (`/api/`); `/` for all.
        public var pathPrefix: String
        /// The origins allowed (scheme, host and port as a browser sends them in `Origin`):
        /// `https://cats.example`, `http://localhost:5173`; a pattern with one `*` in place of
        /// host labels, `https://*.cats.example` (any subdomain, not the bare domain); or `*` for
        /// any origin, which cannot go with ``allowsCredentials``.
        public var allowedOrigins: [String]
        /// The methods allowed, or `nil` (the default) for each path's own (a `GET` route allows
        /// `GET` and `HEAD`).
        public var allowedMethods: [HTTPRequest.Method]?
        /// The request header fields a page may send besides the CORS-safelisted ones,
        /// case-insensitive.
        public var allowedHeaders: [String] = ["Accept", "Authorization", "Content-Type", "X-Request-ID"]
        /// The response header fields a page may read besides the safelisted ones.
        public var exposedHeaders: [String] = []
        /// How long a browser may keep a preflight's answer (`Access-Control-Max-Age`), or `nil`
        /// to leave it to the browser (5 s in most).
        public var maxAge: Duration? = .seconds(600)
        /// Whether pages may send cookies and HTTP authentication (`Access-Control-Allow-Credentials`);
        /// then the origin is always named, never `*`.
        public var allowsCredentials = false

        /// Allows `allowedOrigins` for the routes under `pathPrefix`.
        public init(allowedOrigins: [String], pathPrefix: String = "/") {
            self.allowedOrigins = allowedOrigins
            self.pathPrefix = pathPrefix
        }

        /// Checks the policy, as the server does when it starts.
        /// - Throws: ``/WhiskerCore/WhiskerServerError`` naming what cannot work: `*` with credentials, an
        ///   origin that is not `scheme://host[:port]`, a `*` anywhere but as the first host label,
        ///   no origins, a prefix without a leading `/`.
        public func validate() throws(WhiskerServerError) {
            if let problem = problem() { throw WhiskerServerError("configuration.cors: \(problem)") }
        }

        private func problem() -> String? {
            if !pathPrefix.hasPrefix("/") { return "the path prefix \"\(pathPrefix)\" must start with /" }
            if allowedOrigins.isEmpty { return "no allowed origins for \(pathPrefix)" }
            for origin in allowedOrigins {
                if origin == "*" {
                    if allowsCredentials { return "allowed origin * cannot go with allowsCredentials (browsers refuse it): name the origins" }
                    continue
                }
                let parts = origin.split(separator: "/", omittingEmptySubsequences: false)
                // "scheme:", "", "host[:port]"
                guard parts.count == 3, parts[0].count > 1, parts[0].hasSuffix(":"), parts[1].isEmpty, !parts[2].isEmpty,
                      parts[2].filter({ $0 == "*" }).count <= 1, !parts[2].contains("*") || parts[2].hasPrefix("*.")
                else { return "allowed origin \"\(origin)\" is not scheme://host[:port] (a * only as the first host label)" }
            }
            return nil
        }
    }
}

extension WhiskerServer.Configuration {
    /// Cross-origin resource sharing (``WhiskerCore/WhiskerServer/CORS``), one policy per path
    /// prefix (the longest matching prefix wins); empty (the default): preflights are routed like
    /// any `OPTIONS`, and no response says `Access-Control-Allow-Origin`. Checked when the server
    /// starts (``WhiskerCore/WhiskerServer/CORS/validate()``).
    ///
    ///     import WhiskerCORS
    ///     configuration.cors = [.init(allowedOrigins: ["https://cats.example"], pathPrefix: "/api/")]
    public var cors: [WhiskerServer.CORS] {
        get { features[CrossOrigin.self]?.policies ?? [] }
        set { features[CrossOrigin.self] = CrossOrigin(newValue) }
    }
}
