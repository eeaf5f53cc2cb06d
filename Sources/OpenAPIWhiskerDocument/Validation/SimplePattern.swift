/// The patterns OpenAPI documents mostly write — a sequence of literals, `.`, bracket classes and
/// the class escapes, each with a quantifier, between optional `^` and `$` (`^[1-9][0-9]*$`, `\S`,
/// `^[A-Z]{3}-\d{4}$`) — matched without Swift's `Regex`: parsing a pattern and running it with
/// `Regex` touches 1.7 MiB of the standard library's regex engine (`_StringProcessing`,
/// `_RegexParser`) in every server whose document has one, for work this type does in a page.
///
/// Anything else (non-ASCII characters, groups, alternation, backreferences, lookaround, `\p{…}`, `\b`, flags, a
/// `{` that is not a quantifier) is not parsed here: `init` returns `nil` and ``SchemaPattern``
/// compiles the pattern with `Regex`, so what a pattern means never depends on which engine runs it.
/// Each construct matches exactly what `Regex` with Unicode-scalar semantics matches (the tests
/// compare the two over the code points each class depends on).
///
/// Matching cannot backtrack: the pattern is a chain of at most ``maxSteps`` steps, and the matcher
/// walks the text once, one Unicode scalar at a time, keeping the set of steps that can be reached
/// (a Thompson simulation). A match costs at most steps × scalars checks, whatever the pattern and
/// text, so a pattern such as `^a*a*a*a*a*a*a*a*b$` against 10,000 `a`s, which a backtracking
/// engine explores in polynomial time of degree eight, is answered in one pass.
struct SimplePattern: Sendable {
    /// A set of Unicode scalars: a bracket class, a class escape, `.`, or one literal scalar.
    struct ScalarSet: Sendable, Equatable {
        enum Item: Sendable, Equatable {
            /// The scalars from `lower` through `upper`, by value.
            case range(UInt32, UInt32)
            /// `\d` as `Regex` reads it: a scalar with a numeric type (`٣`, `½` and `²` as well as `3`).
            case digit
            /// `\s`: a scalar with the Unicode White_Space property.
            case space
            /// `\w` as `Regex` reads it: an alphabetic scalar (any script), an ASCII digit or `_`.
            case word
            /// `.`: anything but a line break (`\n`, `\u{B}`, `\u{C}`, `\r`, `\u{85}`, `\u{2028}`, `\u{2029}`).
            case notLineBreak
            case not(Builtin)
        }
        /// The class escapes that can be negated inside a bracket (`[^\S]`, `[\D_]`).
        enum Builtin: Sendable, Equatable {
            case digit, space, word
        }
        var items: [Item]
        var negated = false
        /// Which ASCII scalars the set holds, one bit each (set by `Parser`), so that the common
        /// case costs a shift and a test.
        var ascii: (low: UInt64, high: UInt64) = (0, 0)

        static func == (lhs: ScalarSet, rhs: ScalarSet) -> Bool {
            lhs.items == rhs.items && lhs.negated == rhs.negated
        }

        /// `items` and `negated` as the ASCII bitmap.
        mutating func fillASCII() {
            ascii = (0, 0)
            for value in UInt32(0)..<128 where containsSlowly(Unicode.Scalar(UInt8(value))) {
                if value < 64 { ascii.low |= 1 << UInt64(value) } else { ascii.high |= 1 << UInt64(value - 64) }
            }
        }

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            if value < 64 { return ascii.low & (1 << UInt64(value)) != 0 }
            if value < 128 { return ascii.high & (1 << UInt64(value - 64)) != 0 }
            return containsSlowly(scalar)
        }

        func containsSlowly(_ scalar: Unicode.Scalar) -> Bool {
            var found = false
            for item in items where Self.item(item, contains: scalar) {
                found = true
                break
            }
            return found != negated
        }

        static func item(_ item: Item, contains scalar: Unicode.Scalar) -> Bool {
            switch item {
            case .range(let lower, let upper): return lower <= scalar.value && scalar.value <= upper
            case .digit: return builtin(.digit, contains: scalar)
            case .space: return builtin(.space, contains: scalar)
            case .word: return builtin(.word, contains: scalar)
            case .notLineBreak:
                switch scalar.value {
                case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return false
                default: return true
                }
            case .not(let builtin): return !Self.builtin(builtin, contains: scalar)
            }
        }

