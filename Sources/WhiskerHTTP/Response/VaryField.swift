package import HTTPTypes

extension HTTPFields {
    /// Adds `name` to `Vary`, unless it (or `*`) is already there: a response says every request
    /// field its content depends on (RFC 9110 §12.5.5), so that caches keep the variants apart.
    package mutating func addVary(_ name: HTTPField.Name) {
        for value in self[values: .vary] {
            for element in value.split(separator: ",") {
                let token = element.trimmingOWS()
                if token == "*" || token.lowercased() == name.canonicalName { return }
            }
        }
        append(HTTPField(name: .vary, value: name.rawName))
    }
}
