#if Configuration
public import Configuration
import OpenAPIWhiskerDocument

/// A JSON configuration file for swift-configuration's `FileProvider`, read with Whisker's own
/// JSON reader (the one request validation uses) instead of Foundation's `JSONSerialization`: a
/// server that reads its settings from a file then maps neither libFoundation nor ICU (about
/// 8 MiB of a small server's memory).
///
///     let file = try await FileProvider<WhiskerJSONSnapshot>(filePath: "/etc/cats.json")
///     let sources = WhiskerServer.ConfigurationSources([.init(file, name: "/etc/cats.json")])
///
/// Nested objects are dot-separated keys (`{"tls": {"port": 8443}}` is `tls.port`), as with
/// swift-configuration's `JSONSnapshot`; a key reads as the types its value converts to (a number
/// as an integer or a double, `true` as a boolean, an array of strings as a string array).
/// `null` is no value.
public struct WhiskerJSONSnapshot: FileConfigSnapshot {
    /// How the file is parsed: there is nothing to choose.
    public struct ParsingOptions: FileParsingOptions {
        /// The only options.
        public static var `default`: Self { Self() }

        /// Creates the options.
        public init() {}
    }

    let file: ConfigurationFileValues

    /// The name errors and descriptions give this snapshot's provider.
    public var providerName: String { file.providerName }

    /// Parses `data`, one JSON object; anything else throws an error that says where and why.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - providerName: The name the provider gives itself.
    ///   - parsingOptions: Unused.
    public init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        let bytes = data.withUnsafeBytes { Array($0) }
        file = try ConfigurationFileValues(root: JSONReader.read(bytes), providerName: providerName)
    }

    /// The value of `key` as `type`, `nil` if the file does not set it; throws if the value does
    /// not convert to `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try file.value(forKey: key, type: type)
    }

    /// The provider's name and how many top-level keys the file sets.
    public var description: String { file.description }

    /// As `description`: values may be secrets, so neither prints them.
    public var debugDescription: String { file.description }
}

/// A YAML configuration file for swift-configuration's `FileProvider`, read with Whisker's own
/// YAML reader (the one OpenAPI documents are read with) instead of Yams and Foundation: a server
/// that reads its settings from a file then maps neither libFoundation nor ICU.
///
///     let file = try await FileProvider<WhiskerYAMLSnapshot>(filePath: "/etc/cats.yaml")
///
/// The reader takes block mappings and sequences, plain and quoted scalars, block scalars, flow
/// sequences and mappings, and comments; not anchors, aliases, tags or several documents in one
/// file (it says so, with the line). Plain scalars are typed as YAML 1.2's core schema types them
/// (`8443` a number, `true` a boolean), and nested mappings are dot-separated keys.
public struct WhiskerYAMLSnapshot: FileConfigSnapshot {
    /// How the file is parsed: there is nothing to choose.
    public struct ParsingOptions: FileParsingOptions {
        /// The only options.
        public static var `default`: Self { Self() }

        /// Creates the options.
        public init() {}
    }

    let file: ConfigurationFileValues

    /// The name errors and descriptions give this snapshot's provider.
    public var providerName: String { file.providerName }

    /// Parses `data`, one YAML mapping; anything else throws an error that names the line.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - providerName: The name the provider gives itself.
    ///   - parsingOptions: Unused.
    public init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        let bytes = data.withUnsafeBytes { Array($0) }
        file = try ConfigurationFileValues(root: YAMLReader.read(bytes), providerName: providerName)
    }

    /// The value of `key` as `type`, `nil` if the file does not set it; throws if the value does
    /// not convert to `type`.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try file.value(forKey: key, type: type)
    }

    /// The provider's name and how many top-level keys the file sets.
    public var description: String { file.description }

    /// As `description`: values may be secrets, so neither prints them.
    public var debugDescription: String { file.description }
}

/// Why a configuration file's value is not the type asked for, or the file not a mapping.
struct ConfigurationFileError: Error, CustomStringConvertible {
    let description: String
}

/// A parsed configuration file, its keys looked up through nested objects.
struct ConfigurationFileValues: Sendable {
    let root: JSONValue
    let providerName: String

    init(root: JSONValue, providerName: String) throws {
        guard case .object = root else {
            throw ConfigurationFileError(description: "the top level of a configuration file must be a mapping of keys, in \(providerName)")
        }
        self.root = root
        self.providerName = providerName
    }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let encodedKey = key.components.joined(separator: ".")
        var value = root
        for component in key.components {
            guard let member = value[component] else { return LookupResult(encodedKey: encodedKey, value: nil) }
            value = member
        }
        guard let content = try Self.content(of: value, as: type, key: encodedKey) else {
            return LookupResult(encodedKey: encodedKey, value: nil)
        }
        return LookupResult(encodedKey: encodedKey, value: ConfigValue(content, isSecret: false))
    }

    /// `value` as `type`; `nil` for null and for a group of keys (as `JSONSnapshot`, which flattens them).
    static func content(of value: JSONValue, as type: ConfigType, key: String) throws -> ConfigContent? {
        func mismatch() -> ConfigurationFileError { ConfigurationFileError(description: "\(key) is not \(type)") }
        switch value {
        case .null, .object: return nil
        default: break
        }
        switch type {
        case .string:
            guard case .string(let text) = value else { throw mismatch() }
            return .string(text)
        case .int:
            guard let int = integer(value) else { throw mismatch() }
            return .int(int)
        case .double:
            guard let double = value.double else { throw mismatch() }
            return .double(double)
        case .bool:
            guard case .bool(let bool) = value else { throw mismatch() }
            return .bool(bool)
        case .stringArray:
            guard let items = value.array else { throw mismatch() }
            return .stringArray(try items.map { item throws(ConfigurationFileError) in
                guard case .string(let text) = item else { throw mismatch() }
                return text
            })
        case .intArray:
            guard let items = value.array else { throw mismatch() }
            return .intArray(try items.map { item throws(ConfigurationFileError) in
                guard let int = integer(item) else { throw mismatch() }
                return int
            })
        case .doubleArray:
            guard let items = value.array else { throw mismatch() }
            return .doubleArray(try items.map { item throws(ConfigurationFileError) in
                guard let double = item.double else { throw mismatch() }
                return double
            })
        case .boolArray:
            guard let items = value.array else { throw mismatch() }
            return .boolArray(try items.map { item throws(ConfigurationFileError) in
                guard case .bool(let bool) = item else { throw mismatch() }
                return bool
            })
        default:
            throw mismatch()
        }
    }

    private static func integer(_ value: JSONValue) -> Int? {
        switch value {
        case .integer(let int): Int(exactly: int)
        case .number(let double): Int(exactly: double)
        default: nil
        }
    }

    var description: String {
        guard case .object(let members) = root else { return "\(providerName)[empty]" }
        return "\(providerName)[\(members.count) keys]"
    }
}
#endif
