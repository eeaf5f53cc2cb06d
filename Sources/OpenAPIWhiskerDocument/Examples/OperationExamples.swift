extension DocumentOperations {
    /// The examples one object of the document gives: its `example`, its named `examples` (each
    /// `value`, or OpenAPI 3.2's `dataValue`; an `externalValue` is not fetched), else its
    /// schema's `example` (or the first of its `examples`).
    struct Examples: Sendable {
        var unnamed: JSONValue?
        var named: [(name: String, value: JSONValue)] = []

        /// The examples of a parameter or a media type object (`$ref`s resolved in `root`).
        init(of object: JSONValue, in root: JSONValue) {
            unnamed = object["example"]
            for (name, example) in object["examples"]?.members ?? [] {
                guard let example = try? DocumentOperations.resolved(example, in: root) else { continue }
                if let value = example["dataValue"] ?? example["value"] { named.append((name, value)) }
            }
            // A parameter with `content` instead of `schema`: its media type's examples.
            if isEmpty, let media = object["content"]?.members.first?.value {
                self = Examples(of: media, in: root)
            }
            if isEmpty, let schema = object["schema"].flatMap({ try? DocumentOperations.resolved($0, in: root) }) {
                unnamed = schema["example"] ?? schema["examples"]?.array?.first
            }
        }

        var isEmpty: Bool { unnamed == nil && named.isEmpty }

        /// The value for the example named `name`: that one, else the unnamed one, else the first.
        func value(for name: String?) -> JSONValue? {
            name.flatMap { name in named.first { $0.name == name }?.value } ?? unnamed ?? named.first?.value
        }
    }

    /// One media type of a response: its examples and its schemas.
    struct MediaExamples: Sendable {
        let range: String
        let examples: Examples
        let schema: Int?
        let itemSchema: Int?
    }

    /// A header a response documents.
    struct ResponseHeader: Sendable {
        let name: String
        let required: Bool
        let schema: Int?
        let examples: Examples
    }

    /// A response by its status (`200`, `4XX`, `default`): its media types and headers.
    struct ResponseExamples: Sendable {
        let status: String
        let media: [MediaExamples]
        let headers: [ResponseHeader]

        /// Whether one of its media types has an example named `name`.
        func hasExample(named name: String) -> Bool {
            media.contains { $0.examples.named.contains { $0.name == name } }
        }
    }

    /// An operation's examples: its parameters' (in the order of its parameters), its request
    /// body's by media type, and its responses', with what a mock answers from.
    struct OperationExamples: Sendable {
        var parameters: [Examples]
        var body: [(range: String, examples: Examples)] = []
        var responses: [ResponseExamples] = []

        /// The names of the request's examples, each a request to replay, in the document's order;
        /// none when its examples are unnamed.
        var requestNames: [String] {
            var names: [String] = []
            for name in body.flatMap(\.examples.named).map(\.name) + parameters.flatMap(\.named).map(\.name) where !names.contains(name) {
                names.append(name)
            }
            return names
        }
    }
}
