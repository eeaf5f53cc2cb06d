import Testing
import WhiskerSockets
@testable import WhiskerWebSocket

@Suite("The connection's protocol: pings, the control-frame rate, the close handshake")
struct WebSocketConnectionStateTests {
    private struct Driver {
        var state: WebSocketConnectionState
        var buffer = ReadBuffer()
        init(limits: WebSocketLimits = WebSocketLimits()) { state = WebSocketConnectionState(limits: limits) }

        mutating func feed(_ bytes: [UInt8], now: UInt64 = 0) -> [WebSocketConnectionState.Action] {
            buffer.append(contentsOf: bytes)
            var actions: [WebSocketConnectionState.Action] = []
            while let action = state.nextAction(from: &buffer, now: now) { actions.append(action) }
            return actions
        }
    }

    /// A close frame's code, and whether the TCP connection closes after it.
    private struct CloseOutcome: Equatable {
        let code: WebSocketCloseCode?
        let closesStream: Bool
        init(_ code: WebSocketCloseCode?, _ closesStream: Bool) { self.code = code; self.closesStream = closesStream }
    }

    private func closeCode(_ action: WebSocketConnectionState.Action?) -> CloseOutcome? {
        if case .sendClose(_, let closeStream, let code, _) = action { return CloseOutcome(code, closeStream) }
        if case .fail(_, let code, _) = action { return CloseOutcome(code, true) }
        return nil
    }

    @Test func messagesAreDeliveredAndPingsAnsweredWithTheirPayload() {
        var driver = Driver()
        let actions = driver.feed(ClientFrame.text("hi") + ClientFrame.ping([1, 2, 3]) + ClientFrame.binary([9]))
        #expect(actions == [.deliver(.text("hi")), .send([0x8A, 0x03, 1, 2, 3]), .deliver(.binary([9]))])
    }

    @Test func thePeersCloseIsEchoedWithItsCodeThenTheStreamCloses() {
        var driver = Driver()
        let actions = driver.feed(ClientFrame.close(4001, reason: Array("done".utf8)))
        #expect(actions == [.sendClose([0x88, 0x02, 0x0F, 0xA1], closeStream: true, code: WebSocketCloseCode(4001), reason: "done")])
        #expect(driver.state.closeState == .closed)
        #expect(!driver.state.canSend)
        #expect(driver.feed(ClientFrame.text("late")) == [])
    }

    @Test func anEmptyCloseIsAnsweredWithAnEmptyClose() {
        var driver = Driver()
        #expect(driver.feed(ClientFrame.close(nil)) == [.sendClose([0x88, 0x00], closeStream: true, code: nil, reason: "")])
    }

    @Test func ourCloseWaitsForThePeersThenClosesTheStream() {
        var driver = Driver()
        let close = driver.state.close(.goingAway, reason: "shutting down")
        #expect(closeCode(close) == CloseOutcome(.goingAway, false))
        #expect(driver.state.close(.normalClosure) == nil)  // one close frame only
        // Data and pings that were on their way are dropped; the handler has stopped taking them.
        #expect(driver.feed(ClientFrame.text("in flight") + ClientFrame.ping([1])) == [])
        #expect(driver.feed(ClientFrame.close(1001)) == [.closeStream])
        #expect(driver.state.closeState == .closed)
    }

    @Test func ourCloseTimesOutIntoAStreamClose() {
        var driver = Driver()
        _ = driver.state.close(.normalClosure)
        #expect(driver.state.closeTimedOut() == .closeStream)
        #expect(driver.state.closeTimedOut() == nil)
    }

    @Test func aBrokenRuleSendsItsCodeAndClosesWithoutWaiting() {
        var driver = Driver()
        let actions = driver.feed(ClientFrame.make(0x1, Array("x".utf8), masked: false))
        #expect(actions.count == 1)
        #expect(closeCode(actions.first) == CloseOutcome(.protocolError, true))
    }

    @Test func aBrokenRuleAfterOurCloseOnlyClosesTheStream() {
        var driver = Driver()
        _ = driver.state.close(.normalClosure)
        #expect(driver.feed(ClientFrame.make(0x1, [], masked: false)) == [.closeStream])
    }

    @Test func aFloodOfPingsIsClosed1008PastTheBurst() {
        var driver = Driver(limits: WebSocketLimits(controlFrameBurst: 100, controlFramesPerSecond: 10))
        let flood = (0..<101).flatMap { _ in ClientFrame.ping([0x2A]) }
        let actions = driver.feed(flood)
        #expect(actions.count == 101)
        #expect(actions.prefix(100).allSatisfy { $0 == .send([0x8A, 0x01, 0x2A]) })
        #expect(closeCode(actions.last) == CloseOutcome(.policyViolation, true))
    }

    @Test func pingsWithinTheRateAreAllAnswered() {
        var driver = Driver(limits: WebSocketLimits(controlFrameBurst: 100, controlFramesPerSecond: 10))
        // 100 at once, then one every 100 ms for 10 seconds: 200 pings, all answered.
        var answered = driver.feed((0..<100).flatMap { _ in ClientFrame.ping() }, now: 0).count
        for step in 1...100 {
            answered += driver.feed(ClientFrame.ping(), now: UInt64(step) * 100_000_000).count
        }
        #expect(answered == 200)
        #expect(driver.state.closeState == .open)
    }

    @Test func aFloodOfUnsolicitedPongsIsBoundedToo() {
        var driver = Driver(limits: WebSocketLimits(controlFrameBurst: 5, controlFramesPerSecond: 1))
        let actions = driver.feed((0..<6).flatMap { _ in ClientFrame.pong() })
        #expect(closeCode(actions.last) == CloseOutcome(.policyViolation, true))
    }

    @Test func serverFramesAreUnmaskedInTheShortestLengthForm() {
        #expect(WebSocketFrame.encode(.text, payload: Array("Hello".utf8)) == [0x81, 0x05] + Array("Hello".utf8))
        #expect(Array(WebSocketFrame.encode(.binary, payload: [UInt8](repeating: 0, count: 256)).prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(WebSocketFrame.encode(.binary, payload: [UInt8](repeating: 0, count: 65536)).prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(WebSocketFrame.encode(.text, payload: [], fin: false) == [0x01, 0x00])
    }

    @Test func aLongCloseReasonIsCutAtACharacterBoundaryWithin125Bytes() {
        let frame = WebSocketFrame.close(.normalClosure, reason: String(repeating: "é", count: 100))
        #expect(frame[1] == 2 + 122)  // 61 two-byte characters fit in 123 bytes
        #expect(UTF8Validator.isValid(frame[4...]))
    }
}
