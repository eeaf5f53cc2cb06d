import WhiskerCore

/// A JSON value, as request validation reads a body and the document's schemas: integers apart
/// from other numbers (JSON Schema's `integer` is a number without a fraction), object members in
/// their order.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { member in b.contains { $0.key == member.key && $0.value == member.value } }
        default:
            if let a = lhs.double, let b = rhs.double { a == b } else { false }
        }
    }

    /// The member named `key` of an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A JSON pointer's token as the name it stands for (RFC 6901: `~1` is `/`, `~0` is `~`).
    static func unescapedPointerToken(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        var name = ""
        var escaping = false
        for character in token {
            if escaping {
                switch character {
                case "0": name.append("~")
                case "1": name.append("/")
                default: name.append("~"); name.append(character)
                }
                escaping = false
            } else if character == "~" {
                escaping = true
            } else {
                name.append(character)
            }
        }
        if escaping { name.append("~") }
        return name
    }

    /// A name as a JSON pointer's token (RFC 6901: `~` as `~0`, `/` as `~1`).
    static func escapedPointerToken(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return name }
        var token = ""
        for character in name {
            switch character {
            case "~": token += "~0"
            case "/": token += "~1"
            default: token.append(character)
            }
        }
        return token
    }

    /// What the JSON pointer in the fragment `reference` (`#/components/schemas/Pet`) points at
    /// in this value, or `nil` if nothing is there.
    func value(at reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var value = self
        for token in reference.dropFirst().split(separator: "/") {
            let name = Self.unescapedPointerToken(token)
            if let items = value.array, let offset = Int(name), items.indices.contains(offset) {
                value = items[offset]
            } else if let member = value[name] {
                value = member
            } else {
                return nil
            }
        }
        return value
    }

    package var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    package var array: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    var bool: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    var members: [(key: String, value: JSONValue)] {
        if case .object(let members) = self { members } else { [] }
    }

    /// The JSON Schema type names this value has (`integer` is also a `number`).
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        // JSON Schema's integer is any number without a fraction, however large (1e20 is one).
        case .number(let value): value.rounded() == value ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value as compact JSON text, for error messages.
    var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): JSONValue.quoted(value)
        case .array(let items): "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONValue.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    /// `value` as a JSON string literal.
    static func quoted(_ value: String) -> String { ProblemDetails.quoted(value) }
}

/// Why a text is not JSON, and where.
package struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    package var description: String { "not valid JSON at byte \(offset): \(reason)" }
}

/// A strict JSON reader (RFC 8259): one value, no trailing commas or comments, strings of valid
/// UTF-8, nesting bounded so that a hostile body cannot exhaust the stack.
package struct JSONReader {
    static let maximumDepth = 128

    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0

    /// Reads `bytes` as one JSON value.
    package static func read(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: Array(bytes))
        reader.skipSpace()
        let value = try reader.value()
        reader.skipSpace()
        guard reader.at == reader.bytes.count else { throw reader.error("text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: at, reason: reason) }

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard at < bytes.count else { throw error("the text ends where a value was expected") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count, (0..<count).allSatisfy({ bytes[at + $0] == word.utf8Start[$0] }) else {
            throw error("unexpected character")
        }
        at += count
    }

    private mutating func nested<T>(_ read: (inout JSONReader) throws(JSONSyntaxError) -> T) throws(JSONSyntaxError) -> T {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        defer { depth -= 1 }
        return try read(&self)
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try nested { (reader: inout JSONReader) throws(JSONSyntaxError) -> JSONValue in
            reader.at += 1
            var members: [(key: String, value: JSONValue)] = []
            reader.skipSpace()
            if reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "}") {
                reader.at += 1
                return .object(members)
            }
            while true {
                reader.skipSpace()
                guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "\"") else { throw reader.error("expected a member name") }
                let key = try reader.string()
                reader.skipSpace()
                guard reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: ":") else { throw reader.error("expected ':'") }
                reader.at += 1
                reader.skipSpace()
                members.append((key, try reader.value()))
                reader.skipSpace()
                guard reader.at < reader.bytes.count else { throw reader.error("the text ends inside an object") }
                if reader.bytes[reader.at] == UInt8(ascii: ",") {
                    reader.at += 1
                } else if reader.bytes[reader.at] == UInt8(ascii: "}") {
                    reader.at += 1
                    return .object(members)
                } else {
                    throw reader.error("expected ',' or '}'")
                }
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try nested { (reader: inout JSONReader) throws(JSONSyntaxError) -> JSONValue in
            reader.at += 1
            var items: [JSONValue] = []
            reader.skipSpace()
            if reader.at < reader.bytes.count, reader.bytes[reader.at] == UInt8(ascii: "]") {
                reader.at += 1
                return .array(items)
            }
            while true {
                reader.skipSpace()
                items.append(try reader.value())
                reader.skipSpace()
                guard reader.at < reader.bytes.count else { throw reader.error("the text ends inside an array") }
                if reader.bytes[reader.at] == UInt8(ascii: ",") {
                    reader.at += 1
                } else if reader.bytes[reader.at] == UInt8(ascii: "]") {
                    reader.at += 1
                    return .array(items)
                } else {
                    throw reader.error("expected ',' or ']'")
                }
            }
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = at
        var isInteger = true
        if bytes[at] == UInt8(ascii: "-") { at += 1 }
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.at
            while reader.at < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.at]) { reader.at += 1 }
            return reader.at - from
        }
        let leading = at
        let count = digits(&self)
        guard count > 0 else { throw error("a number needs digits") }
        guard !(count > 1 && bytes[leading] == UInt8(ascii: "0")) else { throw error("a number may not start with 0") }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            isInteger = false
            guard digits(&self) > 0 else { throw error("a fraction needs digits") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            isInteger = false
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits(&self) > 0 else { throw error("an exponent needs digits") }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { throw error("a number out of range") }
        return .number(value)
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        at += 1
        let start = at
        // The usual string has no escapes: one validated UTF-8 decode of its bytes.
        while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
        guard at < bytes.count else { throw error("the text ends inside a string") }
        guard let plain = String(validating: bytes[start..<at], as: UTF8.self) else { throw error("a string that is not UTF-8") }
        if bytes[at] == UInt8(ascii: "\"") {
            at += 1
            return plain
        }
        var scalars = plain.unicodeScalars.map { $0 }
        while true {
            guard at < bytes.count else { throw error("the text ends inside a string") }
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars)
                return String(out)
            }
            guard byte >= 0x20 else { throw error("a control character in a string") }
            if byte == UInt8(ascii: "\\") {
                at += 1
                guard at < bytes.count else { throw error("the text ends inside a string") }
                let escaped = bytes[at]
                at += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
                default: throw error("an unknown escape")
                }
                continue
            }
            // One UTF-8 sequence, validated.
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            guard at + length <= bytes.count, let text = String(validating: bytes[at..<at + length], as: UTF8.self) else {
                throw error("a string that is not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
            at += length
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard at + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
            throw error("\\u needs four hex digits")
        }
        at += 4
        return value
    }

    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try hexQuad()
        if (0xD800..<0xDC00).contains(first) {
            guard at + 2 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                throw error("a lone surrogate")
            }
            at += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else { throw error("a lone surrogate") }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("a lone surrogate") }
        return scalar
    }
}
