import Testing
@testable import WhiskerWebSocket
import WhiskerHTTP

@Suite("SHA-1 and base64, written without Foundation for the handshake")
struct SHA1AndBase64Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    // FIPS 180-2 appendix A (one block, two blocks) and the empty string; the million-byte one
    // crosses many blocks with a length whose padding needs a block of its own.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func sha1MatchesTheFIPSVectors(input: String, digest: String) {
        #expect(hex(SHA1.hash(Array(input.utf8))) == digest)
    }

    @Test func sha1OfAMillionAsMatchesFIPS() {
        #expect(hex(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    // Lengths 55, 56 and 64 put the padding at each edge of a block.
    @Test func sha1PadsAtTheBlockEdges() {
        #expect(hex(SHA1.hash([UInt8](repeating: 0x61, count: 55))) == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(hex(SHA1.hash([UInt8](repeating: 0x61, count: 56))) == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(hex(SHA1.hash([UInt8](repeating: 0x61, count: 64))) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    // RFC 4648 section 10.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func base64MatchesRFC4648(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test(arguments: ["Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm=v", "Zg==Zg==", "Zm9v!A==", "Zm9v Yg=="])
    func base64RefusesWhatIsNotCanonical(encoded: String) {
        #expect(Base64.decode(encoded) == nil)
    }

    // RFC 6455 section 1.3's example (the value is s3pPLMBiTxaQ9kYGzzhZRbK+xOo=, as Python's
    // hashlib and base64 also compute), and section 1.2's key with the answer browsers check.
    @Test func acceptValueMatchesRFC6455Examples() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketHandshake.acceptValue(for: "x3JJHMbDL1EzLkh9GBhXDw==") == "HSmrc0sMlYUkAGmm5OPpG2HaGWk=")
    }
}
