@testable import OpenAPIWhiskerDocument
import Testing

/// `SimplePattern`, the matcher of the patterns documents mostly write: each construct against
/// Swift's `Regex` (which matched every pattern before, and still matches the rest), the patterns
/// it leaves to `Regex`, and the pattern a backtracking engine cannot finish.
@Suite struct SimplePatternTests {
    /// What `Regex` says, as `SchemaPattern` used it for every pattern.
    func regexMatches(_ pattern: String, _ text: String) throws -> Bool {
        text.contains(try Regex(pattern).matchingSemantics(.unicodeScalar))
    }

    /// Both engines agree on `text`, and the pattern is one `SimplePattern` reads.
    func expectSameAsRegex(_ pattern: String, _ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let simple = try #require(SimplePattern(pattern), "\(pattern) is SimplePattern's", sourceLocation: sourceLocation)
        for text in texts {
            let expected = try regexMatches(pattern, text)
            #expect(simple.matches(text) == expected, "\(pattern) on \(text.debugDescription): Regex says \(expected)", sourceLocation: sourceLocation)
        }
    }

    static let texts = [
        "", "a", "A", "z", "cat", "Cat", "CAT", "012", "12", "1", "0", "9", "99999", "-1", "1.5", "a.b", "a-b", "a_b",
        " ", "   ", "  cat ", "\t", "\n", "a\n", "\na", "\r\n", "abc123", "ABC-1234", "AB-1234", "ABCD-1234",
        "aaa", "aaab", "b", "ab", "ba", "😺", "Käse", "e\u{301}", "٣", "²", "½", "\u{A0}", "\u{85}", "\u{2028}",
        "x{2}", "[a]", "a]", "^", "$", "a$", "a^b", "/", "/path/to", "foo@example.com", "+33 1 23 45 67 89",
    ]

    @Test(arguments: [
        // anchors, literals, the document's two patterns
        "^[1-9][0-9]*$", #"\S"#, "", "^", "$", "^$", "cat", "^cat", "cat$", "^cat$", "a",
        // quantifiers
        "a*", "^a*$", "^a+$", "^a?$", "^a?b$", "^ab*c?$", "^a{2}$", "^a{2,}$", "^a{1,3}$", "^a{0,1}b$", "^a{0}$",
        "^a*?$", "^a+?b$", "^a{2,3}?$",
        // `.` and the class escapes
        "^.$", "^...$", "a.b", "^.*$", #"^\d+$"#, #"\D"#, #"^\s*$"#, #"\s"#, #"^\w+$"#, #"\W"#, #"^\D*$"#,
        // escaped punctuation and control escapes
        #"^a\.b$"#, #"\$"#, #"\^"#, #"\-"#, #"\/"#, #"^\[a\]$"#, #"\{"#, #"\t"#, #"\n"#, #"\r\n"#,
        // bracket classes
        "^[a-z]+$", "[A-Z]", "^[^a-z]+$", "[-a]", "[a-]", "^[a-zA-Z0-9_-]+$", #"^[\d.]+$"#, #"[\s]"#,
        #"^[^\S]+$"#, #"[\D]"#, #"^[\w-]+$"#, #"[\]]"#, #"[\\]"#, #"[.]"#, "[$^]", "^[+][0-9 ]+$",
        // what documents write
        #"^[A-Z]{3}-\d{4}$"#, #"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"#, #"^/[a-z/]*$"#, #"^\+?[0-9 ]{6,20}$"#,
    ])
    func eachConstruct_MatchesAsRegexDoes(pattern: String) throws {
        try expectSameAsRegex(pattern, Self.texts)
    }

