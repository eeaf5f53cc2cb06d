import Testing
@testable import WhiskerCompression

/// The compressors, checked by decoding what they make with the libraries' own decoders.
@Suite struct StreamCompressorTests {
    private static let text = Array(String(repeating: "data: 😺 the quick brown fox jumps over the lazy cat\n\n", count: 200).utf8)

    @Test(arguments: ContentCoding.allCases)
    func aBodyCodedWhole_DecodesToItself_Smaller(coding: ContentCoding) throws {
        let coded = try coding.encode(Self.text[...], settings: CompressionSettings())
        #expect(try coding.decode(coded) == Self.text)
        #expect(coded.count < Self.text.count / 10)
    }

    @Test(arguments: ContentCoding.allCases, [(nil, false), (12, false), (nil, true)] as [(Int64?, Bool)])
    func everyChunk_DecodesAsSoonAsItIsCoded(coding: ContentCoding, body: (length: Int64?, eventStream: Bool)) throws {
        // Each chunk's output, fed to a decoder that has seen only what came before, gives the
        // chunk back at once: nothing waits in the compressor for more input. The same for the
        // small compressors of event streams.
        let compressor = try coding.compressor(for: body.length, settings: CompressionSettings(), eventStream: body.eventStream)
        let decoder = try coding.decoder()
        for event in ["id: 1\ndata: 🐱\n\n", "id: 2\ndata: 😹\n\n", "id: 3\ndata: 😻\n\n"] {
            let coded = try compressor.compress(Array(event.utf8)[...])
            #expect(!coded.isEmpty)
            #expect(String(decoding: try decoder.decode(coded), as: UTF8.self) == event)
        }
        #expect(!decoder.isFinished)
        #expect(try decoder.decode(try compressor.finish()).isEmpty)
        #expect(decoder.isFinished)
    }

    @Test(arguments: ContentCoding.allCases)
    func anEmptyBody_IsAValidEmptyStream(coding: ContentCoding) throws {
        #expect(try coding.decode(try coding.encode([], settings: CompressionSettings())) == [])
    }

    @Test(arguments: ContentCoding.allCases)
    func aLargeBody_InLargeChunks_RoundTrips(coding: ContentCoding) throws {
        // Output larger than one deflate step (incompressible bytes), over several calls.
        var generator = SystemRandomNumberGenerator()
        let body = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let compressor = try coding.compressor(for: nil, settings: CompressionSettings())
        var coded: [UInt8] = []
        for start in stride(from: 0, to: body.count, by: 100_000) {
            coded += try compressor.compress(body[start..<min(start + 100_000, body.count)])
        }
        coded += try compressor.finish()
        #expect(try coding.decode(coded) == body)
    }

    @Test func theWindow_FollowsAKnownLength() {
        #expect(windowBits(for: 1, in: 9...15) == 9)
        #expect(windowBits(for: 400, in: 9...15) == 9)
        #expect(windowBits(for: 512, in: 9...15) == 9)
        #expect(windowBits(for: 513, in: 9...15) == 10)
        #expect(windowBits(for: 32768, in: 9...15) == 15)
        #expect(windowBits(for: 1 << 30, in: 9...15) == 15)
        #expect(windowBits(for: nil, in: 10...22) == 22)
        #expect(windowBits(for: 0, in: 10...22) == 22)
    }
}
