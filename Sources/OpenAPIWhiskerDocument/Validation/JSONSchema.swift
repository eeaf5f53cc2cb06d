/// A JSON Schema from an OpenAPI document (3.0's dialect and 3.1's), compiled once, checked many
/// times. The keywords covered: `type` (one or several; 3.0's `nullable`), `enum`, `const`,
/// `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum` (3.0's booleans and 3.1's
/// numbers), `multipleOf`, `minLength`, `maxLength` (in Unicode code points), `pattern`, `items`,
/// `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `properties`, `required`,
/// `additionalProperties` (`false` or a schema), `minProperties`, `maxProperties`, `allOf`,
/// `anyOf`, `oneOf`, `not`, `$ref` to anywhere in the document (`#/components/schemas/...`), and
/// the `format`s ``SchemaFormat`` names (`date-time`, `date`, `uuid`, `email`, `uri`, `byte`,
/// `int32`, `int64`). Annotations (other formats, `description`, `default`, `example`,
/// `readOnly`...) are not checked.
struct SchemaSet: Sendable {
    /// One compiled schema; children are indexes into ``SchemaSet/nodes``.
    struct Node: Sendable {
        var alwaysFails = false
        /// 3.0's `nullable: true` without a `type`: `null` passes whatever else the schema says.
        var nullable = false
        var types: Set<String>?
        var enumeration: [JSONValue]?
        var constant: JSONValue?
        var minimum: Double?
        var maximum: Double?
        var exclusiveMinimum: Double?
        var exclusiveMaximum: Double?
        var multipleOf: Double?
        var minLength: Int?
        var maxLength: Int?
        var pattern: SchemaPattern?
        var format: SchemaFormat?
        var items: Int?
        var prefixItems: [Int] = []
        var minItems: Int?
        var maxItems: Int?
        var uniqueItems = false
        var properties: [(name: String, schema: Int)] = []
        var required: [String] = []
        var additionalProperties: Int?
        var noAdditionalProperties = false
        var minProperties: Int?
        var maxProperties: Int?
        var allOf: [Int] = []
        var anyOf: [Int] = []
        var oneOf: [Int] = []
        var not: Int?
        var reference: Int?
        /// Its `example` (or the first of `examples`, or `default`): an annotation, not checked,
        /// but what a mock answers first (``value(for:)``).
        var example: JSONValue?
    }

    private(set) var nodes: [Node] = []
    private var compiledReferences: [String: Int] = [:]
    private let document: JSONValue

    init(document: JSONValue) { self.document = document }

