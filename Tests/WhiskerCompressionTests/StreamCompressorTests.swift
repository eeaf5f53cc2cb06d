import CZstd
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

    /// What libzstd holds for one open body after three events (`ZSTD_sizeof_CCtx`: its window,
    /// buffers and tables): an event stream's compressor about as small as gzip's, and a stream of
    /// unknown length far under the 1.7 MB level 3 takes with libzstd's tables (768 KiB) and a
    /// window of 128 KiB.
    @Test(arguments: [(nil, true, 48 << 10), (nil, false, 400 << 10), (Int64(400), false, 48 << 10)] as [(Int64?, Bool, Int)])
    func zstd_ACompressorsMemory_FollowsItsBody(length: Int64?, eventStream: Bool, budget: Int) throws {
        let compressor = try #require(try ContentCoding.zstd.compressor(for: length, settings: CompressionSettings(), eventStream: eventStream) as? ZstdCompressor)
        for event in ["id: 1\ndata: 🐱\n\n", "id: 2\ndata: 😹\n\n", "id: 3\ndata: 😻\n\n"] {
            _ = try compressor.compress(Array(event.utf8)[...])
        }
        #expect(compressor.memorySize <= budget, "\(compressor.memorySize) bytes")
    }

    @Test func zstd_AWindowBrowsersRefuse_IsNeverNamed() throws {
        // RFC 8878: a recipient need not decode a window over 8 MiB. The largest level with a body
        // of unknown length, then one of 1 GiB declared, name at most 2 MiB.
        var settings = CompressionSettings()
        settings.zstdLevel = 19
        for length in [nil, Int64(1) << 30] {
            let compressor = try ContentCoding.zstd.compressor(for: length, settings: settings)
            var frame = try compressor.compress(Array(repeating: 7, count: 1000)[...])
            frame += try compressor.finish()
            let window = try #require(Self.zstdWindow(of: frame))
            #expect(window <= 2 << 20, "\(window)")
            #expect(try ContentCoding.zstd.decode(frame) == Array(repeating: 7, count: 1000))
        }
    }

    /// The window a zstd frame's header names (RFC 8878 §3.1.1.1.2): its window descriptor, or
    /// for a single-segment frame its content size.
    private static func zstdWindow(of frame: [UInt8]) -> UInt64? {
        guard frame.count > 5, frame[0..<4] == [0x28, 0xB5, 0x2F, 0xFD] else { return nil }
        if frame[4] & 0x20 != 0 { return ZSTD_getFrameContentSize(frame, frame.count) }
        let base = UInt64(1) << (10 + UInt64(frame[5] >> 3))
        return base + base / 8 * UInt64(frame[5] & 7)
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
