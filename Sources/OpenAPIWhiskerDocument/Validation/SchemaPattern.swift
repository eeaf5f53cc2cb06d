/// A schema's `pattern`, matched as JSON Schema says: anywhere in the string unless the pattern
/// anchors itself, over Unicode scalars as ECMA-262 regular expressions are (not grapheme clusters,
/// Swift's default: `.` is one code point).
///
/// The patterns documents mostly write (literals, `.`, bracket classes, `\d` `\s` `\w` and their
/// negations, quantifiers, `^` and `$`) are matched by ``SimplePattern``, in one pass over the text
/// that cannot backtrack, and without the 1.7 MiB of Swift's regex engine a server would otherwise
/// keep resident. Any other pattern is compiled once with Swift's `Regex` (the standard library's,
/// so request validation maps neither Foundation nor ICU) with Unicode-scalar semantics, which
/// backtracks: such a pattern (a group under a quantifier, `(a+)+$`) is as costly as its author
/// made it, on strings as long as the schema's `maxLength` or the body limit lets through.
///
/// A pattern that `Regex` does not compile (lookbehind, `(?<=a)b`, is the one construct of the
/// ECMA-262 dialect it lacks today) is a document error at load that names the pattern and where it
/// is; the document then cannot be enforced until the pattern is rewritten (a lookbehind can
/// usually become a group: `(?<=a)b` → `ab`), or the schema's pattern left out.
struct SchemaPattern: @unchecked Sendable {
    // @unchecked: `Regex` is an immutable value whose only state is its program, which the
    // standard library compiles lazily on first use and publishes with an atomic
    // compare-and-exchange (`Regex.Program`), so concurrent matches are safe; `init` matches once so
    // that even that first compilation happens before the value is shared. `Regex` is not marked
    // Sendable because its `Output` type parameter may not be, and ours is `AnyRegexOutput` unused.
    /// The pattern as the document writes it, for messages.
    let source: String
    private let matcher: Matcher

    private enum Matcher {
        case simple(SimplePattern)
        case regex(Regex<AnyRegexOutput>)
    }

    /// Compiles `source` (found at `location`, for the error).
    init(_ source: String, at location: String) throws(DocumentError) {
        self.source = source
        if let simple = SimplePattern(source) {
            matcher = .simple(simple)
            return
        }
        let regex: Regex<AnyRegexOutput>
        do {
            regex = try Regex(source).matchingSemantics(.unicodeScalar)
        } catch {
            throw DocumentError("\(location)/pattern: \(source) is not a regular expression Swift's Regex compiles (\(error))")
        }
        _ = "".contains(regex)
        matcher = .regex(regex)
    }

    /// Whether ``SimplePattern`` matches it (not Swift's `Regex`); for tests.
    var isSimple: Bool {
        if case .simple = matcher { return true }
        return false
    }

    /// Whether `text` has a match anywhere in it.
    func matches(_ text: String) -> Bool {
        switch matcher {
        case .simple(let simple): return simple.matches(text)
        case .regex(let regex): return text.contains(regex)
        }
    }
}
