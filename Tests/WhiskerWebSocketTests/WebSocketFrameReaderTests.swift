import Testing
import WhiskerSockets
@testable import WhiskerWebSocket

/// Every rule on a client's frames, each as the hostile frame and the legitimate frame of the
/// same shape, from byte strings.
@Suite("Reading client frames (RFC 6455 5)")
struct WebSocketFrameReaderTests {
    private func failure(_ events: [WebSocketFrameReader.Event]) -> WebSocketCloseCode? {
        if case .failure(let code, _) = events.last { return code }
        return nil
    }

    // RFC 6455 5.7's examples, masked as a client sends them.
    @Test func theRFCsExampleFramesRead() {
        #expect(events([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]) == [.message(.text("Hello"))])
        #expect(events(ClientFrame.text("Hel", fin: false) + ClientFrame.continuation(Array("lo".utf8))) == [.message(.text("Hello"))])
        #expect(events(ClientFrame.ping(Array("Hello".utf8))) == [.ping(Array("Hello".utf8))])
    }

    @Test func framesReadTheSameOneByteAtATime() {
        let bytes = ClientFrame.text("héllo ", fin: false) + ClientFrame.ping([1, 2]) + ClientFrame.continuation(Array("wörld 🐱".utf8))
            + ClientFrame.binary(Array(0..<200)) + ClientFrame.close(1000, reason: Array("bye".utf8))
        let expected: [WebSocketFrameReader.Event] = [
            .ping([1, 2]), .message(.text("héllo wörld 🐱")), .message(.binary(Array(0..<200))), .close(.normalClosure, reason: "bye"),
        ]
        #expect(events(bytes) == expected)
        #expect(events(bytes, byteByByte: true) == expected)
    }

    @Test func anUnmaskedClientFrameFails1002AndAMaskedOnePasses() {
        #expect(failure(events(ClientFrame.make(0x1, Array("hi".utf8), masked: false))) == .protocolError)
        #expect(events(ClientFrame.make(0x1, Array("hi".utf8), masked: true)) == [.message(.text("hi"))])
        // A zero mask is a mask: the bit is what counts.
        #expect(events(ClientFrame.make(0x1, Array("hi".utf8), mask: [0, 0, 0, 0])) == [.message(.text("hi"))])
    }

    @Test(arguments: [UInt8(1), 2, 4, 7])
    func rsvBitsWithoutAnExtensionFail1002(rsv: UInt8) {
        #expect(failure(events(ClientFrame.make(0x1, Array("hi".utf8), rsv: rsv))) == .protocolError)
    }

    @Test(arguments: [UInt8(3), 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF])
    func reservedOpcodesFail1002(opcode: UInt8) {
        #expect(failure(events(ClientFrame.make(opcode, []))) == .protocolError)
    }

    @Test func aPingOf125BytesPassesAnd126Fails() {
        #expect(events(ClientFrame.ping([UInt8](repeating: 7, count: 125))) == [.ping([UInt8](repeating: 7, count: 125))])
        #expect(failure(events(ClientFrame.ping([UInt8](repeating: 7, count: 126)))) == .protocolError)
        // Also when the 126 bytes are declared in a 16-bit length, before any payload arrived.
        #expect(failure(events(ClientFrame.make(0x9, [], length: .sixteen, declaredLength: 126))) == .protocolError)
    }

    @Test func aFragmentedControlFrameFails1002AndAFinalOnePasses() {
        #expect(failure(events(ClientFrame.make(0x9, [1], fin: false))) == .protocolError)
        #expect(failure(events(ClientFrame.make(0x8, [0x03, 0xE8], fin: false))) == .protocolError)
        #expect(events(ClientFrame.make(0x9, [1], fin: true)) == [.ping([1])])
    }

