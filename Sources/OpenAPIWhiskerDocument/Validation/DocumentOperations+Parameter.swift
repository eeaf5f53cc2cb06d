import HTTPTypes

extension DocumentOperations {
    /// A parameter of an operation as validation reads it from a request: where it is, how it is
    /// serialized (its `style` and `explode`, or its `content`), and how the text of each value
    /// is typed for its schema.
    struct Parameter: Sendable {
        enum Location: String, Sendable { case path, query, header, cookie }

        /// The serialization styles of OpenAPI 3.0 and 3.1 (`style`).
        enum Style: String, Sendable {
            case form, simple, label, matrix, spaceDelimited, pipeDelimited, deepObject
        }

        /// What the schema makes of the text: one value, items, or members.
        enum Shape: Sendable { case primitive, array, object }

        /// How a value's text is read: `3` as an integer where `types` says `integer`; an array's
        /// items by `itemTypes`.
        struct Typing: Sendable {
            var types: Set<String> = []
            var itemTypes: Set<String> = []
            var isArray: Bool { types.contains("array") }
        }

        let name: String
        let location: Location
        /// A header parameter's field name, made once (`nil` for the other places, or a name no
        /// field can have).
        let fieldName: HTTPField.Name?
        let required: Bool
        let schema: Int?
        let style: Style
        /// `explode`, by default `true` for `form` and `false` for the other styles.
        let explode: Bool
        /// `allowEmptyValue` (query only): `?name=` or `?name` is present and not checked.
        let allowEmptyValue: Bool
        /// A parameter with `content: {application/json: ...}`: its value is JSON text.
        let isJSON: Bool
        let shape: Shape
        /// The value's typing (a primitive's, or an array's and its items').
        let typing: Typing
        /// An object's declared properties, by name.
        let properties: [String: Typing]
        /// An object's other members (`additionalProperties` as a schema, or an object that
        /// declares no properties): `nil` when it names its members, so that an exploded `form`
        /// object reads only the query items named after them.
        let additionalProperties: Typing?
        /// Whether an object requires a member (`required` lists one). A required exploded object
        /// that requires none may come as nothing at all: the generated client writes an empty
        /// object so (`form` and `deepObject` write one item per member), and that is its value.
        let requiresMembers: Bool

        /// Reads the parameter object `parameter` (`$ref` resolved) found at `location`.
        init(_ parameter: JSONValue, at location: String, schemas: inout SchemaSet) throws(DocumentError) {
            guard let name = parameter["name"]?.string,
                  let place = parameter["in"]?.string.flatMap(Location.init(rawValue:))
            else { throw DocumentError("\(location): a parameter without a name or a known `in`") }
            self.name = name
            self.location = place
            fieldName = place == .header ? HTTPField.Name(name) : nil
            required = parameter["required"]?.bool ?? (place == .path)
            let defaultStyle: Style = place == .query || place == .cookie ? .form : .simple
            style = parameter["style"]?.string.flatMap(Style.init(rawValue:)) ?? defaultStyle
            explode = parameter["explode"]?.bool ?? (style == .form)
            allowEmptyValue = place == .query && parameter["allowEmptyValue"]?.bool == true
            var schemaValue = parameter["schema"]
            var isJSON = false
            // `content`: one media type, whose schema describes the value; JSON is parsed.
            if schemaValue == nil, let (range, media) = parameter["content"]?.members.first {
                let essence = range.prefix { $0 != ";" }.trimmingSpaces.lowercased()
                isJSON = MediaTypes.isJSON(essence)
                schemaValue = media["schema"]
            }
            self.isJSON = isJSON
            schema = try schemaValue.map { value throws(DocumentError) in try schemas.compile(value, at: "\(location)/parameters/\(name)") }
            let typing = schema.map { schemas.typing(of: $0) } ?? Typing()
            self.typing = typing
            if let schema, !isJSON, let members = schemas.objectMembers(of: schema) {
                shape = .object
                properties = Dictionary(members.properties.map { ($0.name, schemas.typing(of: $0.schema)) }, uniquingKeysWith: { first, _ in first })
                additionalProperties = members.additional.map { schemas.typing(of: $0) } ?? (members.properties.isEmpty && !members.closed ? Typing() : nil)
                requiresMembers = members.requiresMembers
            } else {
                shape = typing.isArray && !isJSON ? .array : .primitive
                properties = [:]
                additionalProperties = nil
                requiresMembers = false
            }
        }

        /// The typing of an object's member named `key`.
        func typing(ofMember key: some StringProtocol) -> Typing {
            properties[String(key)] ?? additionalProperties ?? Typing()
        }

    }
}

extension SchemaSet {
    /// How a value's text is read for the schema at `index`.
    func typing(of index: Int) -> DocumentOperations.Parameter.Typing {
        .init(types: types(of: index) ?? [], itemTypes: itemSchema(of: index).flatMap { types(of: $0) } ?? [])
    }

    /// The members the schema at `index` declares, if it is an object (its `type` says `object`,
    /// or it has no `type` and declares `properties`), following `$ref` and `allOf`: the
    /// properties, the schema of the other members, whether it forbids them, and whether it
    /// requires any.
    func objectMembers(of index: Int) -> (properties: [(name: String, schema: Int)], additional: Int?, closed: Bool, requiresMembers: Bool)? {
        var properties: [(name: String, schema: Int)] = []
        var additional: Int?
        var closed = false
        var requiresMembers = false
        var isObject = false
        var pending = [index]
        var visited: Set<Int> = []
        while let next = pending.popLast(), visited.count < 64 {
            guard visited.insert(next).inserted else { continue }
            let node = nodes[next]
            if let types = node.types {
                guard types.contains("object") else { return nil }
                isObject = true
            }
            if !node.properties.isEmpty { isObject = true }
            properties += node.properties
            additional = additional ?? node.additionalProperties
            closed = closed || node.noAdditionalProperties
            requiresMembers = requiresMembers || !node.required.isEmpty || (node.minProperties ?? 0) > 0
            if let reference = node.reference { pending.append(reference) }
            pending += node.allOf.reversed()
        }
        return isObject ? (properties, additional, closed, requiresMembers) : nil
    }
}