        static func builtin(_ builtin: Builtin, contains scalar: Unicode.Scalar) -> Bool {
            switch builtin {
            case .digit:
                if scalar.isASCII { return (0x30...0x39).contains(scalar.value) }
                return scalar.properties.numericType != nil
            case .space:
                if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
                return scalar.properties.isWhitespace
            case .word:
                if scalar.isASCII {
                    return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
                }
                return scalar.properties.isAlphabetic
            }
        }
    }

    /// One step of the chain: a set of scalars matched once, at most once, or any number of times.
    struct Step: Sendable, Equatable {
        enum Count: Sendable, Equatable { case one, optional, any }
        let set: ScalarSet
        let count: Count
    }

    /// The longest chain a pattern may expand to (`x{3,5}` is five steps); a longer one goes to
    /// `Regex`, so that neither memory nor a match's cost grows with a quantifier's bounds.
    static let maxSteps = 256

    let steps: [Step]
    /// `^`: the match starts at the text's start; otherwise anywhere.
    let anchoredAtStart: Bool
    /// `$`: the match ends at the text's end (not before a final line break: `Regex` does not either).
    let anchoredAtEnd: Bool

    /// Parses `source`, or returns `nil` if it uses anything outside this type's subset.
    init?(_ source: String) {
        var parser = Parser(scalars: Array(source.unicodeScalars))
        guard let parsed = parser.parse() else { return nil }
        (steps, anchoredAtStart, anchoredAtEnd) = parsed
    }

    /// Whether `text` has a match anywhere in it (at its start with `^`, at its end with `$`).
    func matches(_ text: String) -> Bool {
        let count = steps.count
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: 2 * (count + 1)) { buffer in
            var current = UnsafeMutableBufferPointer(rebasing: buffer[0...count])
            var next = UnsafeMutableBufferPointer(rebasing: buffer[(count + 1)...])
            current.initialize(repeating: false)
            next.initialize(repeating: false)
            reach(0, in: current)
            if current[count], !anchoredAtEnd { return true }
            for scalar in text.unicodeScalars {
                var any = false
                for index in 0..<count where current[index] {
                    let step = steps[index]
                    guard step.set.contains(scalar) else { continue }
                    reach(step.count == .any ? index : index + 1, in: next)
                    any = true
                }
                if !anchoredAtStart {
                    reach(0, in: next)
                } else if !any {
                    return false
                }
                swap(&current, &next)
                next.update(repeating: false)
                if current[count], !anchoredAtEnd { return true }
            }
            return current[count]
        }
    }

    /// Marks `index` reachable, and the steps after it that optional and starred steps let a match skip to.
    private func reach(_ index: Int, in states: UnsafeMutableBufferPointer<Bool>) {
        var index = index
        while !states[index] {
            states[index] = true
            guard index < steps.count, steps[index].count != .one else { return }
            index += 1
        }
    }

    /// A recursive-descent reader of the subset; `nil` as soon as anything else shows.
    private struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        var atEnd: Bool { position == scalars.count }
        var peek: Unicode.Scalar? { atEnd ? nil : scalars[position] }

        mutating func parse() -> (steps: [Step], start: Bool, end: Bool)? {
            // A non-ASCII literal may compare by canonical equivalence in `Regex`: it reads them.
            guard scalars.allSatisfy(\.isASCII) else { return nil }
            var steps: [Step] = []
            let start = peek == "^"
            if start { position += 1 }
            var end = false
            while let scalar = peek {
                if scalar == "$" {
                    guard position == scalars.count - 1 else { return nil }
                    end = true
                    position += 1
                    break
                }
                guard var set = atom() else { return nil }
                set.fillASCII()
                guard let (minimum, maximum) = quantifier() else { return nil }
                guard maximum.map({ $0 >= minimum }) ?? true,
                      minimum + (maximum.map { $0 - minimum } ?? 1) + steps.count <= SimplePattern.maxSteps
                else { return nil }
                for _ in 0..<minimum { steps.append(Step(set: set, count: .one)) }
                if let maximum {
                    for _ in minimum..<maximum { steps.append(Step(set: set, count: .optional)) }
                } else {
                    steps.append(Step(set: set, count: .any))
                }
            }
            return (steps, start, end)
        }

        /// One literal, `.`, escape or bracket class.
        mutating func atom() -> ScalarSet? {
            guard let scalar = peek else { return nil }
            position += 1
            switch scalar {
            case ".": return ScalarSet(items: [.notLineBreak])
            case "[": return bracket()
            case "\\":
                guard let escaped = escape(inBracket: false) else { return nil }
                return ScalarSet(items: [escaped])
            case "^", "$", "*", "+", "?", "{", "}", "(", ")", "|", "]": return nil
            default: return ScalarSet(items: [.range(scalar.value, scalar.value)])
            }
        }

        /// After a `\`: a class escape, a control escape or an escaped ASCII punctuation mark.
        mutating func escape(inBracket: Bool) -> ScalarSet.Item? {
            guard let scalar = peek else { return nil }
            position += 1
            switch scalar {
            case "d": return .digit
            case "D": return .not(.digit)
            case "s": return .space
            case "S": return .not(.space)
            case "w": return .word
            case "W": return .not(.word)
            case "t": return .range(0x09, 0x09)
            case "n": return .range(0x0A, 0x0A)
            case "r": return .range(0x0D, 0x0D)
            case "f": return .range(0x0C, 0x0C)
            default:
                // An escaped ASCII punctuation mark is itself; letters and digits (\b, \p, \1,
                // \u, \x, \v, \0...) mean something else in one dialect or another: `Regex` reads them.
                guard scalar.properties.isPatternSyntax else { return nil }
                return .range(scalar.value, scalar.value)
            }
        }

        /// After a `[`: literals, ranges and class escapes up to the closing `]`. A nested `[`, a
        /// set operation (`&&`, `--`, `~~`) or an empty class goes to `Regex`.
        mutating func bracket() -> ScalarSet? {
            var set = ScalarSet(items: [])
            if peek == "^" {
                set.negated = true
                position += 1
            }
            guard peek != "]" else { return nil }
            while let scalar = peek {
                position += 1
                if scalar == "]" { return set }
                if scalar == "[" || scalar == "&" || scalar == "~" { return nil }
                if scalar == "-", peek == "-" { return nil }
                var lower: UInt32
                if scalar == "\\" {
                    guard let item = escape(inBracket: true) else { return nil }
                    guard case .range(let value, _) = item else {
                        set.items.append(item)
                        guard peek != "-" || scalars.count > position + 1 && scalars[position + 1] == "]" else { return nil }
                        continue
                    }
                    lower = value
                } else {
                    lower = scalar.value
                }
                // A range `a-z`, unless the `-` is the last thing before `]`.
                if peek == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                    position += 1
                    guard let upperScalar = peek else { return nil }
                    position += 1
                    var upper = upperScalar.value
                    if upperScalar == "\\" {
                        guard case .range(let value, _)? = escape(inBracket: true) else { return nil }
                        upper = value
                    } else if upperScalar == "[" || upperScalar == "&" || upperScalar == "~" {
                        return nil
                    }
                    guard lower <= upper else { return nil }
                    set.items.append(.range(lower, upper))
                } else {
                    set.items.append(.range(lower, lower))
                }
            }
            return nil
        }

        /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (a lazy `?` after one changes nothing for whether a
        /// match exists; a possessive `+` does, and goes to `Regex`), or none: (1, 1).
        mutating func quantifier() -> (Int, Int?)? {
            let bounds: (Int, Int?)
            switch peek {
            case "*": bounds = (0, nil)
            case "+": bounds = (1, nil)
            case "?": bounds = (0, 1)
            case "{":
                position += 1
                guard let minimum = number() else { return nil }
                var maximum: Int? = minimum
                if peek == "," {
                    position += 1
                    maximum = peek == "}" ? nil : number()
                    if maximum == nil, peek != "}" { return nil }
                }
                guard peek == "}" else { return nil }
                bounds = (minimum, maximum)
            default: return (1, 1)
            }
            position += 1
            if peek == "?" {
                position += 1
            }
            switch peek {
            case "*", "+", "?", "{": return nil
            default: return bounds
            }
        }

        /// Decimal digits, at most four (a larger bound exceeds `maxSteps` anyway).
        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while let scalar = peek, ("0"..."9").contains(scalar) {
                guard digits < 4 else { return nil }
                value = value * 10 + Int(scalar.value - 0x30)
                digits += 1
                position += 1
            }
            return digits == 0 ? nil : value
        }
    }
}