    @Test func sixteenAndSixtyFourBitLengthsRead() {
        let medium = [UInt8](repeating: 0xAB, count: 300)
        let large = [UInt8](repeating: 0xCD, count: 70_000)
        #expect(events(ClientFrame.make(0x2, medium)) == [.message(.binary(medium))])
        #expect(events(ClientFrame.make(0x2, large)) == [.message(.binary(large))])
        // A short payload in a needlessly long form is still read (RFC 6455 asks senders for the
        // shortest form; readers in the wild accept the others).
        #expect(events(ClientFrame.make(0x2, [1, 2, 3], length: .sixtyFour)) == [.message(.binary([1, 2, 3]))])
    }

    @Test func aSixtyFourBitLengthWithTheHighBitSetFails1002() {
        let limits = WebSocketLimits(maxFrameSize: .max, maxMessageSize: .max)
        #expect(failure(events(ClientFrame.make(0x2, [], length: .sixtyFour, declaredLength: 1 << 63), limits: limits)) == .protocolError)
        // The largest length without the high bit is a size question, not a protocol error.
        #expect(failure(events(ClientFrame.make(0x2, [], length: .sixtyFour, declaredLength: (1 << 63) - 1))) == .messageTooBig)
    }

    @Test func aFrameOverTheFrameLimitFails1009BeforeItsPayloadAndOneAtTheLimitPasses() {
        let limits = WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 10_000)
        #expect(events(ClientFrame.binary([UInt8](repeating: 1, count: 1000)), limits: limits) == [.message(.binary([UInt8](repeating: 1, count: 1000)))])
        // Only the header is sent: the failure comes without waiting for (or buffering) the payload.
        let header = Array(ClientFrame.binary([UInt8](repeating: 1, count: 1001)).prefix(8))
        #expect(failure(events(header, limits: limits)) == .messageTooBig)
    }

    @Test func aMessageOverTheMessageLimitFails1009AtTheFragmentThatCrossesIt() {
        let limits = WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 2500)
        let piece = [UInt8](repeating: 2, count: 1000)
        let justUnder = ClientFrame.binary(piece, fin: false) + ClientFrame.continuation(piece, fin: false) + ClientFrame.continuation(Array(piece.prefix(500)))
        #expect(events(justUnder, limits: limits) == [.message(.binary(piece + piece + piece.prefix(500)))])
        let over = ClientFrame.binary(piece, fin: false) + ClientFrame.continuation(piece, fin: false) + Array(ClientFrame.continuation(Array(piece.prefix(501))).prefix(8))
        #expect(failure(events(over, limits: limits)) == .messageTooBig)
    }

    @Test func aContinuationWithoutAStartFails1002() {
        #expect(failure(events(ClientFrame.continuation(Array("x".utf8)))) == .protocolError)
        // The same continuation after a start is the legitimate shape.
        #expect(events(ClientFrame.text("a", fin: false) + ClientFrame.continuation(Array("x".utf8))) == [.message(.text("ax"))])
    }

    @Test func aNewMessageInsideAFragmentedOneFails1002() {
        #expect(failure(events(ClientFrame.text("a", fin: false) + ClientFrame.text("b"))) == .protocolError)
        #expect(failure(events(ClientFrame.binary([1], fin: false) + ClientFrame.binary([2], fin: false))) == .protocolError)
        // After the first message ended, a new one may start.
        #expect(events(ClientFrame.text("a", fin: false) + ClientFrame.continuation([]) + ClientFrame.text("b")) == [.message(.text("a")), .message(.text("b"))])
    }

    @Test func controlFramesMayInterleaveFragments() {
        let bytes = ClientFrame.binary([1], fin: false) + ClientFrame.ping([9]) + ClientFrame.pong([]) + ClientFrame.continuation([2])
        #expect(events(bytes) == [.ping([9]), .pong([]), .message(.binary([1, 2]))])
    }

    @Test func invalidUTF8FailsWith1007AtTheFirstBadFragment() {
        // The bad fragment comes first; the message never ends, and the failure does not wait for it.
        #expect(failure(events(ClientFrame.make(0x1, [0x68, 0xC0, 0xAF], fin: false))) == .invalidFramePayloadData)
        // A surrogate (U+D800, ED A0 80) and a code point past U+10FFFF (F4 90 80 80).
        #expect(failure(events(ClientFrame.make(0x1, [0xED, 0xA0, 0x80]))) == .invalidFramePayloadData)
        #expect(failure(events(ClientFrame.make(0x1, [0xF4, 0x90, 0x80, 0x80]))) == .invalidFramePayloadData)
        // An overlong NUL (C0 80) and a lone continuation byte.
        #expect(failure(events(ClientFrame.make(0x1, [0xC0, 0x80]))) == .invalidFramePayloadData)
        #expect(failure(events(ClientFrame.make(0x1, [0x80]))) == .invalidFramePayloadData)
    }

    @Test func aCharacterSplitAcrossFragmentsIsValid() {
        let cat = Array("🐱".utf8)  // F0 9F 90 B1
        let bytes = ClientFrame.make(0x1, Array(cat[0..<1]), fin: false) + ClientFrame.continuation(Array(cat[1..<3]), fin: false) + ClientFrame.continuation(Array(cat[3...]))
        #expect(events(bytes) == [.message(.text("🐱"))])
        #expect(events(bytes, byteByByte: true) == [.message(.text("🐱"))])
    }

    @Test func aTextMessageEndingInsideACharacterFails1007() {
        let cat = Array("🐱".utf8)
        #expect(failure(events(ClientFrame.make(0x1, Array(cat[0..<3])))) == .invalidFramePayloadData)
    }

    @Test func binaryMessagesAreNotUTF8Checked() {
        #expect(events(ClientFrame.binary([0xC0, 0x80, 0xFF])) == [.message(.binary([0xC0, 0x80, 0xFF]))])
    }

    @Test(arguments: [UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999])
    func validCloseCodesAreRead(code: UInt16) {
        #expect(events(ClientFrame.close(code)) == [.close(WebSocketCloseCode(code), reason: "")])
    }

    @Test(arguments: [UInt16(0), 999, 1004, 1005, 1006, 1012, 1014, 1015, 1016, 2000, 2999, 5000, 65535])
    func invalidCloseCodesFail1002(code: UInt16) {
        #expect(failure(events(ClientFrame.close(code))) == .protocolError)
    }

    @Test func aCloseFrameIsEmptyOrHoldsACode() {
        #expect(events(ClientFrame.close(nil)) == [.close(nil, reason: "")])
        #expect(failure(events(ClientFrame.make(0x8, [0x03]))) == .protocolError)
    }

    @Test func aCloseReasonMustBeUTF8() {
        #expect(events(ClientFrame.close(1000, reason: Array("au revoir 🐱".utf8))) == [.close(.normalClosure, reason: "au revoir 🐱")])
        #expect(failure(events(ClientFrame.close(1000, reason: [0xCE, 0xBA, 0xE1, 0xBD]))) == .invalidFramePayloadData)
    }

    @Test func nothingIsReadAfterACloseOrAFailure() {
        #expect(events(ClientFrame.close(1000) + ClientFrame.text("late")) == [.close(.normalClosure, reason: "")])
        #expect(failure(events(ClientFrame.make(0x1, [], masked: false) + ClientFrame.text("late"))) == .protocolError)
    }

    @Test func theMessageBufferHoldsOnlyTheMessageBeingAssembled() {
        var reader = WebSocketFrameReader(limits: WebSocketLimits())
        var buffer = ReadBuffer(ClientFrame.binary([UInt8](repeating: 1, count: 5000)))
        #expect(reader.next(from: &buffer) == .message(.binary([UInt8](repeating: 1, count: 5000))))
        #expect(reader.bufferedMessageBytes == 0)
        #expect(buffer.readableBytes == 0)
    }
}
