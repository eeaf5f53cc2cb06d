import WhiskerSockets

/// A request's query as browsers read one (the WHATWG URL standard's
/// `application/x-www-form-urlencoded` parser), in one place for the document's checks and the
/// generated code: items are separated by `&`, empty items (`?&&`, `?a=1&`) are skipped, an item's
/// name ends at its first `=`, and an item without `=` is a name with an empty value (`?debug` is
/// `debug` = ``""``). Names and values are percent-decoded, `+` is a space.
///
/// swift-openapi-runtime's URI decoder (1.13) reads only `name=value` items: `?debug`, `?a&count=1`
/// or `?count=1&&x=2` made it throw an error that is no `DecodingError`, so a client's odd query
/// was a 500 (issue 38). ``runtimeTarget(_:)`` gives the generated code the same query in the form it
/// reads (`?debug=`, `?a=&count=1`, `?count=1&x=2`): what it decodes is what the checks saw.
package enum QueryString {
    /// The name-value pairs of a target's query, still percent-encoded.
    ///
    /// Found by its bytes (a request target is visible ASCII, so a delimiter is never part of a
    /// character): one array, no copy of the text. Searched character by character, the same
    /// query of one item took 22 allocations (issue 40).
    static func rawItems(of target: String) -> [(name: Substring, value: Substring)] {
        let bytes = target.utf8
        guard let mark = target.utf8Index(of: UInt8(ascii: "?")) else { return [] }
        let end = target.utf8Index(of: UInt8(ascii: "#")) ?? bytes.endIndex
        guard mark < end else { return [] }
        var items: [(name: Substring, value: Substring)] = []
        var start = bytes.index(after: mark)
        while start < end {
            let itemEnd = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            if start < itemEnd {
                if let equals = bytes[start..<itemEnd].firstIndex(of: UInt8(ascii: "=")) {
                    items.append((target[start..<equals], target[bytes.index(after: equals)..<itemEnd]))
                } else {
                    items.append((target[start..<itemEnd], ""))
                }
            }
            start = itemEnd == end ? end : bytes.index(after: itemEnd)
        }
        return items
    }

    /// `target` with each item of its query written `name=value` and the empty items left out,
    /// the form swift-openapi-runtime's URI decoder reads; `nil` when it is in that form already
    /// (the usual request: no copy).
    package static func runtimeTarget(_ target: String) -> String? {
        // The usual request, by its bytes: no `?`, or every item `name=value`.
        let bytes = target.utf8
        guard let mark = target.utf8Index(of: UInt8(ascii: "?")) else { return nil }
        let end = bytes[mark...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        guard needsRewrite(bytes[bytes.index(after: mark)..<end]), let query = query(of: target) else { return nil }
        let items = query.split(separator: "&").map { $0.contains("=") ? String($0) : $0 + "=" }
        return String(target[..<query.startIndex]) + items.joined(separator: "&") + String(target[query.endIndex...])
    }

    /// The query of `target`: after its first `?`, up to a `#` (never sent, but the runtime reads
    /// a query up to one too); `nil` without `?`.
    private static func query<Target: StringProtocol>(of target: Target) -> Target.SubSequence? {
        let end = target.firstIndex(of: "#") ?? target.endIndex
        guard let mark = target[..<end].firstIndex(of: "?") else { return nil }
        return target[target.index(after: mark)..<end]
    }

    /// Whether some item of `query` (its bytes) is empty or has no `=`.
    private static func needsRewrite(_ query: some Sequence<UInt8>) -> Bool {
        var itemHasEquals = false
        var itemIsEmpty = true
        for byte in query {
            switch byte {
            case UInt8(ascii: "&"):
                if itemIsEmpty || !itemHasEquals { return true }
                (itemHasEquals, itemIsEmpty) = (false, true)
            case UInt8(ascii: "="):
                (itemHasEquals, itemIsEmpty) = (true, false)
            default:
                itemIsEmpty = false
            }
        }
        // A query that ends with `&` (or is empty) has an empty last item, which the runtime's
        // parser skips; one whose last item lacks `=` does not parse.
        return !itemIsEmpty && !itemHasEquals
    }
}
