extension SchemaSet {
    /// A value the schema at `index` allows, for a mock's answer: the schema's own `example` (or
    /// `default`) when it is valid, else one made from its keywords (`const`, the first of `enum`,
    /// a `format`'s typical value, the smallest number in bounds, a string of `minLength`, an
    /// object of its properties, an array of `minItems`), checked against the schema; `nil` when
    /// neither is valid (a `pattern` no made string matches, say).
    func value(for index: Int) -> JSONValue? {
        if let example = nodes[index].example, matches(example, index) { return example }
        let made = made(index, depth: 0)
        return matches(made, index) ? made : nil
    }

    private func made(_ index: Int, depth: Int) -> JSONValue {
        let node = nodes[index]
        if let example = node.example, depth > 0, matches(example, index) { return example }
        if let constant = node.constant { return constant }
        if let first = node.enumeration?.first { return first }
        if let reference = node.reference, node.types == nil, node.properties.isEmpty { return made(reference, depth: depth + 1) }
        guard depth < 12 else { return .null }
        if !node.allOf.isEmpty {
            // The parts' objects merged (a base type and its extension), else the first part.
            let parts = node.allOf.map { made($0, depth: depth + 1) }
            if parts.allSatisfy({ if case .object = $0 { true } else { false } }) {
                var members: [(key: String, value: JSONValue)] = []
                for case .object(let more) in parts { for member in more where !members.contains(where: { $0.key == member.key }) { members.append(member) } }
                return .object(members + objectMembers(node, depth: depth).filter { member in !members.contains { $0.key == member.key } })
            }
            return parts[0]
        }
        for choices in [node.oneOf, node.anyOf] where !choices.isEmpty {
            for choice in choices {
                let value = made(choice, depth: depth + 1)
                if matches(value, index) { return value }
            }
            return made(choices[0], depth: depth + 1)
        }
        let types = node.types ?? (!node.properties.isEmpty || node.required.count > 0 ? ["object"] : node.items != nil || !node.prefixItems.isEmpty ? ["array"] : [])
        let type = ["object", "array", "string", "integer", "number", "boolean", "null"].first { types.contains($0) }
        switch type {
        case "object": return .object(objectMembers(node, depth: depth))
        case "array":
            var items = node.prefixItems.map { made($0, depth: depth + 1) }
            let count = max(node.minItems ?? 1, items.count)
            if let schema = node.items {
                while items.count < min(count, node.maxItems ?? count) { items.append(made(schema, depth: depth + 1)) }
            }
            return .array(items)
        case "string": return .string(string(node))
        case "integer": return .integer(Int64(number(node, integer: true)))
        case "number": return .number(number(node, integer: false))
        case "boolean": return .bool(true)
        case "null": return .null
        default: return node.reference.map { made($0, depth: depth + 1) } ?? .string("string")
        }
    }

    /// An object's members: its required properties, and the others while the object is not deep
    /// in a recursive schema.
    private func objectMembers(_ node: Node, depth: Int) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        for (name, schema) in node.properties where depth < 4 || node.required.contains(name) {
            members.append((name, made(schema, depth: depth + 1)))
        }
        for name in node.required where !members.contains(where: { $0.key == name }) {
            members.append((name, node.additionalProperties.map { made($0, depth: depth + 1) } ?? .string("string")))
        }
        return members
    }

    private func string(_ node: Node) -> String {
        var text = switch node.format {
        case .dateTime?: "2026-01-01T00:00:00Z"
        case .date?: "2026-01-01"
        case .uuid?: "3fa85f64-5717-4562-b3fc-2c963f66afa6"
        case .email?: "cat@example.com"
        case .uri?: "https://example.com/"
        case .byte?: "Y2F0"
        default: "string"
        }
        if let minimum = node.minLength, text.unicodeScalars.count < minimum { text += String(repeating: "x", count: minimum - text.unicodeScalars.count) }
        if let maximum = node.maxLength, text.unicodeScalars.count > maximum { text = String(String.UnicodeScalarView(text.unicodeScalars.prefix(maximum))) }
        if let pattern = node.pattern, !pattern.matches(text) {
            // A few texts that common patterns accept.
            let length = max(node.minLength ?? 1, 1)
            for candidate in ["a", "A", "1", "cat", "Cat1", "a-1", "a_1", "ABC"].map({ String(repeating: $0, count: length).prefix(node.maxLength ?? .max) }) where pattern.matches(String(candidate)) {
                return String(candidate)
            }
        }
        return text
    }

    private func number(_ node: Node, integer: Bool) -> Double {
        var value = node.minimum ?? node.exclusiveMinimum.map { integer ? ($0 + 1).rounded(.down) : $0 + 1 } ?? 0
        if let maximum = node.maximum, value > maximum { value = maximum }
        if let bound = node.exclusiveMaximum, value >= bound { value = integer ? (bound - 1).rounded(.up) : bound - 1 }
        if let divisor = node.multipleOf { value = (value / divisor).rounded(.up) * divisor }
        return integer ? value.rounded(.up) : value
    }
}
