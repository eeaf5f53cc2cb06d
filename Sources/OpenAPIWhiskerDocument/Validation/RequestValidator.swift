import HTTPTypes
import WhiskerCore

/// Checks a request's parameters and JSON body against its operation in the document.
package struct RequestValidator: Sendable {
    package let operation: DocumentOperations.Operation
    let schemas: SchemaSet
    /// The operation's security requirements and how to authenticate a credential, when checked.
    let security: (SecurityRequirements, @Sendable (SecurityScheme, Credential) async throws -> Principal?)?

    /// Every parameter the request lacks or gives a value the document does not allow.
    func parameterViolations(of head: HTTPRequest, pathParameters: PathParameters) -> [Violation] {
        var violations: [Violation] = []
        guard !operation.parameters.isEmpty else { return violations }
        let query = Self.queryItems(of: head.path ?? "")
        for parameter in operation.parameters {
            let values: [Substring]
            switch parameter.location {
            case .path:
                values = pathParameters[parameter.name].map { [Self.percentDecoded($0, plusIsSpace: false)] } ?? []
            case .query:
                values = query.filter { $0.name == parameter.name }.map(\.value)
            case .header:
                values = HTTPField.Name(parameter.name).map { head.headerFields[values: $0].map { Substring($0) } } ?? []
            case .cookie:
                values = Self.cookies(in: head.headerFields[values: .cookie]).filter { $0.name == parameter.name }.map(\.value)
            }
            guard !values.isEmpty else {
                if parameter.required { violations.append(Violation(location: parameter.location.rawValue, name: parameter.name, detail: "is required")) }
                continue
            }
            guard let schema = parameter.schema else { continue }
            let value = Self.typed(values, as: parameter)
            var found: [(pointer: String, detail: String)] = []
            schemas.check(value, against: schema, pointer: "", into: &found)
            for (pointer, detail) in found {
                violations.append(Violation(location: parameter.location.rawValue, name: parameter.name + pointer, detail: detail))
            }
        }
        return violations
    }

    /// The values of a parameter as the JSON its schema describes: `3` as an integer where the
    /// schema says `integer`, items of an array split as the parameter's style says.
    private static func typed(_ values: [Substring], as parameter: DocumentOperations.Parameter) -> JSONValue {
        if parameter.types.contains("array") {
            let items = parameter.explode && parameter.location == .query
                ? values
                : values.flatMap { $0.split(separator: parameter.separator, omittingEmptySubsequences: false) }
            return .array(items.map { scalar($0, types: parameter.itemTypes) })
        }
        // A parameter given more than once where one value is expected: the first counts, as
        // the generated code reads it.
        return scalar(values[0], types: parameter.types)
    }

    /// `text` as the scalar `types` asks for, or as a string when it is not one (so that the
    /// schema's `type` says what is wrong).
    static func scalar(_ text: Substring, types: Set<String>) -> JSONValue {
        // As JSON writes numbers: an optional `-`, no `+` (Swift's `Int64("+5")` is 5; the
        // document's `integer` is not, issue 38), digits, a fraction and exponent for a number.
        if types.contains("integer"), text.first != "+", let value = Int64(text) { return .integer(value) }
        if types.contains("number"), text.first != "+", let value = Double(text), value.isFinite,
           text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) {
            return .number(value)
        }
        if types.contains("boolean"), text == "true" || text == "false" { return .bool(text == "true") }
        if types.contains("null"), text.isEmpty { return .null }
        return .string(String(text))
    }

    /// The name-value pairs of a target's query as ``QueryString`` reads them (the generated code
    /// gets the same items), percent-decoded (`+` is a space).
    static func queryItems(of target: String) -> [(name: Substring, value: Substring)] {
        QueryString.rawItems(of: target).map { (percentDecoded($0.name, plusIsSpace: true), percentDecoded($0.value, plusIsSpace: true)) }
    }

    static func cookies(in fields: [String]) -> [(name: Substring, value: Substring)] {
        fields.flatMap { $0.split(separator: ";") }.compactMap { pair in
            let pair = pair.trimmingSpaces
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            return (pair[..<equals], pair[pair.index(after: equals)...])
        }
    }

    /// `text` with its `%XX` escapes decoded (and `+` as a space in a query); unchanged when the
    /// escapes are not valid UTF-8, so that the schema reports the value as sent.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> Substring {
        guard text.contains(where: { $0 == "%" || (plusIsSpace && $0 == "+") }) else { return text }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: bytes, as: UTF8.self).map { Substring($0) } ?? text
    }
}