    /// Compiles `schema` (found at `location` in the document, for messages) and returns its index.
    mutating func compile(_ schema: JSONValue, at location: String) throws(DocumentError) -> Int {
        let index = nodes.count
        nodes.append(Node())
        var node = Node()
        if let flag = schema.bool {
            node.alwaysFails = !flag
            nodes[index] = node
            return index
        }
        guard case .object = schema else { throw DocumentError("\(location) is not a schema") }
        if let target = schema["$ref"]?.string {
            node.reference = try reference(target, from: location)
        }
        switch schema["type"] {
        case .string(let type)?: node.types = [type]
        case .array(let types)?: node.types = Set(types.compactMap(\.string))
        default: break
        }
        // 3.0's `nullable` on a schema without `type` (a `oneOf`, a `$ref`): null is allowed too.
        if schema["nullable"]?.bool == true {
            if node.types != nil { node.types?.insert("null") } else { node.nullable = true }
        }
        node.enumeration = schema["enum"]?.array
        node.constant = schema["const"]
        node.minimum = schema["minimum"]?.double
        node.maximum = schema["maximum"]?.double
        // 3.0: a boolean that makes `minimum`/`maximum` exclusive; 3.1: the bound itself.
        if let bound = schema["exclusiveMinimum"] {
            if bound.bool == true { node.exclusiveMinimum = node.minimum; node.minimum = nil } else { node.exclusiveMinimum = bound.double }
        }
        if let bound = schema["exclusiveMaximum"] {
            if bound.bool == true { node.exclusiveMaximum = node.maximum; node.maximum = nil } else { node.exclusiveMaximum = bound.double }
        }
        node.multipleOf = schema["multipleOf"]?.double.flatMap { $0 > 0 ? $0 : nil }
        node.minLength = schema["minLength"]?.double.map { Int($0) }
        node.maxLength = schema["maxLength"]?.double.map { Int($0) }
        if let pattern = schema["pattern"]?.string {
            node.pattern = try SchemaPattern(pattern, at: location)
        }
        node.format = schema["format"]?.string.flatMap(SchemaFormat.init(rawValue:))
        if let items = schema["items"] {
            if let tuple = items.array {
                node.prefixItems = try tuple.enumerated().map { (offset, item) throws(DocumentError) in try compile(item, at: "\(location)/items/\(offset)") }
            } else {
                node.items = try compile(items, at: "\(location)/items")
            }
        }
        if let prefix = schema["prefixItems"]?.array {
            node.prefixItems = try prefix.enumerated().map { (offset, item) throws(DocumentError) in try compile(item, at: "\(location)/prefixItems/\(offset)") }
        }
        node.minItems = schema["minItems"]?.double.map { Int($0) }
        node.maxItems = schema["maxItems"]?.double.map { Int($0) }
        node.uniqueItems = schema["uniqueItems"]?.bool ?? false
        for (name, property) in schema["properties"]?.members ?? [] {
            node.properties.append((name, try compile(property, at: "\(location)/properties/\(name)")))
        }
        node.required = schema["required"]?.array?.compactMap(\.string) ?? []
        switch schema["additionalProperties"] {
        case .bool(false)?: node.noAdditionalProperties = true
        case .object(let members)? where !members.isEmpty:
            node.additionalProperties = try compile(.object(members), at: "\(location)/additionalProperties")
        default: break
        }
        node.minProperties = schema["minProperties"]?.double.map { Int($0) }
        node.maxProperties = schema["maxProperties"]?.double.map { Int($0) }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            let compiled = try (schema[keyword]?.array ?? []).enumerated().map { (offset, item) throws(DocumentError) in
                try compile(item, at: "\(location)/\(keyword)/\(offset)")
            }
            switch keyword {
            case "allOf": node.allOf = compiled
            case "anyOf": node.anyOf = compiled
            default: node.oneOf = compiled
            }
        }
        if let not = schema["not"] { node.not = try compile(not, at: "\(location)/not") }
        node.example = schema["example"] ?? schema["examples"]?.array?.first ?? schema["default"]
        nodes[index] = node
        return index
    }

    /// The index of the schema `target` points at (`#/components/schemas/Name`), compiled once,
    /// so that a schema that refers to itself is one node.
    private mutating func reference(_ target: String, from location: String) throws(DocumentError) -> Int {
        if let index = compiledReferences[target] { return index }
        guard target.hasPrefix("#") else { throw DocumentError("\(location): $ref \(target) is outside the document; only local references are read") }
        guard let value = document.value(at: target) else { throw DocumentError("\(location): $ref \(target) points at nothing in the document") }
        // Reserve the index first: the schema may refer to itself.
        let index = nodes.count
        compiledReferences[target] = index
        let compiled = try compile(value, at: target)
        precondition(compiled == index)
        return index
    }
}

/// One thing a request or response does not do that the document says it must.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
    /// Where: `query`, `path`, `header`, `cookie` or `body`.
    public var location: String
    /// The parameter's name (for parameters) or the JSON pointer in the body (`/name`, or empty
    /// for the body itself).
    public var name: String
    /// What is wrong, for a person to read: "must be at most 100, got 101".
    public var detail: String

    public var description: String {
        location == "body" ? "body \(name.isEmpty ? "/" : name): \(detail)" : "\(location) parameter \(name): \(detail)"
    }
}

