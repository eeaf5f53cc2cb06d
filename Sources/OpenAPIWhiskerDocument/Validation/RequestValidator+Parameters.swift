import HTTPTypes
import WhiskerCore

/// Reading a parameter from a request as its `style` and `explode` serialize it (OpenAPI 3.0.4
/// and 3.1, "Style Values" and "Style Examples"), and as swift-openapi-runtime's URI coder (1.13)
/// writes and reads the styles the generator supports:
///
/// | in | style | explode | primitive | array | object |
/// | --- | --- | --- | --- | --- | --- |
/// | query, cookie | form | true | `id=5` | `id=3&id=4` | `role=admin&name=Alex` |
/// | query, cookie | form | false | `id=5` | `id=3,4` | `id=role,admin,name,Alex` |
/// | query | spaceDelimited | false | | `id=3%204` | `id=role%20admin` |
/// | query | pipeDelimited | false | | `id=3\|4` | `id=role\|admin` |
/// | query | deepObject | true | | | `id[role]=admin&id[name]=Alex` |
/// | path, header | simple | false | `5` | `3,4` | `role,admin,name,Alex` |
/// | path, header | simple | true | `5` | `3,4` | `role=admin,name=Alex` |
/// | path | label | false / true | `.5` | `.3,4` / `.3.4` | `.role,admin` / `.role=admin` |
/// | path | matrix | false / true | `;id=5` | `;id=3,4` / `;id=3;id=4` | `;id=role,admin` / `;role=admin` |
///
/// A value is split at its delimiters as sent, then each part is percent-decoded (`+` is a space
/// in a query), so that an escaped delimiter (`%2C`) stays in its item, as the runtime reads it;
/// header values are percent-decoded too (the runtime's client escapes them). `allowReserved`
/// needs nothing: reserved characters are read as sent, escaped or not. In a cookie a raw comma
/// can only be a delimiter (RFC 6265's cookie-octet excludes it), so an array cookie is split at
/// commas whatever its `explode`, and an exploded array is also the cookie repeated.
///
/// Where the runtime differs, both are admitted: it writes path and header objects unexploded
/// whatever `explode` says (`role,admin` for a `simple` object with `explode: true`), and its
/// `deepObject` reads the key up to the first `]` (`id[a][b]` is the member `a`). The runtime
/// supports neither `label`, `matrix`, `spaceDelimited`, `pipeDelimited` nor cookie parameters
/// (the generator leaves such parameters out of the handler's input); they are checked as the
/// specification writes them, for the clients that send them.
extension RequestValidator {
    /// A parameter as read from a request.
    enum Reading {
        /// Not in the request.
        case absent
        /// An empty value where `allowEmptyValue` allows one: present, not checked.
        case emptyAllowed
        /// Not in its style's form: why.
        case malformed(String)
        /// The value to check against the schema.
        case value(JSONValue)
    }

    /// `parameter` as the request gives it, from `query` (the items of the target's query as
    /// sent), `head`'s fields, or `pathParameters` (percent-encoded).
    func readParameter(_ parameter: DocumentOperations.Parameter, query: [(name: Substring, value: Substring)], head: HTTPRequest, pathParameters: PathParameters) -> Reading {
        switch parameter.location {
        case .query:
            return Self.readQuery(parameter, items: query, siblings: operation.parameters)
        case .path:
            guard let raw = pathParameters[parameter.name] else { return .absent }
            return Self.readPath(parameter, raw: raw)
        case .header:
            guard let name = parameter.fieldName else { return .absent }
            // A walk over the fields, not `headerFields[values: name]`: a lookup by name builds
            // the fields' index (allocations on every request, even one without the field).
            var values: [String] = []
            for field in head.headerFields where field.name == name { values.append(field.value) }
            guard !values.isEmpty else { return .absent }
            return Self.readHeader(parameter, values: values)
        case .cookie:
            let cookies = Self.cookies(in: head.headerFields[values: .cookie])
            return Self.readCookie(parameter, cookies: cookies, siblings: operation.parameters)
        }
    }

