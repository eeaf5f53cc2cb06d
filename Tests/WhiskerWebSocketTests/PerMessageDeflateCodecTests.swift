#if Compression
import CZlib
import Testing
import WhiskerSockets
@testable import WhiskerWebSocket

/// A client's side of permessage-deflate, on zlib directly (not the module's codec): raw DEFLATE
/// with a sync flush and its tail removed, keeping its window across messages unless told not to.
final class ClientDeflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)

    init(windowBits: Int = 15, level: Int32 = 9) {
        stream.initialize(to: z_stream())
        precondition(whisker_deflateInit2(stream, level, Int32(-windowBits), 8) == Z_OK)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// `message` deflated and sync-flushed, the trailing 00 00 ff ff removed (or kept, for tests that want it).
    func compress(_ message: [UInt8], stripTail: Bool = true, final: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        var input = message
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = UInt32(source.count)
            repeat {
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    _ = deflate(stream, final ? Z_FINISH : Z_SYNC_FLUSH)
                }
                output += chunk[0..<(chunk.count - Int(stream.pointee.avail_out))]
            } while stream.pointee.avail_out == 0
        }
        if final {
            // A new DEFLATE stream for the next message, whose window still holds this one
            // (context takeover across a final block): the receiver must keep its window too.
            deflateReset(stream)
            var window = Array(message.suffix(32 * 1024))
            _ = window.withUnsafeMutableBufferPointer { deflateSetDictionary(stream, $0.baseAddress, UInt32($0.count)) }
        }
        if stripTail, !final, output.suffix(4) == [0, 0, 0xFF, 0xFF] { output.removeLast(4) }
        return output
    }
}

/// What a client's inflater makes of the server's compressed payload (with the tail put back).
func clientInflate(_ payloads: [[UInt8]], windowBits: Int = 15) -> [[UInt8]] {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { inflateEnd(stream); stream.deallocate() }
    precondition(whisker_inflateInit2(stream, Int32(-windowBits)) == Z_OK)
    return payloads.map { payload in
        var input = payload + [0, 0, 0xFF, 0xFF]
        var output: [UInt8] = []
        input.withUnsafeMutableBufferPointer { source in
            stream.pointee.next_in = source.baseAddress
            stream.pointee.avail_in = UInt32(source.count)
            repeat {
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                let status = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    return inflate(stream, Z_SYNC_FLUSH)
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    Issue.record("the server's payload does not inflate: zlib status \(status)")
                    return
                }
                output += chunk[0..<(chunk.count - Int(stream.pointee.avail_out))]
            } while stream.pointee.avail_out == 0
        }
        return output
    }
}

/// 100 MB of zeros deflated (about 100 KB): the bomb.
let zerosBomb: [UInt8] = {
    let deflater = ClientDeflater()
    var bomb: [UInt8] = []
    let chunk = [UInt8](repeating: 0, count: 1 << 20)
    for _ in 0..<100 { bomb += deflater.compress(chunk, stripTail: false) }
    return bomb + deflater.compress([])
}()

/// The codec inside the frame reader (RSV1, inflating as the payload arrives, the bomb limit)
/// and the server's compressor, against a client on zlib of its own.
@Suite("permessage-deflate codec (RFC 7692 6, 7)")
struct PerMessageDeflateCodecTests {
    private static let agreement = PerMessageDeflate.negotiate(["permessage-deflate"], settings: .default)!

    private func reader(_ limits: WebSocketLimits = WebSocketLimits(), agreement: PerMessageDeflate = agreement) -> WebSocketFrameReader {
        WebSocketFrameReader(limits: limits, inflater: agreement.makeCodec().0)
    }

    /// Every event `bytes` make in a reader with permessage-deflate, fed whole or one byte at a time.
    private func inflatedEvents(_ bytes: [UInt8], limits: WebSocketLimits = WebSocketLimits(), byteByByte: Bool = false) -> [WebSocketFrameReader.Event] {
        var reader = reader(limits)
        var buffer = ReadBuffer()
        var result: [WebSocketFrameReader.Event] = []
        for piece in byteByByte ? bytes.map({ [$0] }) : [bytes] {
            buffer.append(contentsOf: piece)
            while let event = reader.next(from: &buffer) { result.append(event) }
        }
        return result
    }

    private func failure(_ events: [WebSocketFrameReader.Event]) -> WebSocketCloseCode? {
        if case .failure(let code, _) = events.last { return code }
        return nil
    }

