import HTTPTypes
import Logging
import OpenAPIRuntime
import WhiskerCore

extension WhiskerTransport {
    /// A 400 that names the parameter the generated code could not decode, for a transport made
    /// without the document (which would have named it first).
    ///
    /// The runtime reads each query item and path parameter with its own decoder, `forKey:` the
    /// parameter's name, and throws a `DecodingError` whose coding path is empty (the key is not in
    /// it) and whose type is what the value should have been (`typeMismatch(Bool, ...)` for
    /// `?shout=maybe`), wrapped in a `ServerError` whose description names neither. What the
    /// request makes knowable is named: the query items whose values cannot be that type
    /// (`Bool("maybe")` is `nil`), or are the value the error quotes (a `String` enum's "invalid
    /// String value maybe"), or are empty when a value was not found; if no query item can be it,
    /// the path parameters the same way. One such parameter: it is named, as the document's
    /// checks name one —
    ///
    ///     {"type":"about:blank","title":"Bad Request","status":400,
    ///      "detail":"query parameter shout: must be true or false, got maybe",
    ///      "errors":[{"in":"query","parameter":"shout","detail":"must be true or false, got maybe"}]}
    ///
    /// — and otherwise (none, or several that could be it) the detail says what the runtime
    /// expected, with the coding path only when it has one (a JSON body's `/cat/name`).
    static func undecodableParameter(_ error: any Error, request: HTTPRequest, pathParameters: [String: Substring], logger: Logger) -> Response? {
        guard let error = error as? ServerError, error.operationInput == nil, error.httpStatus == .badRequest,
              let decoding = error.underlyingError as? DecodingError
        else { return nil }
        let failure = DecodingFailure(decoding)
        var candidates: [(location: String, name: String, value: Substring, detail: String)] = []
        for (name, value) in Self.queryItems(of: request.path ?? "") where failure.couldBe(value) {
            candidates.append(("query", String(name), value, failure.detail(got: value)))
        }
        // Path parameters only when no query item could be it: a path's values are mostly names and
        // identifiers the server handed out (`/greet/cat` is no boolean, yet `name` is a string),
        // the query is where clients type values.
        if candidates.isEmpty {
            for (name, value) in pathParameters.sorted(by: { $0.key < $1.key }) {
                let value = Self.percentDecoded(value, plusIsSpace: false)
                if failure.couldBe(value) { candidates.append(("path", name, value, failure.detail(got: value))) }
            }
        }
        var response: Response
        let detail: String
        if let first = candidates.first, candidates.allSatisfy({ $0.location == first.location && $0.name == first.name }) {
            // As the document's checks answer (RequestValidation.problem): the detail, and the
            // parameter in `errors`.
            detail = "\(first.location) parameter \(first.name): \(first.detail)"
            let problem = ProblemDetails(status: .badRequest, detail: detail)
            response = problem.response(to: request)
            if response.head.headerFields[.contentType] == ProblemDetails.mediaType {
                let entry = "{\"in\":\(ProblemDetails.quoted(first.location)),\"parameter\":\(ProblemDetails.quoted(first.name)),\"detail\":\(ProblemDetails.quoted(first.detail))}"
                response.body = ResponseBody(string: String(problem.json.dropLast()) + ",\"errors\":[" + entry + "]}")
            }
        } else if let first = candidates.first, candidates.count <= 4, candidates.allSatisfy({ $0.location == first.location }) {
            // A few that could each be it (`?mood=happy&shout=1`, `happy` no more a boolean than
            // `1`): named together, none in `errors`, which lists what is certainly wrong.
            var names: [String] = []
            for candidate in candidates where !names.contains(candidate.name) { names.append(candidate.name) }
            let values = candidates.map { failure.shown($0.value) }
            detail = "\(first.location) parameter \(names.joined(separator: " or ")): one of them \(failure.requirement), got \(values.joined(separator: " and "))"
            response = ProblemDetails(status: .badRequest, detail: detail).response(to: request, fields: error.httpHeaderFields)
        } else {
            detail = "the request cannot be read: \(failure.summary)"
            response = ProblemDetails(status: .badRequest, detail: detail).response(to: request, fields: error.httpHeaderFields)
        }
        logger.info("request refused", metadata: [
            "operation": "\(error.operationID)", "status": "400", "error": "\(LogValue.quoted(detail))",
        ])
        return response
    }