    /// The class escapes and `.` over the code points their definitions turn on: all of Latin-1,
    /// the Unicode spaces and line breaks, digits and letters of other scripts, combining marks,
    /// and a spread over the whole range.
    @Test(arguments: [#"^\d$"#, #"^\D$"#, #"^\s$"#, #"^\S$"#, #"^\w$"#, #"^\W$"#, "^.$", #"^[\d\s]$"#, #"^[^\w]$"#])
    func classes_MatchTheScalarsRegexMatches(pattern: String) throws {
        var values = Array(UInt32(0)..<0x300)
        values += [0x300, 0x301, 0x660, 0x669, 0x6F0, 0x966, 0xE50, 0x1680, 0x180E, 0x2028, 0x2029, 0x202F, 0x205F,
                   0x2070, 0x2074, 0x2153, 0x2160, 0x2460, 0x3000, 0x3007, 0x4E00, 0xFEFF, 0xFF10, 0xFF21, 0x1D7CE, 0x1F63A]
        values += Array(0x2000...0x200D)
        values += stride(from: 0x300, to: 0x110000, by: 997).map { UInt32($0) }
        let simple = try #require(SimplePattern(pattern))
        let regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
        var differing: [String] = []
        for value in values {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(String.UnicodeScalarView([scalar]))
            if simple.matches(text) != text.contains(regex) { differing.append("U+" + String(value, radix: 16)) }
        }
        #expect(differing == [], "\(pattern)")
    }

    /// What `SimplePattern` does not read goes to `Regex` (which matches it, or refuses it at load).
    @Test(arguments: [
        "(a|b)", "a|b", "^(ab)+$", #"\p{L}"#, #"\bcat"#, "(?i)cat", "(?<=a)b", "a++", "a*+", "é", "[[:alpha:]]",
        "[a-", "a{,2}", "a{2,1}", "{", "}", "]", "*a", "a**", "[]", "[^]", #"[\d-z]"#, "[a&&b]", "[a--b]", "a^b",
        "a$b", #"\1"#, #"\u0041"#, #"\x41"#, #"\v"#, #"\0"#, "a{300}", "a{99999}", "[z-a]",
    ])
    func otherPatterns_AreLeftToRegex(pattern: String) {
        #expect(SimplePattern(pattern) == nil, "\(pattern)")
    }

    /// `SchemaPattern` picks the matcher, and a pattern left to `Regex` still works (or is refused).
    @Test func schemaPattern_UsesSimplePatternWhereItCan() throws {
        #expect(try SchemaPattern("^[1-9][0-9]*$", at: "#").isSimple)
        #expect(try SchemaPattern(#"\S"#, at: "#").isSimple)
        let group = try SchemaPattern("^(ab)+$", at: "#")
        #expect(!group.isSimple)
        #expect(group.matches("abab"))
        #expect(!group.matches("aba"))
        let long = try SchemaPattern("^a{300}$", at: "#")
        #expect(!long.isSimple, "more than maxSteps steps")
        #expect(long.matches(String(repeating: "a", count: 300)))
        #expect(!long.matches(String(repeating: "a", count: 299)))
        #expect(throws: DocumentError.self) { try SchemaPattern("[a-", at: "#") }
        // The demo's Idempotency-Key: printable ASCII. `[ -~]` goes to `Regex` (a `~` in a class
        // may be a set operation in some dialect), and `Regex` costs cat-service 1.2 MiB resident
        // (check-memory.sh's idle limit); the escaped `\~` is SimplePattern's.
        let printable = try SchemaPattern(#"^[ -\~]+$"#, at: "#")
        #expect(printable.isSimple && printable.matches("8e03978e-40d5 ~") && !printable.matches("caf\u{e9}") && !printable.matches(""))
        #expect(try !SchemaPattern("^[ -~]+$", at: "#").isSimple)
    }

    /// The attack: a pattern whose stars a backtracking engine (Swift's `Regex` among them) tries in
    /// every split of the input, on a string that almost matches. `Regex` needs minutes here (the
    /// number of splits grows as n⁸); one pass of `SimplePattern` over 20,000 scalars × 17 steps
    /// needs about a millisecond, so a second is a bound no machine misses unless it backtracks.
    @Test func backtrackingPattern_IsMatchedInOnePass() throws {
        let pattern = try SchemaPattern("^a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b$", at: "#")
        #expect(pattern.isSimple)
        let almost = String(repeating: "a", count: 20_000) + "c"
        let elapsed = ContinuousClock().measure { #expect(!pattern.matches(almost)) }
        #expect(elapsed < .seconds(1), "\(elapsed)")
    }

    /// Legitimate traffic of the same shape: long strings that match, also unanchored, as fast.
    @Test func longMatchingStrings_AreMatchedInOnePass() throws {
        let stars = try SchemaPattern("^a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b$", at: "#")
        let nonBlank = try SchemaPattern(#"\S"#, at: "#")
        let label = try SchemaPattern("^[a-z0-9-]{1,63}$", at: "#")
        let elapsed = ContinuousClock().measure {
            #expect(stars.matches(String(repeating: "a", count: 20_000) + "b"))
            #expect(nonBlank.matches(String(repeating: " ", count: 20_000) + "x"))
            #expect(label.matches(String(repeating: "a-1", count: 21)))
            #expect(!label.matches(String(repeating: "a-1", count: 22)), "64 characters")
        }
        #expect(elapsed < .seconds(1), "\(elapsed)")
    }
}