    // MARK: Query

    static func readQuery(_ parameter: DocumentOperations.Parameter, items: [(name: Substring, value: Substring)], siblings: [DocumentOperations.Parameter]) -> Reading {
        func decoded(_ text: Substring) -> Substring { percentDecoded(text, plusIsSpace: true) }
        if parameter.shape == .object, parameter.style == .deepObject {
            // `id[role]=admin`: the member's name up to the first `]`.
            var members = Members()
            let prefix = parameter.name + "["
            for item in items {
                let name = decoded(item.name)
                guard name.hasPrefix(prefix) else { continue }
                let key = name.dropFirst(prefix.count)
                guard let close = key.firstIndex(of: "]") else { continue }
                members.add(key[..<close], decoded(item.value))
            }
            return exploded(members, of: parameter)
        }
        if parameter.shape == .object, parameter.explode {
            // `role=admin&name=Alex`: the items named after the object's members (and, for an
            // object that takes any member, those no other query parameter names).
            var members = Members()
            for item in items {
                let name = decoded(item.name)
                guard isMember(name, of: parameter, in: .query, siblings: siblings) else { continue }
                members.add(name, decoded(item.value))
            }
            return exploded(members, of: parameter)
        }
        // The fast path, `?count=3`: the item of that name, decoded, no copy unless escaped. A
        // value given twice (`?count=3&count=x`) is refused: which one a reader takes differs
        // from reader to reader (HTTP parameter pollution).
        if parameter.shape == .primitive || parameter.isJSON {
            guard let index = items.firstIndex(where: { decoded($0.name) == parameter.name }) else { return .absent }
            let item = items[index]
            let rest = items[(index + 1)...]
            if rest.contains(where: { decoded($0.name) == parameter.name }) {
                return .malformed("must be given once, got \(rest.count { decoded($0.name) == parameter.name } + 1) values")
            }
            if item.value.isEmpty, parameter.allowEmptyValue { return .emptyAllowed }
            return primitive(decoded(item.value), of: parameter)
        }
        let values = items.filter { decoded($0.name) == parameter.name }.map(\.value)
        guard !values.isEmpty else { return .absent }
        let parts: [Substring]
        switch (parameter.style, parameter.explode) {
        case (.spaceDelimited, false), (.pipeDelimited, false):
            // The delimiter arrives escaped (`%20`, `+`, `%7C`) or not (`|`): split after decoding.
            let delimiter: Character = parameter.style == .spaceDelimited ? " " : "|"
            parts = values.flatMap { value in
                value.isEmpty ? [] : decoded(value).split(separator: delimiter, omittingEmptySubsequences: false)
            }
        case (_, false):
            // `id=3,4`; an empty value is no items (`id=`, OpenAPI's empty array).
            parts = values.flatMap { value in
                value.isEmpty ? [] : value.split(separator: ",", omittingEmptySubsequences: false).map(decoded)
            }
        case (_, true):
            // `id=3&id=4`, as the runtime reads it: each item one value.
            parts = values.map(decoded)
        }
        if parameter.shape == .array { return .value(array(parts, of: parameter)) }
        return pairs(parts, of: parameter, style: "\(parameter.style.rawValue), explode false")
    }

    // MARK: Path

