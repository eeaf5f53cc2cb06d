package import HTTPTypes

/// A request's `Accept-Encoding` (RFC 9110 §12.5.3): which content codings the client takes, with
/// what preference (`q`).
///
///     AcceptEncoding(["gzip;q=0.8, br"]).preferred(among: ["br", "gzip"]) { $0 }   // "br"
///
/// A coding the field lists with `q=0` is refused; one it does not list is refused too, unless `*`
/// gives it a weight. `x-gzip` is `gzip`. A malformed element (a bad `q`) is ignored, as if absent.
/// Without the field, ``preferred(among:notBelowIdentity:token:)`` is `nil`: the client gets the
/// identity coding, as clients that send no `Accept-Encoding` expect. Any coding is weighed by its
/// token, so a module that adds one needs nothing here. The field is read byte by byte when a
/// coding is chosen, allocating nothing: it runs for every compressible response. WhiskerCompression
/// chooses a coding to apply with it, and WhiskerStaticFiles a precompressed sibling.
package struct AcceptEncoding {
    private let fields: HTTPFields

    /// The `Accept-Encoding` fields among `fields` (several fields are one list).
    package init(_ fields: HTTPFields) {
        self.fields = fields
    }

    /// `values`, each as an `Accept-Encoding` field.
    package init(_ values: [String]) {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .acceptEncoding, value: value)) }
        self.init(fields)
    }

    /// The coding among `supported` (in the server's order of preference) that the client weighs
    /// most, ties going to the server's order; `nil` when it takes none of them. `token` names a
    /// coding (`gzip`, `br`, `zstd`: lowercase). With `notBelowIdentity`, a coding the client weighs
    /// below the identity (`gzip;q=0.5, identity`) is not chosen either.
    package func preferred<Coding>(among supported: [Coding], notBelowIdentity: Bool = false, token: (Coding) -> String) -> Coding? {
        guard !supported.isEmpty else { return nil }
        // The weights the field lists for each of `supported` (thousandths, -1: not listed), on the stack.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: supported.count) { listed in
            listed.initialize(repeating: -1)
            var wildcard: Int?
            var identity: Int?
            for field in fields where field.name == .acceptEncoding {
                var value = field.value
                value.withUTF8 { bytes in
                    Self.forEachElement(in: bytes) { coding, weight in
                        if coding.count == 1, coding.first == UInt8(ascii: "*") {
                            if wildcard == nil { wildcard = weight }
                        } else if Self.spells(coding, "identity") {
                            if identity == nil { identity = weight }
                        } else {
                            for index in supported.indices where listed[index] < 0 && Self.names(coding, token(supported[index])) { listed[index] = weight }
                        }
                    }
                }
            }
            let floor = notBelowIdentity ? identity ?? wildcard ?? 1000 : 0
            var best: (index: Int, weight: Int)?
            for index in supported.indices {
                let weight = listed[index] >= 0 ? listed[index] : wildcard ?? 0
                if weight > 0, weight >= floor, weight > (best?.weight ?? 0) { best = (index, weight) }
            }
            return best.map { supported[$0.index] }
        }
    }

    /// Calls `body` with each list element's coding (without the whitespace around it) and weight;
    /// an element whose `q` is malformed is passed over.
    private static func forEachElement(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>, Int) -> Void) {
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            let element = bytes[start..<end]
            // `coding *( OWS ";" OWS parameter )`
            let codingEnd = element.firstIndex(of: UInt8(ascii: ";")) ?? element.endIndex
            var weight: Int? = 1000
            var parameterStart = codingEnd
            while parameterStart < element.endIndex {
                let nameStart = element.index(after: parameterStart)
                let parameterEnd = element[nameStart...].firstIndex(of: UInt8(ascii: ";")) ?? element.endIndex
                let parameter = trimmed(element[nameStart..<parameterEnd])
                if parameter.count >= 2, parameter.first! | 0x20 == UInt8(ascii: "q"), parameter[parameter.index(after: parameter.startIndex)] == UInt8(ascii: "=") {
                    weight = qvalue(parameter.dropFirst(2))
                }
                parameterStart = parameterEnd
            }
            if let weight { body(trimmed(element[..<codingEnd]), weight) }
            start = end + 1
        }
    }

    /// Whether `coding` is `token`'s, ignoring ASCII case (`x-gzip` is `gzip`'s).
    private static func names(_ coding: Slice<UnsafeBufferPointer<UInt8>>, _ token: String) -> Bool {
        var token = token
        return token.withUTF8 { expected in
            equalsIgnoringCase(coding, expected) || (expected.elementsEqual("gzip".utf8) && spells(coding, "x-gzip"))
        }
    }

    /// A `qvalue` (`0`, `0.5`, `1.000`: at most three decimals, at most 1) in thousandths; `nil`
    /// when it is not one.
    package static func qvalue<Bytes: Collection<UInt8>>(_ text: Bytes) -> Int? {
        guard let whole = text.first, whole == UInt8(ascii: "0") || whole == UInt8(ascii: "1") else { return nil }
        var thousandths = whole == UInt8(ascii: "1") ? 1000 : 0
        let rest = text.dropFirst()
        guard let dot = rest.first else { return thousandths }
        guard dot == UInt8(ascii: "."), rest.count <= 4 else { return nil }
        var scale = 100
        for digit in rest.dropFirst() {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return thousandths <= 1000 ? thousandths : nil
    }

    /// Without the spaces and tabs around it (optional whitespace).
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes.removeFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        return bytes
    }

    /// Whether `bytes` spell `token` (lowercase ASCII), ignoring ASCII case.
    private static func spells(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ token: StaticString) -> Bool {
        token.withUTF8Buffer { equalsIgnoringCase(bytes, $0) }
    }

    /// Whether `bytes` spell `lowercase` (lowercase ASCII), ignoring ASCII case.
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == lowercase.count
            && zip(bytes, lowercase).allSatisfy { byte, lower in byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0) == lower }
    }
}
