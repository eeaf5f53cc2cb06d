public import WhiskerCore

extension WhiskerServer {
    /// The keys one module reads, and what they change in a configuration: a module's part of the
    /// key table, as a value.
    ///
    /// Each module that has settings offers its keys (with the package's `Configuration` trait):
    /// the server's own here (`listeners`, `server`, `unixSocket`), `.tls` in WhiskerTLS,
    /// `.http2` in WhiskerHTTP2, `.cors` in WhiskerCORS, and so on. A configuration reads the
    /// groups it is given, in order, and the first bad value stops it with an error naming the key
    /// and its source:
    ///
    ///     var configuration = WhiskerServer.Configuration()
    ///     try configuration.apply(sources, reading: [.listeners, .server, .cors, .unixSocket])
    ///
    /// `import Whisker` gives every group of the build as `WhiskerServer.ConfigurationKeys.whisker`,
    /// which `WhiskerServer.Configuration.init(_:)` reads. A feature of one's own offers its keys
    /// the same way, reading them with the typed reads of `ConfigurationSources`:
    ///
    ///     extension WhiskerServer.ConfigurationKeys {
    ///         static let greeting = Self(["greeting.text"]) { configuration, sources in
    ///             if let text = try sources.string("greeting.text") { configuration.greeting = text }
    ///         }
    ///     }
    public struct ConfigurationKeys: Sendable {
        /// The keys the group reads, as the key table names them: `"cors.origins"`.
        public let names: [String]

        /// Changes what the sources set of the group's keys; throws for a bad value.
        let read: @Sendable (inout WhiskerServer.Configuration, WhiskerServer.ConfigurationSources) throws -> Void

        /// A group reading `names` with `read`, which changes the configuration by the keys the
        /// sources set and leaves the rest, and throws a `ConfigurationError` naming the key and
        /// its source for a value it does not take (the typed reads of `ConfigurationSources`
        /// throw those). Another error stops the read too, as a `ConfigurationError` about the
        /// group's first key that says it.
        public init(
            _ names: [String],
            read: @escaping @Sendable (inout WhiskerServer.Configuration, WhiskerServer.ConfigurationSources) throws -> Void
        ) {
            self.names = names
            self.read = read
        }

        /// The keys of a feature this build leaves out: setting one is an error saying which trait
        /// it needs (`"tls.port in cats.yaml needs Whisker's TLS trait, which this build leaves out"`),
        /// never a setting silently ignored.
        public static func leftOut(_ names: [String], trait: String) -> Self {
            Self(names) { _, sources throws(WhiskerServer.ConfigurationError) in
                for key in names where ((try? sources.value(key)) ?? nil) != nil {
                    throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)) needs Whisker's \(trait) trait, which this build leaves out")
                }
            }
        }
    }
}

extension WhiskerServer.Configuration {
    /// A configuration with the defaults, changed by the keys of `groups` that `sources` set.
    ///
    /// - Throws: `ConfigurationError` for the first bad value, naming the key and
    ///   its source, or for settings that do not fit together.
    public init(_ sources: WhiskerServer.ConfigurationSources, reading groups: [WhiskerServer.ConfigurationKeys]) throws(WhiskerServer.ConfigurationError) {
        self.init()
        try apply(sources, reading: groups)
    }

    /// Changes what `sources` set of the keys of `groups`, read group by group in their order, and
    /// leaves the rest as it is: a program's own defaults, then its files and environment over them.
    public mutating func apply(_ sources: WhiskerServer.ConfigurationSources, reading groups: [WhiskerServer.ConfigurationKeys]) throws(WhiskerServer.ConfigurationError) {
        for group in groups {
            do {
                try group.read(&self, sources)
            } catch let error as WhiskerServer.ConfigurationError {
                throw error
            } catch {
                let key = group.names.first ?? ""
                throw WhiskerServer.ConfigurationError(key: key, "\(sources.origin(of: key)): \(error)")
            }
        }
    }
}
