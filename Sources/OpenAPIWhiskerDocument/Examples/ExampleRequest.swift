/// A request made from a document's examples: what examples as tests send, and the status its
/// example expects.
package struct ExampleRequest: Sendable {
    /// The operation's `operationId`.
    package let operationID: String
    /// The example's name (`nil` for an operation whose examples have none).
    package let name: String?
    package let method: String
    /// The path and query, under the server URL's path (`/emoji?count=3`).
    package let target: String
    package let headerFields: [(name: String, value: String)]
    package let body: [UInt8]?
    /// The status of the response whose example has the same name (`201`), or `nil`: any
    /// documented success.
    package let expectedStatus: String?
}

/// An operation (or one of its named examples) that examples as tests cannot replay, and why.
package struct SkippedExample: Sendable {
    package let operationID: String
    package let name: String?
    package let reason: String
}

extension DocumentOperations {
    /// A request for each of the document's request examples: one per name an operation's
    /// examples have (its request body's and parameters', the values of the same name together),
    /// or one for an operation whose examples are unnamed or that needs none (no required
    /// parameter or body). Parameters without an example are left out unless required; an
    /// operation that requires one without an example is skipped, and says why.
    package func exampleRequests() -> (requests: [ExampleRequest], skipped: [SkippedExample]) {
        var requests: [ExampleRequest] = []
        var skipped: [SkippedExample] = []
        for operation in operations {
            let names = operation.examples.requestNames
            for name in names.isEmpty ? [nil] : names.map(Optional.some) {
                do {
                    requests.append(try Self.request(operation, example: name))
                } catch {
                    skipped.append(SkippedExample(operationID: operation.id, name: name, reason: error.reason))
                }
            }
        }
        return (requests, skipped)
    }

    private struct Unbuildable: Error { let reason: String }

    private static func request(_ operation: Operation, example name: String?) throws(Unbuildable) -> ExampleRequest {
        var path = operation.path
        var query: [String] = []
        var fields: [(name: String, value: String)] = []
        var cookies: [String] = []
        for (parameter, examples) in zip(operation.parameters, operation.examples.parameters) {
            guard let value = examples.value(for: name) else {
                if parameter.required { throw Unbuildable(reason: "its \(parameter.location.rawValue) parameter \(parameter.name) is required and has no example") }
                continue
            }
            switch parameter.location {
            case .path: path = path.replacing("{\(parameter.name)}", with: ExampleText.path(value, of: parameter))
            case .query: query += ExampleText.query(value, of: parameter)
            case .header: fields.append((parameter.name, ExampleText.plain(value, of: parameter)))
            case .cookie: cookies.append("\(parameter.name)=\(ExampleText.plain(value, of: parameter))")
            }
        }
        if !cookies.isEmpty { fields.append(("Cookie", cookies.joined(separator: "; "))) }
        var body: [UInt8]?
        let media = operation.examples.body.first { media in name.map { name in media.examples.named.contains { $0.name == name } } ?? false }
            ?? operation.examples.body.first { !$0.examples.isEmpty }
        if let media, let value = media.examples.value(for: name) {
            guard let bytes = ExampleText.body(value, as: media.range) else {
                throw Unbuildable(reason: "its request body's example is not one a \(media.range) body is made from")
            }
            body = bytes
            fields.append(("Content-Type", media.range.contains("*") ? "application/octet-stream" : media.range))
        } else if operation.requestBodyRequired {
            throw Unbuildable(reason: "its request body is required and has no example")
        }
        let expected = name.flatMap { name in operation.examples.responses.first { $0.hasExample(named: name) }?.status }
        return ExampleRequest(
            operationID: operation.id, name: name, method: operation.method,
            target: query.isEmpty ? path : path + "?" + query.joined(separator: "&"),
            headerFields: fields, body: body, expectedStatus: expected
        )
    }
}

/// An example's value as request text: OpenAPI's default styles (`simple` in paths and headers,
/// exploded `form` in queries), JSON for a JSON body or a parameter with JSON `content`.
enum ExampleText {
    /// A primitive as text (`3`, `true`, `Tom`), anything else as JSON.
    static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: ""
        default: value.jsonText
        }
    }

    /// A header's or cookie's value: `simple` (an array's items joined by commas).
    static func plain(_ value: JSONValue, of parameter: DocumentOperations.Parameter) -> String {
        if parameter.isJSON { return value.jsonText }
        if let items = value.array { return items.map(scalar).joined(separator: ",") }
        if case .object(let members) = value {
            return members.map { parameter.explode ? "\($0.key)=\(scalar($0.value))" : "\($0.key),\(scalar($0.value))" }.joined(separator: ",")
        }
        return scalar(value)
    }

    /// A path parameter's segment, percent-encoded (`simple`, `label` or `matrix`).
    static func path(_ value: JSONValue, of parameter: DocumentOperations.Parameter) -> String {
        let items: [String] = value.array.map { $0.map(scalar) } ?? [parameter.isJSON ? value.jsonText : scalar(value)]
        let encoded = items.map(encode).joined(separator: ",")
        switch parameter.style {
        case .label: return "." + encoded
        case .matrix: return ";\(encode(parameter.name))=" + encoded
        default: return encoded
        }
    }

    /// A query parameter's items (`name=value`), percent-encoded.
    static func query(_ value: JSONValue, of parameter: DocumentOperations.Parameter) -> [String] {
        let name = encode(parameter.name)
        if parameter.isJSON { return ["\(name)=\(encode(value.jsonText))"] }
        switch value {
        case .array(let items):
            let texts = items.map { encode(scalar($0)) }
            switch parameter.style {
            case .spaceDelimited: return ["\(name)=" + texts.joined(separator: "%20")]
            case .pipeDelimited: return ["\(name)=" + texts.joined(separator: "|")]
            default: return parameter.explode ? texts.map { "\(name)=\($0)" } : ["\(name)=" + texts.joined(separator: ",")]
            }
        case .object(let members):
            if parameter.style == .deepObject { return members.map { "\(name)%5B\(encode($0.key))%5D=\(encode(scalar($0.value)))" } }
            if parameter.explode { return members.map { "\(encode($0.key))=\(encode(scalar($0.value)))" } }
            return ["\(name)=" + members.map { "\(encode($0.key)),\(encode(scalar($0.value)))" }.joined(separator: ",")]
        default:
            return ["\(name)=\(encode(scalar(value)))"]
        }
    }

    /// A request body of the media type `range` made from `value`: JSON text for JSON, form
    /// fields for `application/x-www-form-urlencoded`, a string's UTF-8 for any other type;
    /// `nil` for a multipart body, or a value that is not a string for a type that is not JSON.
    static func body(_ value: JSONValue, as range: String) -> [UInt8]? {
        if DocumentOperations.MediaTypes.isJSON(range) { return Array(value.jsonText.utf8) }
        if range == "application/x-www-form-urlencoded", case .object(let members) = value {
            let fields = members.flatMap { member in
                (member.value.array ?? [member.value]).map { "\(encode(member.key))=\(encode(scalar($0)))" }
            }
            return Array(fields.joined(separator: "&").utf8)
        }
        guard !range.hasPrefix("multipart/"), case .string(let text) = value else { return nil }
        return Array(text.utf8)
    }

    /// `text` percent-encoded but for RFC 3986's unreserved characters.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
