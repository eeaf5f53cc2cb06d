import HTTPTypes
import WhiskerCore

/// Checks a request's parameters and JSON body against its operation in the document.
///
/// A class: it is immutable, and a request's check retains one reference where a struct of the
/// operation's description was copied whole (11 retains and releases a request).
package final class RequestValidator: Sendable {
    package let operation: DocumentOperations.Operation
    let schemas: SchemaSet
    /// The operation's security requirements and how to authenticate a credential, when checked.
    let security: (SecurityRequirements, @Sendable (SecurityScheme, Credential) async throws -> Principal?)?

    init(
        operation: DocumentOperations.Operation, schemas: SchemaSet,
        security: (SecurityRequirements, @Sendable (SecurityScheme, Credential) async throws -> Principal?)?
    ) {
        self.operation = operation
        self.schemas = schemas
        self.security = security
    }

    /// Every parameter the request lacks or gives a value the document does not allow, each
    /// read as its `style` and `explode` say (``readParameter(_:query:head:pathParameters:)``).
    func parameterViolations(of head: HTTPRequest, pathParameters: PathParameters) -> [Violation] {
        var violations: [Violation] = []
        guard !operation.parameters.isEmpty else { return violations }
        // Names and values as sent: a name is decoded where it is compared, a value where it is
        // read (after its delimiters split it), so that `?count=3` copies nothing.
        let query = QueryString.rawItems(of: head.path ?? "")
        for parameter in operation.parameters {
            check(parameter, query: query, head: head, pathParameters: pathParameters, into: &violations)
        }
        return violations
    }

    /// The violations of one parameter, appended to `violations`.
    private func check(
        _ parameter: DocumentOperations.Parameter, query: [(name: Substring, value: Substring)], head: HTTPRequest, pathParameters: PathParameters,
        into violations: inout [Violation]
    ) {
        switch readParameter(parameter, query: query, head: head, pathParameters: pathParameters) {
        case .absent:
            if parameter.required { violations.append(Violation(location: parameter.location.rawValue, name: parameter.name, detail: "is required")) }
        case .emptyAllowed:
            return
        case .malformed(let detail):
            violations.append(Violation(location: parameter.location.rawValue, name: parameter.name, detail: detail))
        case .value(let value):
            guard let schema = parameter.schema else { return }
            var found: [(pointer: String, detail: String)] = []
            schemas.check(value, against: schema, pointer: "", into: &found)
            for (pointer, detail) in found {
                violations.append(Violation(location: parameter.location.rawValue, name: parameter.name + pointer, detail: detail))
            }
        }
    }

    /// `text` as the scalar `types` asks for, or as a string when it is not one (so that the
    /// schema's `type` says what is wrong).
    static func scalar(_ text: Substring, types: Set<String>) -> JSONValue {
        // As JSON writes numbers: an optional `-`, no `+` (Swift's `Int64("+5")` is 5; the
        // document's `integer` is not, issue 38), digits, a fraction and exponent for a number.
        if types.contains("integer"), text.first != "+", let value = Int64(text) { return .integer(value) }
        // An integer past Int64 is still one (JSON Schema sets no bound): a number without a fraction.
        if types.contains("integer"), text.first != "+", text.dropFirst(text.first == "-" ? 1 : 0).allSatisfy({ $0.isASCII && $0.isNumber }),
           !text.isEmpty, text != "-", let value = Double(text), value.isFinite {
            return .number(value)
        }
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
        // By its bytes: searched character by character, the scan copied each character (with
        // grapheme breaking) on every request, for a value that is almost never escaped.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else { return text }
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
