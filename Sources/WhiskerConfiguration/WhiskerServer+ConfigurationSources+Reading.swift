public import WhiskerCore

// Typed reads: each answers nil when no source sets the key, and throws a ConfigurationError that
// names the key and its source when the value is not one the setting takes.
extension WhiskerServer.ConfigurationSources {
    /// The text of `key`, taken as it is.
    public func string(_ key: String) throws(WhiskerServer.ConfigurationError) -> String? {
        try value(key)?.text
    }

    /// `true` for `true`, `yes`, `on` or `1`; `false` for `false`, `no`, `off` or `0` (any case).
    public func bool(_ key: String) throws(WhiskerServer.ConfigurationError) -> Bool? {
        guard let value = try value(key) else { return nil }
        switch value.text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw value.mustBe("true or false")
        }
    }

    /// A whole number in `range`: `"ORIGIN must be a whole number between 1 and 256, got "0""`.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(WhiskerServer.ConfigurationError) -> Int? {
        guard let value = try value(key) else { return nil }
        guard let number = Int(value.text), range.contains(number) else {
            let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
            throw value.mustBe("a whole number \(bounds)")
        }
        return number
    }

    /// A TCP port, 0 to 65535 (0 asks the system for a free one).
    public func port(_ key: String) throws(WhiskerServer.ConfigurationError) -> Int? {
        try integer(key, in: 0...65535)
    }

    /// A duration in seconds, fractions allowed (`0.5`): above 0 and at most a day.
    public func seconds(_ key: String) throws(WhiskerServer.ConfigurationError) -> Duration? {
        guard let value = try value(key) else { return nil }
        guard let seconds = Double(value.text), seconds > 0, seconds <= 86_400 else {
            throw value.mustBe("a number of seconds above 0 and at most 86400")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A list: a string array, or one string of comma-separated items.
    public func list(_ key: String) throws(WhiskerServer.ConfigurationError) -> [String]? {
        try value(key)?.items
    }

    /// One of `choices`: `"ORIGIN must be required or optional, got "maybe""`.
    public func choice(_ key: String, from choices: [String]) throws(WhiskerServer.ConfigurationError) -> String? {
        guard let value = try value(key) else { return nil }
        guard choices.contains(value.text) else {
            let named = choices.count < 2 ? choices.joined() : choices.dropLast().joined(separator: ", ") + " or " + choices.last!
            throw value.mustBe(named)
        }
        return value.text
    }

    /// How an error names `key`: where its value came from when a source sets it, else the key.
    /// For errors about settings that do not fit together.
    public func origin(of key: String) -> String {
        ((try? value(key)) ?? nil)?.origin ?? key
    }
}
