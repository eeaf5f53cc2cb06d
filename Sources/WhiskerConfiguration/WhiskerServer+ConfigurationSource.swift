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
    ///     let file = try await FileProvider<JSONSnapshot>(filePath: "/etc/cats.json")
    ///     let sources = WhiskerServer.ConfigurationSources([
    ///         .init(EnvironmentVariablesProvider(), name: nil),     // TLS_PORT=8443
    ///         .init(file, name: "/etc/cats.json"),                  // {"tls": {"port": 8443}}
    ///     ])
    public struct ConfigurationSource: Sendable {
        /// Where the values are: environment variables, a parsed file, memory, or any provider.
        public var provider: any ConfigProvider

        /// What an error calls this source after the key: a file's path, say. `nil` when the
        /// provider's own spelling of a key says where it is, as an environment variable's name does.
        public var name: String?

        /// A source reading `provider`, named `name` in errors (`"tls.port in NAME"`); with a `nil`
        /// name an error names the key as the provider spells it alone (`"TLS_PORT"`).
        public init(_ provider: any ConfigProvider, name: String?) {
            self.provider = provider
            self.name = name
        }
    }
}