    @Test func aCompressedMessage_IsInflated_WholeOrByteByByte_AndBesideAnUncompressedOne() {
        let client = ClientDeflater()
        let text = String(repeating: "miaow 🐱 ", count: 50)
        let bytes = ClientFrame.make(0x1, client.compress(Array(text.utf8)), rsv: 4) + ClientFrame.text("plain")
            + ClientFrame.make(0x2, client.compress([1, 2, 3]), rsv: 4)
        let expected: [WebSocketFrameReader.Event] = [.message(.text(text)), .message(.text("plain")), .message(.binary([1, 2, 3]))]
        #expect(inflatedEvents(bytes) == expected)
        #expect(inflatedEvents(bytes, byteByByte: true) == expected)
    }

    @Test func aFragmentedCompressedMessage_HasRSV1OnItsFirstFrameOnly_AndControlFramesMayComeBetween() {
        let payload = ClientDeflater().compress(Array(String(repeating: "fragment ", count: 100).utf8))
        let third = payload.count / 3
        let bytes = ClientFrame.make(0x1, Array(payload[..<third]), fin: false, rsv: 4) + ClientFrame.ping([9])
            + ClientFrame.make(0x0, Array(payload[third..<(2 * third)]), fin: false) + ClientFrame.make(0x0, Array(payload[(2 * third)...]))
        #expect(inflatedEvents(bytes) == [.ping([9]), .message(.text(String(repeating: "fragment ", count: 100)))])
    }

