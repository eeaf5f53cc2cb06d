/// What a mock answers a request for an operation: a documented response, made from the
/// document's examples or, where it has none, from the response's schema.
package struct MockAnswer: Sendable {
    package var status: Int
    package var headerFields: [(name: String, value: String)]
    package var body: [UInt8]
}

extension DocumentOperations {
    /// The mock's answer to a request for `operationID`, as its `Prefer` field (RFC 7240) asks:
    /// `code=404` for the response of that status, `example=NAME` for the response and media type
    /// whose example has that name; else its first success (the lowest 2XX, then `default`). The
    /// media type is the first the request's `Accept` takes; the body that media type's example
    /// (the named one, else its `example`, else its first), else a value its schema allows (each
    /// item of its `itemSchema`, three times, for a stream); documented headers with an example,
    /// or required, are set.
    /// - Throws: ``MockRefusal`` for a `Prefer` the operation cannot answer, saying why.
    package func mockAnswer(operationID: String, prefer: String?, accept: String?) throws(MockRefusal) -> MockAnswer {
        guard let operation = operations.first(where: { $0.id == operationID }) else {
            throw MockRefusal(detail: "the document has no operation \(operationID)")
        }
        let preferences = Self.preferences(prefer)
        let responses = operation.examples.responses
        let chosen: (status: String, media: MediaExamples?)
        if let code = preferences["code"] {
            guard let status = Int(code), let key = [code, "\(status / 100)XX", "default"].first(where: { key in responses.contains { $0.status == key } }) else {
                throw MockRefusal(detail: "Prefer: code=\(code): \(operation.undocumented(Int(code) ?? 0))")
            }
            chosen = (key == code ? key : code, Self.media(of: responses.first { $0.status == key }!, accept: accept, example: preferences["example"]))
        } else if let name = preferences["example"] {
            guard let response = responses.first(where: { $0.media.contains { $0.examples.named.contains { $0.name == name } } }) else {
                throw MockRefusal(detail: "Prefer: example=\(name): no response of \(operationID) has an example of that name")
            }
            chosen = (response.status, response.media.first { $0.examples.named.contains { $0.name == name } })
        } else {
            let success = responses.map(\.status).filter { $0.hasPrefix("2") }.sorted().first
                ?? responses.first { $0.status == "default" }?.status ?? responses.map(\.status).sorted().first ?? "200"
            chosen = (success, responses.first { $0.status == success }.flatMap { Self.media(of: $0, accept: accept, example: nil) })
        }
        let status = Int(chosen.status) ?? (chosen.status == "default" ? 200 : (Int(chosen.status.prefix(1)) ?? 2) * 100)
        let response = responses.first { $0.status == chosen.status } ?? responses.first { $0.status == "\(status / 100)XX" || $0.status == "default" }
        var fields: [(name: String, value: String)] = []
        for header in response?.headers ?? [] where header.name.lowercased() != "content-type" {
            guard let value = header.examples.value(for: preferences["example"]) ?? (header.required ? header.schema.flatMap(schemas.value(for:)) : nil) else { continue }
            fields.append((header.name, ExampleText.scalar(value)))
        }
        guard let media = chosen.media, status != 204, status != 304 else { return MockAnswer(status: status, headerFields: fields, body: []) }
        fields.append(("Content-Type", media.range.contains("*") ? "application/octet-stream" : media.range))
        return MockAnswer(status: status, headerFields: fields, body: body(of: media, example: preferences["example"]))
    }

    /// The media type of `response` that `accept` takes first (its first when none, or no field).
    private static func media(of response: ResponseExamples, accept: String?, example name: String?) -> MediaExamples? {
        if let name, let named = response.media.first(where: { $0.examples.named.contains { $0.name == name } }) { return named }
        guard let accept, !accept.isEmpty else { return response.media.first }
        let ranges = accept.split(separator: ",").compactMap { part -> String? in
            let pieces = part.split(separator: ";").map { String($0.trimmingSpaces).lowercased() }
            let refused = pieces.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }
            return refused ? nil : pieces.first
        }
        for media in response.media {
            let major = media.range.prefix { $0 != "/" }
            if ranges.contains(where: { $0 == media.range || $0 == "*/*" || $0 == "\(major)/*" }) { return media }
        }
        return response.media.first
    }

    /// The body of `media`: its example, else a value of its schema, as its type writes it.
    private func body(of media: MediaExamples, example name: String?) -> [UInt8] {
        let sequential = SequentialMediaType(essence: media.range)
        if let value = media.examples.value(for: name) {
            if case .string(let text) = value, sequential != nil { return Array(text.utf8) }
            if let sequential, let items = value.array { return Self.stream(items, as: sequential) }
            return ExampleText.body(value, as: media.range) ?? Array(value.jsonText.utf8)
        }
        if let sequential, let itemSchema = media.itemSchema, let item = schemas.value(for: itemSchema) {
            return Self.stream([item, item, item], as: sequential)
        }
        guard let schema = media.schema, let value = schemas.value(for: schema) else { return [] }
        return ExampleText.body(value, as: media.range) ?? Array(value.jsonText.utf8)
    }

    /// The security schemes the operations ask for, and every scope they name: what a mock's
    /// principal holds, so that any credential it is sent passes.
    package var securityNeeds: (schemes: Set<String>, scopes: Set<String>) {
        let requirements = operations.flatMap { $0.security?.alternatives.flatMap { $0 } ?? [] }
        return (Set(requirements.map(\.scheme.name)), Set(requirements.flatMap(\.scopes)))
    }

    /// `items` written as a stream of `type`: server-sent events (an object's fields as the
    /// event's lines), JSON lines, or JSON text sequence records.
    static func stream(_ items: [JSONValue], as type: SequentialMediaType) -> [UInt8] {
        var text = ""
        for item in items {
            switch type {
            case .jsonLines: text += item.jsonText + "\n"
            case .jsonSequence: text += "\u{1E}" + item.jsonText + "\n"
            case .eventStream:
                guard case .object(let members) = item else {
                    text += "data: \(ExampleText.scalar(item))\n\n"
                    continue
                }
                for (name, value) in members where name != "data" {
                    text += "\(name): \(ExampleText.scalar(value))\n"
                }
                let data = members.first { $0.key == "data" }.map { ExampleText.scalar($0.value) } ?? ""
                for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
                text += "\n"
            }
        }
        return Array(text.utf8)
    }

    /// `Prefer`'s preferences by name (`code`, `example`), their values unquoted.
    static func preferences(_ field: String?) -> [String: String] {
        var found: [String: String] = [:]
        for preference in (field ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }) {
            let parts = preference.split(separator: "=", maxSplits: 1).map { String($0.trimmingSpaces) }
            guard parts.count == 2 else { continue }
            var value = parts[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            found[parts[0].lowercased()] = value
        }
        return found
    }

}

/// A `Prefer` the mock cannot answer: a status or an example the operation does not have.
package struct MockRefusal: Error {
    package let detail: String
}
