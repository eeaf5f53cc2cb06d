import WhiskerCore

/// A request's `Accept-Encoding` (RFC 9110 §12.5.3): which content codings the client takes, with
/// what preference (`q`).
///
///     AcceptEncoding("gzip;q=0.8, br").preferred(among: [.brotli, .gzip])   // .brotli
///
/// A coding the field lists with `q=0` is refused; one it does not list is refused too, unless `*`
/// gives it a weight. `x-gzip` is `gzip`. A malformed element (a bad `q`) is ignored, as if absent.
/// Without the field, ``preferred(among:)`` is `nil`: the client gets the identity coding, as
/// clients that send no `Accept-Encoding` expect.
struct AcceptEncoding {
    /// The weight of each coding the field names, lowercased (`*` included), in thousandths.
    private var weights: [String: Int] = [:]

    /// Parses the field's values (several fields are one list).
    init<Values: Sequence<String>>(_ values: Values) {
        for value in values {
            for element in value.split(separator: ",") {
                let parts = element.split(separator: ";")
                guard let first = parts.first else { continue }
                var coding = first.trimmingOWS().lowercased()
                guard !coding.isEmpty else { continue }
                if coding == "x-gzip" { coding = "gzip" }
                var weight: Int? = 1000
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard pair.count == 2, pair[0].trimmingOWS().lowercased() == "q" else { continue }
                    weight = Self.qvalue(pair[1].trimmingOWS())
                }
                // A repeated coding keeps its first weight.
                if let weight, weights[coding] == nil { weights[coding] = weight }
            }
        }
    }

    init(_ value: String) { self.init([value]) }

    /// The coding among `supported` (in the server's order of preference) that the client weighs
    /// most, ties going to the server's order; `nil` when it takes none of them.
    func preferred(among supported: [ContentCoding]) -> ContentCoding? {
        var best: (coding: ContentCoding, weight: Int)?
        for coding in supported {
            let weight = weights[coding.token] ?? weights["*"] ?? 0
            if weight > 0, weight > (best?.weight ?? 0) { best = (coding, weight) }
        }
        return best?.coding
    }

    /// A `qvalue` (`0`, `0.5`, `1.000`: at most three decimals, at most 1) in thousandths; `nil`
    /// when it is not one.
    static func qvalue(_ text: Substring) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var thousandths = whole == "1" ? 1000 : 0
        if parts.count == 2 {
            let decimals = parts[1]
            guard decimals.count <= 3, decimals.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let value = Int(decimals.padding(toLength: 3)) ?? 0
            if whole == "1" && value != 0 { return nil }
            thousandths += value
        }
        return thousandths
    }
}

extension Substring {
    /// Padded on the right with zeros to `length` characters.
    fileprivate func padding(toLength length: Int) -> String {
        String(self) + String(repeating: "0", count: Swift.max(0, length - count))
    }
}