extension SchemaSet {
    /// Checks `value` against the schema at `index`, appending what fails to `violations`, each
    /// with `pointer` extended to where it is. At most `limit` violations are kept.
    func check(_ value: JSONValue, against index: Int, pointer: String, into violations: inout [(pointer: String, detail: String)], limit: Int = 32) {
        guard violations.count < limit else { return }
        let node = nodes[index]
        func fail(_ detail: String, at place: String = pointer) {
            if violations.count < limit { violations.append((place, detail)) }
        }
        if node.alwaysFails { return fail("is not allowed here") }
        if node.nullable, value == .null { return }
        if let reference = node.reference { check(value, against: reference, pointer: pointer, into: &violations, limit: limit) }
        if let types = node.types {
            let type = value.typeName
            guard types.contains(type) || (type == "integer" && types.contains("number")) else {
                return fail("must be \(Self.describe(types)), got \(Self.article(type)) (\(Self.shown(value)))")
            }
        }
        if let enumeration = node.enumeration, !enumeration.contains(value) {
            fail("must be one of \(enumeration.map(\.jsonText).joined(separator: ", ")), got \(Self.shown(value))")
        }
        if let constant = node.constant, constant != value { fail("must be \(constant.jsonText), got \(Self.shown(value))") }
        switch value {
        case .integer, .number:
            let number = value.double!
            if let minimum = node.minimum, number < minimum { fail("must be at least \(Self.number(minimum)), got \(value.jsonText)") }
            if let maximum = node.maximum, number > maximum { fail("must be at most \(Self.number(maximum)), got \(value.jsonText)") }
            if let bound = node.exclusiveMinimum, number <= bound { fail("must be greater than \(Self.number(bound)), got \(value.jsonText)") }
            if let bound = node.exclusiveMaximum, number >= bound { fail("must be less than \(Self.number(bound)), got \(value.jsonText)") }
            if let divisor = node.multipleOf {
                let quotient = number / divisor
                if abs(quotient - quotient.rounded()) > 1e-9 { fail("must be a multiple of \(Self.number(divisor)), got \(value.jsonText)") }
            }
            if let format = node.format, let problem = format.problem(with: value) { fail(problem) }
        case .string(let text):
            if node.minLength != nil || node.maxLength != nil {
                let length = text.unicodeScalars.count
                if let minimum = node.minLength, length < minimum {
                    fail("must be at least \(minimum) character\(minimum == 1 ? "" : "s") long, got \(length)")
                }
                if let maximum = node.maxLength, length > maximum {
                    fail("must be at most \(maximum) character\(maximum == 1 ? "" : "s") long, got \(length)")
                }
            }
            if let pattern = node.pattern, !pattern.matches(text) { fail("must match the pattern \(pattern.source)") }
            if let format = node.format, let problem = format.problem(with: text) { fail(problem) }
        case .array(let items):
            if let minimum = node.minItems, items.count < minimum { fail("must have at least \(minimum) item\(minimum == 1 ? "" : "s"), got \(items.count)") }
            if let maximum = node.maxItems, items.count > maximum { fail("must have at most \(maximum) item\(maximum == 1 ? "" : "s"), got \(items.count)") }
            if node.uniqueItems, let duplicate = items.indices.first(where: { index in items[..<index].contains(items[index]) }) {
                fail("must not repeat items, but item \(duplicate) repeats \(items[duplicate].jsonText)")
            }
            for (offset, item) in items.enumerated() {
                if offset < node.prefixItems.count {
                    check(item, against: node.prefixItems[offset], pointer: "\(pointer)/\(offset)", into: &violations, limit: limit)
                } else if let schema = node.items {
                    check(item, against: schema, pointer: "\(pointer)/\(offset)", into: &violations, limit: limit)
                }
            }
        case .object(let members):
            for name in node.required where !members.contains(where: { $0.key == name }) {
                fail("is required", at: "\(pointer)/\(Self.escaped(name))")
            }
            if let minimum = node.minProperties, members.count < minimum { fail("must have at least \(minimum) properties, got \(members.count)") }
            if let maximum = node.maxProperties, members.count > maximum { fail("must have at most \(maximum) properties, got \(members.count)") }
            for (key, member) in members {
                let at = "\(pointer)/\(Self.escaped(key))"
                if let property = node.properties.first(where: { $0.name == key }) {
                    check(member, against: property.schema, pointer: at, into: &violations, limit: limit)
                } else if node.noAdditionalProperties {
                    fail("is not a property this object has", at: at)
                } else if let schema = node.additionalProperties {
                    check(member, against: schema, pointer: at, into: &violations, limit: limit)
                }
            }
        default: break
        }
        for schema in node.allOf { check(value, against: schema, pointer: pointer, into: &violations, limit: limit) }
        if !node.anyOf.isEmpty, !node.anyOf.contains(where: { matches(value, $0) }) {
            fail("must match at least one of the \(node.anyOf.count) schemas of anyOf")
        }
        if !node.oneOf.isEmpty {
            let matching = node.oneOf.filter { matches(value, $0) }.count
            if matching != 1 { fail("must match exactly one of the \(node.oneOf.count) schemas of oneOf, matches \(matching)") }
        }
        if let not = node.not, matches(value, not) { fail("must not match the schema under not") }
    }

