import Testing
import WhiskerHTTP

/// logfmt quoting of what a client sent (issue 38, log forging).
@Suite struct LogValueTests {
    @Test func bareWords_StayAsTheyAre() {
        for word in ["200", "127.0.0.1:4711", "getEmoji", "from-curl", "/api/emoji", "😺", "é"] {
            #expect(LogValue.quoted(word) == word)
        }
    }

    @Test func aValueThatCouldAddAField_IsQuotedAndEscaped() {
        #expect(LogValue.quoted("") == #""""#)
        #expect(LogValue.quoted("x peer=1.2.3.4 status=200") == #""x peer=1.2.3.4 status=200""#)
        #expect(LogValue.quoted("a=b") == #""a=b""#)
        #expect(LogValue.quoted(#"unsupported expectation "x" peer=1"#) == #""unsupported expectation \"x\" peer=1""#)
        #expect(LogValue.quoted(#"back\slash"#) == #""back\\slash""#)
        #expect(LogValue.quoted("line\nbreak\r\tand\u{1}\u{7F}") == #""line\nbreak\r\tand\x01\x7f""#)
        #expect(LogValue.quoted("nbsp\u{A0}and\u{2028}") == #""nbsp\u{a0}and\u{2028}""#)
        #expect(LogValue.quoted("c1\u{85}") == #""c1\x85""#)
    }

    @Test func targets_QuotedOnlyWhenTheyCouldBreakTheLine() {
        #expect(LogValue.target("/api/emoji?count=3") == "/api/emoji?count=3")
        #expect(LogValue.target("*") == "*")
        #expect(LogValue.target("/x peer=1.2.3.4") == #""/x peer=1.2.3.4""#)
        #expect(LogValue.target("peer=1.2.3.4") == #""peer=1.2.3.4""#, "an authority-form target could read as a field")
        #expect(LogValue.target(#"/a"b"#) == #""/a\"b""#)
    }
}
