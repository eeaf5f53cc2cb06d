public import Configuration
public import WhiskerCore

extension WhiskerServer {
    /// One place settings come from: a swift-configuration provider and the name an error gives it.
    ///
    /// A `ConfigReader` merges its providers and, when a value does not convert (`"x"` for a
    /// port), answers `nil` without saying which provider held it. A source keeps that: a bad
    /// value's error names the key as this source spells it (the provider's encoded key) and the
    /// source's `name`, so an operator knows which line of which file to fix:
    ///
    ///     tls.port in /etc/cat-service.yaml must be a whole number between 0 and 65535, got "x"
    ///     CAT_SERVICE_TLS_PORT must be a whole number between 0 and 65535, got "x"
    ///
    /// Make one per provider and list them, highest priority first, in
    /// `WhiskerServer.ConfigurationSources`:
    ///
    ///     let file = try await FileProvider<WhiskerJSONSnapshot>(filePath: "/etc/cats.json")
    ///     let sources = WhiskerServer.ConfigurationSources([
    ///         .init(EnvironmentVariablesProvider(), name: nil),     // TLS_PORT=8443
    ///         .init(file, name: "/etc/cats.json"),                  // {"tls": {"port": 8443}}
    ///     ])
    public struct ConfigurationSource: Sendable {
        /// Where the values are read: one provider, so that a bad value's source is known, or a
        /// reader that merged providers already.
        enum Values: Sendable {
            case provider(any ConfigProvider)
            case reader(ConfigReader)
        }

        let values: Values

        /// What an error calls this source after the key: a file's path, say. `nil` when the
        /// provider's own spelling of a key says where it is, as an environment variable's name does.
        public var name: String?

        /// A source reading `provider`, named `name` in errors (`"tls.port in NAME"`); with a `nil`
        /// name an error names the key as the provider spells it alone (`"TLS_PORT"`).
        public init(_ provider: any ConfigProvider, name: String?) {
            self.values = .provider(provider)
            self.name = name
        }

        /// A source reading through `reader`, the `ConfigReader` an application already has (scoped
        /// with `reader.scoped(to: "server")` to keep the server's keys under `server.`).
        ///
        /// A reader merges its providers and does not say which one held a value, so an error
        /// names the key and `name` (`"tls.port in the settings must be ..."`), or the key alone
        /// when `name` is `nil`. To name files and variables, give their providers one by one.
        public init(_ reader: ConfigReader, name: String? = nil) {
            self.values = .reader(reader)
            self.name = name
        }
    }
}