    /// The query's name-value pairs, percent-decoded (`+` as a space), as the runtime's form
    /// decoder reads them.
    static func queryItems(of target: String) -> [(name: Substring, value: Substring)] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        var query = target[target.index(after: mark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return query.split(separator: "&").map { item in
            let equals = item.firstIndex(of: "=") ?? item.endIndex
            let value = equals == item.endIndex ? item[equals...] : item[item.index(after: equals)...]
            return (percentDecoded(item[..<equals], plusIsSpace: true), percentDecoded(value, plusIsSpace: true))
        }
    }

    /// `text` with its `%XX` escapes decoded; unchanged when they are not UTF-8.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> Substring {
        guard text.contains(where: { $0 == "%" || (plusIsSpace && $0 == "+") }) else { return text }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(validating: bytes, as: UTF8.self).map { Substring($0) } ?? text
    }
}

/// What a runtime `DecodingError` says a value should have been, to find the parameter that is not.
struct DecodingFailure {
    enum Expected {
        /// A value of this type, read from text (`Bool`, the integers, `Double`, `Float`).
        case text(any LosslessStringConvertible.Type)
        /// A value, where there was none (`?shout=`).
        case value
        /// Not this value (an enum's raw value the runtime quotes: "invalid String value maybe").
        case notValue(String)
        /// Nothing the request can be searched for.
        case unknown
    }

    let expected: Expected
    /// The runtime's words, with the coding path only when there is one.
    let summary: String

    init(_ error: DecodingError) {
        func place(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "" : "at /" + context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/") + ": "
        }
        switch error {
        case .typeMismatch(let type, let context):
            expected = (type as? any LosslessStringConvertible.Type).map { .text($0) } ?? .unknown
            summary = "\(place(context))expected \(Self.name(of: type)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            expected = .value
            summary = "\(place(context))expected \(Self.name(of: type)), found no value"
        case .keyNotFound(let key, let context):
            expected = .unknown
            summary = "\(place(context))\(key.stringValue) is required"
        case .dataCorrupted(let context):
            // The standard library's words for a raw value no case has:
            // "Cannot initialize Shout from invalid String value maybe".
            if let range = context.debugDescription.firstRange(of: " value "), context.debugDescription.hasPrefix("Cannot initialize ") {
                expected = .notValue(String(context.debugDescription[range.upperBound...]))
            } else {
                expected = .unknown
            }
            summary = "\(place(context))\(context.debugDescription)"
        @unknown default:
            expected = .unknown
            summary = "\(error)"
        }
    }

    /// Whether a parameter with `value` could be the one that failed.
    func couldBe(_ value: Substring) -> Bool {
        switch expected {
        case .text(let type): !Self.reads(String(value), as: type)
        case .value: value.isEmpty
        case .notValue(let refused): value == refused
        case .unknown: false
        }
    }

    /// What is wrong with `value`, in the document checks' words: "must be true or false, got maybe".
    func detail(got value: Substring) -> String {
        switch expected {
        case .value: requirement
        case .notValue: "is not one of the values it may take, got \(shown(value))"
        case .text, .unknown: "\(requirement), got \(shown(value))"
        }
    }

    /// What the value must be: "must be true or false".
    var requirement: String {
        switch expected {
        case .text(let type) where type == Bool.self: "must be true or false"
        case .text(let type) where type is any FixedWidthInteger.Type: "must be an integer (\(Self.name(of: type)))"
        case .text(let type) where type is any BinaryFloatingPoint.Type: "must be a number"
        case .text(let type): "must be a \(Self.name(of: type))"
        case .value: "must have a value"
        case .notValue: "must be one of the values it may take"
        case .unknown: "must be readable"
        }
    }

    /// A client's value as a message shows it: at most 64 characters.
    func shown(_ value: Substring) -> String { value.count > 64 ? String(value.prefix(64)) + "..." : String(value) }

    private static func reads<T: LosslessStringConvertible>(_ text: String, as type: T.Type) -> Bool { T(text) != nil }

    private static func name(of type: Any.Type) -> String { String(describing: type) }
}
