/// One segment of an OpenAPI path template: all literal (`pets`), one capture (`{petId}`), or
/// mixed (`{name}.zip`, `{a}-{b}`).
struct SegmentPattern: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case literal(String)
        case capture
    }

    let parts: [Part]
    /// The pattern with captures unnamed: two templates with the same shape match the same paths.
    let shape: String
    /// Literal characters; more literal text is more specific and is tried first.
    let literalLength: Int
    let captureCount: Int

    init(parts: [Part]) {
        self.parts = parts
        var shape = ""
        var literalLength = 0
        for part in parts {
            switch part {
            case .literal(let text):
                shape += text
                literalLength += text.utf8.count
            case .capture:
                shape += "{}"
            }
        }
        self.shape = shape
        self.literalLength = literalLength
        self.captureCount = parts.count { $0 == .capture }
    }

    /// Whether this pattern is tried before `other`: more literal text first, then fewer captures.
    func isMoreSpecific(than other: SegmentPattern) -> Bool {
        (literalLength, -captureCount) > (other.literalLength, -other.captureCount)
    }

    /// Matches a whole path segment, appending one non-empty value per capture. A capture
    /// followed by a literal takes the shortest value after which the rest still matches,
    /// so `{name}.zip` on `a.b.zip` captures `a.b`.
    func match(_ segment: Substring, into captures: inout [Substring]) -> Bool {
        let mark = captures.count
        if match(segment.utf8[...], partIndex: 0, into: &captures) { return true }
        captures.removeSubrange(mark...)
        return false
    }

    private func match(_ rest: Substring.UTF8View.SubSequence, partIndex: Int, into captures: inout [Substring]) -> Bool {
        guard partIndex < parts.count else { return rest.isEmpty }
        switch parts[partIndex] {
        case .literal(let text):
            guard rest.starts(with: text.utf8) else { return false }
            return match(rest.dropFirst(text.utf8.count), partIndex: partIndex + 1, into: &captures)
        case .capture:
            if partIndex == parts.count - 1 {
                guard !rest.isEmpty else { return false }
                captures.append(Substring(rest))
                return true
            }
            // The next part is a literal (adjacent captures are refused at registration).
            var end = rest.index(rest.startIndex, offsetBy: 1, limitedBy: rest.endIndex)
            while let candidate = end, candidate < rest.endIndex {
                captures.append(Substring(rest[rest.startIndex..<candidate]))
                if match(rest[candidate...], partIndex: partIndex + 1, into: &captures) { return true }
                captures.removeLast()
                end = rest.index(candidate, offsetBy: 1, limitedBy: rest.endIndex)
            }
            return false
        }
    }
}

/// A parsed OpenAPI path template such as `/pets/{petId}` or `/file/{name}.zip`.
struct PathTemplate: Sendable {
    enum Segment: Sendable {
        case literal(String)
        case pattern(SegmentPattern)
    }

    let segments: [Segment]
    /// Capture names in the order they appear.
    let parameterNames: [String]

    init(_ template: String) throws(RouteError) {
        guard template.hasPrefix("/") else { throw RouteError(.invalidTemplate(template, "a path must start with /")) }
        var segments: [Segment] = []
        var names: [String] = []
        for raw in template.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard raw.contains("{") || raw.contains("}") else {
                segments.append(.literal(String(raw)))
                continue
            }
            var parts: [SegmentPattern.Part] = []
            var rest = raw[...]
            while !rest.isEmpty {
                if rest.first == "{" {
                    guard let close = rest.firstIndex(of: "}") else { throw RouteError(.invalidTemplate(template, "unclosed {")) }
                    let name = rest[rest.index(after: rest.startIndex)..<close]
                    guard !name.isEmpty, !name.contains("{") else { throw RouteError(.invalidTemplate(template, "empty or nested parameter name")) }
                    if case .capture? = parts.last { throw RouteError(.invalidTemplate(template, "two parameters with nothing between them")) }
                    guard !names.contains(String(name)) else { throw RouteError(.invalidTemplate(template, "parameter {\(name)} appears twice")) }
                    parts.append(.capture)
                    names.append(String(name))
                    rest = rest[rest.index(after: close)...]
                } else {
                    let end = rest.firstIndex(of: "{") ?? rest.endIndex
                    let literal = rest[..<end]
                    guard !literal.contains("}") else { throw RouteError(.invalidTemplate(template, "unmatched }")) }
                    parts.append(.literal(String(literal)))
                    rest = rest[end...]
                }
            }
            segments.append(.pattern(SegmentPattern(parts: parts)))
        }
        self.segments = segments
        self.parameterNames = names
    }
}
