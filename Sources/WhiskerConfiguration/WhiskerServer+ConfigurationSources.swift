public import Configuration
public import WhiskerCore

extension WhiskerServer {
    /// Sources of settings in priority order, and typed reads of one key that check the value and
    /// name the key and its source when it is wrong.
    ///
    /// `WhiskerServer.Configuration.init(_:)` reads the server's key table through these; an
    /// application reads its own keys the same way, so its errors look like the server's:
    ///
    ///     let sources = WhiskerServer.ConfigurationSources([
    ///         .init(EnvironmentVariablesProvider(), name: nil),
    ///     ])
    ///     let replicas = try sources.integer("replicas", in: 1...16) ?? 3
    ///     // REPLICAS=20: "REPLICAS must be a whole number between 1 and 16, got "20""
    ///
    /// The first source that sets a key gives its value; the later ones are not consulted for it,
    /// even when that value is bad. An empty value (`PORT=`) counts as unset. Every value is read
    /// as text and parsed here, whatever type the provider keeps it in, so that `8080` in JSON,
    /// `8080` in YAML and `PORT=8080` mean the same; a list is a string array, or one string of
    /// comma-separated items.
    public struct ConfigurationSources: Sendable {
        /// The sources, highest priority first.
        public var sources: [ConfigurationSource]

        /// Sources read in this order: a key's value comes from the first that sets it.
        public init(_ sources: [ConfigurationSource]) {
            self.sources = sources
        }

        /// The value of `key` (dot-separated, like `"tls.port"`) from the first source that sets
        /// it, or `nil` when none does. Throws when the key holds a group of keys, not a value.
        public func value(_ key: String) throws(ConfigurationError) -> ConfigurationValue? {
            let absolute = AbsoluteConfigKey(key.split(separator: ".").map(String.init))
            for source in sources {
                let found = try Self.lookUp(absolute, named: key, in: source)
                if let found, !found.text.isEmpty || !found.items.isEmpty {
                    return found
                }
            }
            return nil
        }

        /// The types tried in turn: a provider parses a value as the type asked for (a JSON
        /// number is no string, an environment variable is any), and text is what this reads.
        private static let types: [ConfigType] = [.string, .int, .double, .bool, .stringArray, .intArray, .doubleArray, .boolArray]

        private static func lookUp(_ key: AbsoluteConfigKey, named name: String, in source: ConfigurationSource) throws(ConfigurationError) -> ConfigurationValue? {
            switch source.values {
            case .provider(let provider):
                for type in types {
                    guard let result = try? provider.value(forKey: key, type: type) else { continue }
                    guard let value = result.value else { return nil }
                    let origin = source.name.map { "\(result.encodedKey) in \($0)" } ?? result.encodedKey
                    return ConfigurationValue(key: name, content: value.content, origin: origin)
                }
                // Set, but as nothing a setting can be: a group of keys ({"tls": {...}} read as "tls").
                let origin = source.name.map { "\(name) in \($0)" } ?? name
                throw ConfigurationError(key: name, "\(origin) must be a single value or a list, not a group of keys")
            case .reader(let reader):
                guard let content = Self.content(of: ConfigKey(key.components), in: reader) else { return nil }
                return ConfigurationValue(key: name, content: content, origin: source.name.map { "\(name) in \($0)" } ?? name)
            }
        }

        /// The value of `key` through a reader, in the first of `types` it converts to: the reader
        /// answers `nil` for a type the value is not (a JSON number is no string).
        private static func content(of key: ConfigKey, in reader: ConfigReader) -> ConfigContent? {
            if let string = reader.string(forKey: key) { return .string(string) }
            if let int = reader.int(forKey: key) { return .int(int) }
            if let double = reader.double(forKey: key) { return .double(double) }
            if let bool = reader.bool(forKey: key) { return .bool(bool) }
            if let strings = reader.stringArray(forKey: key) { return .stringArray(strings) }
            if let ints = reader.intArray(forKey: key) { return .intArray(ints) }
            if let doubles = reader.doubleArray(forKey: key) { return .doubleArray(doubles) }
            if let bools = reader.boolArray(forKey: key) { return .boolArray(bools) }
            return nil
        }
    }

    /// A setting's value as text, and where it came from for the errors about it.
    public struct ConfigurationValue: Sendable, Equatable {
        /// The key as the server's key table names it: `"tls.port"`.
        public var key: String

        /// The value as text: `"8443"`, `"true"`, `"0.5"`; a list's items joined by commas.
        public var text: String

        /// A list's items: a string array's elements, or the text's comma-separated items, trimmed.
        public var items: [String]

        /// The key as its source spells it, and the source's name: `"tls.port in /etc/cats.yaml"`,
        /// `"CAT_SERVICE_TLS_PORT"`. Errors start with it.
        public var origin: String

        /// A value read from a provider: its content becomes text (and items).
        public init(key: String, content: ConfigContent, origin: String) {
            self.key = key
            self.origin = origin
            switch content {
            case .string(let string):
                text = string
                items = string.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
            case .int(let int): text = "\(int)"; items = [text]
            case .double(let double): text = "\(double)"; items = [text]
            case .bool(let bool): text = "\(bool)"; items = [text]
            case .stringArray(let array): items = array; text = array.joined(separator: ",")
            case .intArray(let array): items = array.map { "\($0)" }; text = items.joined(separator: ",")
            case .doubleArray(let array): items = array.map { "\($0)" }; text = items.joined(separator: ",")
            case .boolArray(let array): items = array.map { "\($0)" }; text = items.joined(separator: ",")
            case .bytes, .byteChunkArray: text = ""; items = []
            }
        }

        /// An error about this value: `"ORIGIN must be ..., got "TEXT""`.
        public func mustBe(_ requirement: String) -> ConfigurationError {
            ConfigurationError(key: key, "\(origin) must be \(requirement), got \"\(text)\"")
        }
    }

    /// A setting that is wrong, in one line naming the key and where it came from, as a command
    /// line tool prints it: `tls.port in /etc/cats.yaml must be a whole number between 0 and
    /// 65535, got "x"`.
    public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
        /// The key, as the server's key table names it.
        public var key: String

        /// The whole message.
        public var description: String

        /// An error about `key`, saying `description`.
        public init(key: String, _ description: String) {
            self.key = key
            self.description = description
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