    /// The violations of the JSON text `bytes` against the schema at `index`.
    /// - Throws: ``JSONSyntaxError`` if the text is not JSON.
    func violations(ofJSON bytes: some Collection<UInt8>, against index: Int) throws(JSONSyntaxError) -> [(pointer: String, detail: String)] {
        var found: [(pointer: String, detail: String)] = []
        check(try JSONReader.read(bytes), against: index, pointer: "", into: &found)
        return found
    }

    /// What the JSON body `bytes` does that the schema at `index` does not allow, for a person to
    /// read: "body /name: is required", or why it is not JSON.
    func problems(ofJSON bytes: some Collection<UInt8>, against index: Int) -> [String] {
        do {
            return try violations(ofJSON: bytes, against: index).map { "body \($0.pointer.isEmpty ? "/" : $0.pointer): \($0.detail)" }
        } catch {
            return ["body: \(error)"]
        }
    }

    func matches(_ value: JSONValue, _ index: Int) -> Bool {
        var violations: [(pointer: String, detail: String)] = []
        check(value, against: index, pointer: "", into: &violations, limit: 1)
        return violations.isEmpty
    }

    /// The types a schema at `index` allows, if it says (following a `$ref`).
    func types(of index: Int) -> Set<String>? { followingReferences(index) { $0.types } }

    /// The schema of the property `name` of the object schema at `index` (following a `$ref`).
    func propertySchema(_ name: String, of index: Int) -> Int? {
        followingReferences(index) { node in node.properties.first { $0.name == name }?.schema }
    }

    /// The schema of the items of the array schema at `index` (following a `$ref`).
    func itemSchema(of index: Int) -> Int? { followingReferences(index) { $0.items } }

    /// What `keyword` gives for the schema at `index`, or for the one its `$ref` points at.
    private func followingReferences<T>(_ index: Int, _ keyword: (Node) -> T?) -> T? {
        var node = nodes[index]
        for _ in 0..<16 {
            if let value = keyword(node) { return value }
            guard let reference = node.reference else { return nil }
            node = nodes[reference]
        }
        return nil
    }

    private static func escaped(_ token: String) -> String {
        JSONValue.escapedPointerToken(token)
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func article(_ type: String) -> String {
        (type == "integer" || type == "object" || type == "array" ? "an " : "a ") + type
    }

    private static func describe(_ types: Set<String>) -> String {
        types.sorted().map(article).joined(separator: " or ")
    }

    /// A value as a message shows it: short.
    static func shown(_ value: JSONValue) -> String {
        let text = value.jsonText
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}
