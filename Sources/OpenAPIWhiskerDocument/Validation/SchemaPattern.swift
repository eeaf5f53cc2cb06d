/// A schema's `pattern`, compiled once with Swift's `Regex` (the standard library's, so request
/// validation maps neither Foundation nor ICU), and matched as JSON Schema says: anywhere in the
/// string unless the pattern anchors itself, over Unicode scalars as ECMA-262 regular expressions
/// are (not grapheme clusters, Swift's default: `.` is one code point).
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
    private let regex: Regex<AnyRegexOutput>

    /// Compiles `source` (found at `location`, for the error).
    init(_ source: String, at location: String) throws(DocumentError) {
        do {
            regex = try Regex(source).matchingSemantics(.unicodeScalar)
        } catch {
            throw DocumentError("\(location)/pattern: \(source) is not a regular expression Swift's Regex compiles (\(error))")
        }
        self.source = source
        _ = "".contains(regex)
    }

    /// Whether `text` has a match anywhere in it.
    func matches(_ text: String) -> Bool {
        text.contains(regex)
    }
}