    static func readPath(_ parameter: DocumentOperations.Parameter, raw: Substring) -> Reading {
        func decoded(_ text: Substring) -> Substring { percentDecoded(text, plusIsSpace: false) }
        switch parameter.style {
        case .label:
            // `.5`, `.3,4` or `.3.4`, `.role,admin` or `.role=admin`.
            guard raw.first == "." else { return .malformed("must start with \".\" (style label)") }
            let rest = raw.dropFirst()
            if parameter.shape == .primitive || parameter.isJSON { return primitive(decoded(rest), of: parameter) }
            let delimiter: Character = parameter.explode ? "." : ","
            return delimited(rest.isEmpty ? [] : rest.split(separator: delimiter, omittingEmptySubsequences: false), of: parameter, decoded: decoded, style: "label")
        case .matrix:
            // `;id=5`, `;id=3,4` or `;id=3;id=4`, `;id=role,admin` or `;role=admin`.
            guard raw.first == ";" else { return .malformed("must start with \";\(parameter.name)\" (style matrix)") }
            let items = raw.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map { item in
                let equals = item.firstIndex(of: "=")
                return (name: decoded(item[..<(equals ?? item.endIndex)]), value: equals.map { item[item.index(after: $0)...] } ?? "")
            }
            if parameter.shape == .object, parameter.explode {
                var members = Members()
                for item in items { members.add(item.name, decoded(item.value)) }
                return .value(object(members, of: parameter))
            }
            guard items.allSatisfy({ $0.name == parameter.name }) else {
                return .malformed("must be written ;\(parameter.name)=... (style matrix)")
            }
            if parameter.shape == .primitive || parameter.isJSON { return primitive(decoded(items[0].value), of: parameter) }
            let parts = parameter.explode && parameter.shape == .array
                ? items.map(\.value)
                : items[0].value.isEmpty ? [] : items[0].value.split(separator: ",", omittingEmptySubsequences: false)
            return delimited(parts, of: parameter, decoded: decoded, style: "matrix")
        default:
            // `simple` (and a path style the specification does not define, read as simple).
            if parameter.shape == .primitive || parameter.isJSON { return primitive(decoded(raw), of: parameter) }
            return delimited(raw.isEmpty ? [] : raw.split(separator: ",", omittingEmptySubsequences: false), of: parameter, decoded: decoded, style: "simple")
        }
    }

    // MARK: Header

    static func readHeader(_ parameter: DocumentOperations.Parameter, values: [String]) -> Reading {
        func decoded(_ text: Substring) -> Substring { percentDecoded(text.trimmingSpaces, plusIsSpace: false) }
        // JSON as sent, the fields joined as the runtime joins them.
        if parameter.isJSON { return primitive(Substring(values.joined(separator: ", ")), of: parameter) }
        // One value where one is expected: the first field's (a primitive's commas are its own).
        if parameter.shape == .primitive { return primitive(decoded(Substring(values[0])), of: parameter) }
        // A list, over however many fields it came in (RFC 9110, 5.3), each item trimmed.
        let parts = values.flatMap { $0.isEmpty ? [] : $0.split(separator: ",", omittingEmptySubsequences: false) }
        return delimited(parts, of: parameter, decoded: decoded, style: "simple")
    }

    // MARK: Cookie

    static func readCookie(_ parameter: DocumentOperations.Parameter, cookies: [(name: Substring, value: Substring)], siblings: [DocumentOperations.Parameter]) -> Reading {
        func decoded(_ text: Substring) -> Substring { percentDecoded(text, plusIsSpace: false) }
        if parameter.shape == .object, parameter.explode {
            // Each member its own cookie: `role=admin; name=Alex`.
            var members = Members()
            for cookie in cookies where isMember(cookie.name, of: parameter, in: .cookie, siblings: siblings) {
                members.add(cookie.name, decoded(cookie.value))
            }
            return exploded(members, of: parameter)
        }
        let values = cookies.filter { $0.name == parameter.name }.map(\.value)
        guard let first = values.first else { return .absent }
        if parameter.shape == .primitive || parameter.isJSON { return primitive(decoded(first), of: parameter) }
        if parameter.shape == .array {
            let parts = values.flatMap { $0.isEmpty ? [] : $0.split(separator: ",", omittingEmptySubsequences: false).map(decoded) }
            return .value(array(parts, of: parameter))
        }
        return pairs(first.isEmpty ? [] : first.split(separator: ",", omittingEmptySubsequences: false).map(decoded), of: parameter, style: "form, explode false")
    }

    // MARK: Values