    @Test func theClientsWindow_CarriesOverBetweenMessages_UnlessNegotiatedAway() {
        let client = ClientDeflater()
        let message = Array(String(repeating: "the same long message again and again ", count: 20).utf8)
        let first = client.compress(message)
        let second = client.compress(message)
        #expect(second.count < first.count / 4, "the second refers back to the first")
        #expect(inflatedEvents(ClientFrame.make(0x1, first, rsv: 4) + ClientFrame.make(0x1, second, rsv: 4))
            == [.message(.text(String(decoding: message, as: UTF8.self))), .message(.text(String(decoding: message, as: UTF8.self)))])
        // A client that ends its DEFLATE stream (BFINAL) and goes on: the window is kept (RFC 7692 7.2.3.3).
        let finalClient = ClientDeflater()
        let ended = finalClient.compress(message, final: true)
        let afterwards = finalClient.compress(message)
        #expect(afterwards.count < ended.count / 4, "the message after the final block refers back to the one before")
        #expect(inflatedEvents(ClientFrame.make(0x1, ended, rsv: 4) + ClientFrame.make(0x1, afterwards, rsv: 4))
            == [.message(.text(String(decoding: message, as: UTF8.self))), .message(.text(String(decoding: message, as: UTF8.self)))])
    }

    @Test func rsv1OnAControlOrContinuationFrame_OrRSV2_Fails1002() {
        let compressed = ClientDeflater().compress(Array("hi".utf8))
        #expect(failure(inflatedEvents(ClientFrame.make(0x9, [], rsv: 4))) == .protocolError)
        #expect(failure(inflatedEvents(ClientFrame.make(0x8, [], rsv: 4))) == .protocolError)
        #expect(failure(inflatedEvents(ClientFrame.make(0x1, compressed, fin: false, rsv: 4) + ClientFrame.make(0x0, [], rsv: 4))) == .protocolError)
        #expect(failure(inflatedEvents(ClientFrame.make(0x1, compressed, rsv: 2))) == .protocolError)
        #expect(failure(inflatedEvents(ClientFrame.make(0x1, compressed, rsv: 6))) == .protocolError)
        // Without the extension RSV1 is a 1002 too; with it the same frame is a message.
        #expect(failure(events(ClientFrame.make(0x1, compressed, rsv: 4))) == .protocolError)
        #expect(inflatedEvents(ClientFrame.make(0x1, compressed, rsv: 4)) == [.message(.text("hi"))])
    }

    @Test func bytesThatAreNotDeflate_OrInflateToBadUTF8_Fail1007() {
        #expect(failure(inflatedEvents(ClientFrame.make(0x1, [0xFF, 0xFF, 0xFF, 0xFF], rsv: 4))) == .invalidFramePayloadData)
        let client = ClientDeflater()
        #expect(failure(inflatedEvents(ClientFrame.make(0x1, client.compress([0x63, 0x61, 0x66, 0xC3, 0x28]), rsv: 4))) == .invalidFramePayloadData)
        // Binary takes any bytes.
        #expect(inflatedEvents(ClientFrame.make(0x2, ClientDeflater().compress([0xC3, 0x28]), rsv: 4)) == [.message(.binary([0xC3, 0x28]))])
    }

    /// The attack: 100 KB on the wire (under the 1 MiB frame limit) that inflate to 100 MB. The
    /// reader fails with 1009 while inflating, having made at most the limit, and having read
    /// only the first few kilobytes of the frame.
    @Test func theBomb_Fails1009_BeforeTheMemoryIsSpent() {
        #expect(zerosBomb.count < 120_000)
        var reader = reader()
        var buffer = ReadBuffer()
        var event: WebSocketFrameReader.Event?
        var largest = 0
        var offset = 0
        let frame = ClientFrame.make(0x2, zerosBomb, rsv: 4)
        // As reads of 16 KiB arrive.
        while event == nil, offset < frame.count {
            buffer.append(contentsOf: frame[offset..<min(offset + 16384, frame.count)])
            offset += 16384
            event = reader.next(from: &buffer)
            largest = max(largest, reader.bufferedMessageBytes)
        }
        guard case .failure(let code, let reason) = event else { Issue.record("no failure: \(String(describing: event))"); return }
        #expect(code == .messageTooBig, "\(reason)")
        #expect(reason == "a compressed message that inflates past the limit of 1048576 bytes")
        #expect(largest <= 1 << 20, "the message held at most the limit")
        #expect(reader.bufferedMessageBytes == 0, "and is let go at the failure")
        #expect(offset <= 3 * 16384, "it stopped within the first reads (\(offset) of \(frame.count) bytes)")
    }

    /// The legitimate twin: a large, very compressible message under the limit, and one exactly at it.
    @Test func aLargeCompressibleMessage_UnderTheLimit_IsDelivered_AndOneByteOverIsNot() {
        let atLimit = [UInt8](repeating: 0x5A, count: 1 << 20)
        let compressed = ClientDeflater().compress(atLimit)
        #expect(compressed.count < 4096)
        #expect(inflatedEvents(ClientFrame.make(0x2, compressed, rsv: 4)) == [.message(.binary(atLimit))])
        let over = ClientDeflater().compress(atLimit + [0x5A])
        #expect(failure(inflatedEvents(ClientFrame.make(0x2, over, rsv: 4))) == .messageTooBig)
    }

    /// A frame's inflated bytes count against maxFrameSize; a message's against maxMessageSize.
    @Test func theFrameAndMessageLimits_CountInflatedBytes() {
        let limits = WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 3000)
        let client = ClientDeflater()
        let oneFrame = client.compress([UInt8](repeating: 1, count: 1001))
        #expect(failure(inflatedEvents(ClientFrame.make(0x2, oneFrame, rsv: 4), limits: limits)) == .messageTooBig)
        // The same bytes in two compressed fragments of at most 1000 inflated bytes each: delivered.
        let fragmenter = ClientDeflater()
        let first = fragmenter.compress([UInt8](repeating: 1, count: 600), stripTail: false)
        let second = fragmenter.compress([UInt8](repeating: 1, count: 401))
        #expect(inflatedEvents(ClientFrame.make(0x2, first, fin: false, rsv: 4) + ClientFrame.make(0x0, second), limits: limits)
            == [.message(.binary([UInt8](repeating: 1, count: 1001)))])
        // Four fragments of 900 inflated bytes: the message crosses 3000 in the fourth.
        let many = ClientDeflater()
        var bytes = ClientFrame.make(0x2, many.compress([UInt8](repeating: 2, count: 900), stripTail: false), fin: false, rsv: 4)
        for index in 1..<4 { bytes += ClientFrame.make(0x0, many.compress([UInt8](repeating: 2, count: 900), stripTail: index < 3 ? false : true), fin: index == 3) }
        #expect(failure(inflatedEvents(bytes, limits: limits)) == .messageTooBig)
    }

    @Test func theServersCompressor_MakesWhatAClientInflates_KeepingItsWindowUnlessTold() {
        let message = Array(String(repeating: "a message the server sends twice ", count: 30).utf8)
        for noContextTakeover in [false, true] {
            let agreement = PerMessageDeflate.negotiate(["permessage-deflate"], settings: WebSocketCompression(serverNoContextTakeover: noContextTakeover))!
            let deflater = agreement.makeCodec().1
            let first = message.withUnsafeBufferPointer { deflater.deflate($0) }!
            let second = message.withUnsafeBufferPointer { deflater.deflate($0) }!
            #expect(first.suffix(4) != [0, 0, 0xFF, 0xFF], "the sync flush's tail is removed")
            #expect(first.count < message.count / 5)
            #expect(clientInflate([first, second], windowBits: 12) == [message, message])
            if noContextTakeover {
                #expect(second == first, "each message starts afresh")
            } else {
                #expect(second.count < first.count / 2, "the second refers back to the first")
            }
        }
    }
}
#endif
