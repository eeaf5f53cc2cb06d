import Testing
import WhiskerSockets

@Suite struct ByteSearchTests {
    @Test(arguments: [("GET", "GET", true), ("GET", "GE", false), ("GE", "GET", false), ("get", "GET", false), ("", "", true), ("", "x", false)])
    func spells_IsExactlyTheTextsBytes(bytes: String, text: StaticString, expected: Bool) {
        var bytes = bytes
        #expect(bytes.withUTF8 { $0.spells(text) } == expected)
    }

    /// Small (inline) and large (heap) strings, the byte first, last, twice, absent, after
    /// non-ASCII characters: the index is the view's own.
    @Test(arguments: ["/api/emoji?count=3", "/a?", "?", "/api/emoji", "", "/caf\u{e9}/\u{1F63A}?q=1&r=?", String(repeating: "/segment", count: 40) + "?x=1"])
    func utf8Index_IsTheViewsFirstIndex(target: String) {
        let found = target.utf8Index(of: UInt8(ascii: "?"))
        #expect(found == target.utf8.firstIndex(of: UInt8(ascii: "?")))
        if let found { #expect(target[found...].hasPrefix("?")) }
    }
}
