extension RedisStore {
    /// Where Redis is and how long to wait for it.
    public struct Configuration: Sendable, Equatable {
        /// A Redis server's address.
        public enum Address: Sendable, Equatable, CustomStringConvertible {
            /// A host name or IP address and a port.
            case tcp(host: String, port: Int)
            /// A Unix domain socket's path.
            case unix(path: String)

            public var description: String {
                switch self {
                case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                case .unix(let path): "unix:\(path)"
                }
            }
        }

        /// Where Redis listens.
        public var address: Address
        /// The ACL user (Redis 6 and later) for `AUTH`, with ``password``; `nil`: the default user.
        public var user: String?
        /// The password for `AUTH`; `nil`: none.
        public var password: String?
        /// The database `SELECT`ed after connecting: 0 by default.
        public var database: Int
        /// How many connections the pool keeps (each opened on first use): 4 by default. A
        /// command takes about one round trip; more connections serve more at once.
        public var connections: Int
        /// The longest a connection attempt takes: 250 ms by default.
        public var connectTimeout: Duration
        /// The longest a command waits for a connection, and then for its reply: 250 ms by
        /// default. Past it the request fails open or closed, as its limit says.
        public var commandTimeout: Duration
        /// How long a connection that failed to connect fails at once before trying again: 1 s by
        /// default, so that a Redis that is down costs requests nothing more than a failure.
        public var retryInterval: Duration
        /// The start of every key the store writes: `whisker:` by default.
        public var keyPrefix: String

        /// Redis at `address`, with the defaults for the rest.
        public init(
            address: Address, user: String? = nil, password: String? = nil, database: Int = 0, connections: Int = 4,
            connectTimeout: Duration = .milliseconds(250), commandTimeout: Duration = .milliseconds(250),
            retryInterval: Duration = .seconds(1), keyPrefix: String = "whisker:"
        ) {
            precondition(connections >= 1, "a Redis store needs at least 1 connection, not \(connections)")
            precondition(connectTimeout > .zero && commandTimeout > .zero, "Redis timeouts are longer than zero")
            self.address = address
            self.user = user
            self.password = password
            self.database = database
            self.connections = connections
            self.connectTimeout = connectTimeout
            self.commandTimeout = commandTimeout
            self.retryInterval = retryInterval
            self.keyPrefix = keyPrefix
        }

        /// The configuration of a URL: `redis://[[user]:password@]host[:port][/database]`, an IPv6
        /// host in brackets (`redis://[::1]:6380/2`), or `unix:///path/to/redis.sock`.
        /// - Throws: ``URLError`` naming what is wrong.
        public init(url: String) throws {
            if url.hasPrefix("unix://") {
                let path = String(url.dropFirst("unix://".count))
                guard path.hasPrefix("/") else { throw URLError(url: url, problem: "a unix:// URL names an absolute path: unix:///run/redis.sock") }
                self.init(address: .unix(path: path))
                return
            }
            guard url.hasPrefix("redis://") else { throw URLError(url: url, problem: "it starts with redis:// or unix://") }
            var rest = Substring(url.dropFirst("redis://".count))
            var user: String?, password: String?
            if let at = rest.lastIndex(of: "@") {
                let credentials = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = credentials.firstIndex(of: ":") {
                    user = credentials[..<colon].isEmpty ? nil : String(credentials[..<colon])
                    password = String(credentials[credentials.index(after: colon)...])
                } else {
                    password = String(credentials)
                }
            }
            var database = 0
            if let slash = rest.firstIndex(of: "/") {
                let text = rest[rest.index(after: slash)...]
                guard text.isEmpty || Int(text).map({ (0...15_999).contains($0) }) == true else {
                    throw URLError(url: url, problem: "the database after / is a number, not \"\(text)\"")
                }
                database = Int(text) ?? 0
                rest = rest[..<slash]
            }
            var host = rest, portText: Substring = ""
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw URLError(url: url, problem: "an IPv6 host ends with ]") }
                host = rest[rest.index(after: rest.startIndex)..<close]
                portText = rest[rest.index(after: close)...]
                guard portText.isEmpty || portText.hasPrefix(":") else { throw URLError(url: url, problem: "a port follows the host after :") }
                portText = portText.dropFirst()
            } else if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            }
            guard !host.isEmpty else { throw URLError(url: url, problem: "it names a host") }
            guard portText.isEmpty || Int(portText).map({ (1...65_535).contains($0) }) == true else {
                throw URLError(url: url, problem: "the port is 1 to 65535, not \"\(portText)\"")
            }
            self.init(address: .tcp(host: String(host), port: Int(portText) ?? 6379), user: user, password: password, database: database)
        }

        /// A Redis URL that cannot be used, and why.
        public struct URLError: Error, CustomStringConvertible {
            /// The URL, its password hidden.
            public let url: String
            /// What is wrong with it.
            public let problem: String

            init(url: String, problem: String) {
                // A password never reaches a log line.
                if let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") {
                    self.url = String(url[..<scheme.upperBound]) + "…" + String(url[at...])
                } else {
                    self.url = url
                }
                self.problem = problem
            }

            public var description: String { "\(url) is not a Redis URL: \(problem)" }
        }
    }
}
