/// A request's `Accept-Encoding` (RFC 9110 §12.5.3): which content codings the client takes, with
/// what preference (`q`).
///
///     AcceptEncoding(["gzip;q=0.8, br"]).preferred(among: ["br", "gzip"]) { $0 }   // "br"
///
/// A coding the field lists with `q=0` is refused; one it does not list is refused too, unless `*`
/// gives it a weight. `x-gzip` is `gzip`. A malformed element (a bad `q`) is ignored, as if absent.
/// Without the field, ``preferred(among:)`` is `nil`: the client gets the identity coding, as
/// clients that send no `Accept-Encoding` expect. It is read byte by byte, allocating nothing: it
/// runs for every compressible response. WhiskerCompression chooses a coding to apply with it, and
/// WhiskerStaticFiles a precompressed sibling.
package struct AcceptEncoding {
    /// The weights (in thousandths) the field gives the codings the server knows, and `*`; `nil`
    /// for one it does not list. A repeated coding keeps its first weight.
    private var gzip: Int?
    private var brotli: Int?
    private var wildcard: Int?
    private var identity: Int?

    /// Parses the field's values (several fields are one list).
    package init<Values: Sequence<String>>(_ values: Values) {
        for var value in values {
            value.withUTF8 { bytes in
                var start = 0
                while start < bytes.count {
                    let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
                    element(bytes[start..<end])
                    start = end + 1
                }
            }
        }
    }

    /// One list element: `coding *( OWS ";" OWS parameter )`.
    private mutating func element(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        let codingEnd = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        var weight: Int? = 1000
        var start = codingEnd
        while start < bytes.endIndex {
            let parameterStart = bytes.index(after: start)
            let end = bytes[parameterStart...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            let parameter = Self.trimmed(bytes[parameterStart..<end])
            if parameter.count >= 2, parameter.first! | 0x20 == UInt8(ascii: "q"), parameter[parameter.index(after: parameter.startIndex)] == UInt8(ascii: "=") {
                weight = Self.qvalue(parameter.dropFirst(2))
            }
            start = end
        }
        guard let weight else { return }
        let coding = Self.trimmed(bytes[..<codingEnd])
        if Self.equalsIgnoringCase(coding, "gzip") || Self.equalsIgnoringCase(coding, "x-gzip") {
            if gzip == nil { gzip = weight }
        } else if Self.equalsIgnoringCase(coding, "br") {
            if brotli == nil { brotli = weight }
        } else if Self.equalsIgnoringCase(coding, "identity") {
            if identity == nil { identity = weight }
        } else if coding.count == 1, coding.first == UInt8(ascii: "*") {
            if wildcard == nil { wildcard = weight }
        }
    }

    /// The coding among `supported` (in the server's order of preference) that the client weighs
    /// most, ties going to the server's order; `nil` when it takes none of them. `token` names a
    /// coding (`gzip`, `br`; another is weighed by `*` only). With `notBelowIdentity`, a coding the
    /// client weighs below the identity (`gzip;q=0.5, identity`) is not chosen either.
    package func preferred<Coding>(among supported: [Coding], notBelowIdentity: Bool = false, token: (Coding) -> String) -> Coding? {
        let floor = notBelowIdentity ? identity ?? wildcard ?? 1000 : 0
        var best: (coding: Coding, weight: Int)?
        for coding in supported {
            let listed = switch token(coding) {
            case "gzip": gzip
            case "br": brotli
            default: Int?.none
            }
            let weight = listed ?? wildcard ?? 0
            if weight > 0, weight >= floor, weight > (best?.weight ?? 0) { best = (coding, weight) }
        }
        return best?.coding
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
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ token: StaticString) -> Bool {
        guard bytes.count == token.utf8CodeUnitCount else { return false }
        return token.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0) == lower }
        }
    }
}