    /// Whether the query item or cookie `name` is a member of the exploded object `parameter`:
    /// one of its properties, or, for an object that takes any member, a name that is neither the
    /// parameter's own nor another parameter's.
    private static func isMember(_ name: Substring, of parameter: DocumentOperations.Parameter, in location: DocumentOperations.Parameter.Location, siblings: [DocumentOperations.Parameter]) -> Bool {
        if parameter.properties[String(name)] != nil { return true }
        guard parameter.additionalProperties != nil, name != parameter.name else { return false }
        return !siblings.contains { $0.location == location && $0.name == name }
    }

    /// One value: JSON text parsed, or the text typed for the schema.
    private static func primitive(_ text: Substring, of parameter: DocumentOperations.Parameter) -> Reading {
        guard parameter.isJSON else { return .value(scalar(text, types: parameter.typing.types)) }
        do {
            return .value(try JSONReader.read(text.utf8))
        } catch {
            return .malformed("is \(error.description) (content application/json)")
        }
    }

    /// The parts of a `simple`, `label` or `matrix` value (still escaped) as an array's items or
    /// an object's members: `name=value` parts where the style explodes an object, else
    /// alternating names and values; the runtime writes the latter whatever `explode` says, so
    /// it is read too when not every part has a `=`.
    private static func delimited(_ parts: [Substring], of parameter: DocumentOperations.Parameter, decoded: (Substring) -> Substring, style: String) -> Reading {
        if parameter.shape == .array { return .value(array(parts.map(decoded), of: parameter)) }
        if parameter.explode, !parts.isEmpty, parts.allSatisfy({ $0.contains("=") }) {
            var members = Members()
            for part in parts {
                let equals = part.firstIndex(of: "=")!
                members.add(decoded(part[..<equals]), decoded(part[part.index(after: equals)...]))
            }
            return .value(object(members, of: parameter))
        }
        return pairs(parts.map(decoded), of: parameter, style: "\(style), explode \(parameter.explode)")
    }

    /// An object from alternating names and values (`role,admin,name,Alex`).
    private static func pairs(_ parts: [Substring], of parameter: DocumentOperations.Parameter, style: String) -> Reading {
        guard parts.count % 2 == 0 else {
            return .malformed("must be names and values in turn (style \(style)), got \(parts.count) parts")
        }
        var members = Members()
        for index in stride(from: 0, to: parts.count, by: 2) { members.add(parts[index], parts[index + 1]) }
        return .value(object(members, of: parameter))
    }

    /// An exploded object (`form` or `deepObject`): its members, or, with none, absent; but a
    /// required object that requires no member is then the empty object, which is how the
    /// generated client sends one.
    private static func exploded(_ members: Members, of parameter: DocumentOperations.Parameter) -> Reading {
        guard members.list.isEmpty else { return .value(object(members, of: parameter)) }
        return parameter.required && !parameter.requiresMembers ? .value(.object([])) : .absent
    }

    /// An object's members in the order they came, each with every value given for it; found by
    /// name in constant time, so that a query of a thousand members costs a thousand steps.
    struct Members {
        private(set) var list: [(key: Substring, values: [Substring])] = []
        private var index: [Substring: Int] = [:]

        mutating func add(_ key: Substring, _ value: Substring) {
            if let at = index[key] {
                list[at].values.append(value)
            } else {
                index[key] = list.count
                list.append((key, [value]))
            }
        }
    }

    private static func array(_ items: [Substring], of parameter: DocumentOperations.Parameter) -> JSONValue {
        .array(items.map { scalar($0, types: parameter.typing.itemTypes) })
    }

    /// Members as an object, each typed by its property's schema: an array property takes every
    /// value given for it (`id[tag]=a&id[tag]=b`), any other the first, as the runtime reads them.
    private static func object(_ members: Members, of parameter: DocumentOperations.Parameter) -> JSONValue {
        .object(members.list.map { member in
            let typing = parameter.typing(ofMember: member.key)
            let value: JSONValue = typing.isArray
                ? .array(member.values.map { scalar($0, types: typing.itemTypes) })
                : scalar(member.values[0], types: typing.types)
            return (String(member.key), value)
        })
    }
}
