import Dispatch
import HTTPTypes
import Testing
import WhiskerCore
import WhiskerHTTP2
import WhiskerSockets

/// ``HTTP2StreamState`` driven by events alone: no session, no socket, times passed in.
@Suite struct HTTP2StreamStateTests {
    private let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
    private var timeouts: WhiskerServer.Timeouts {
        var timeouts = WhiskerServer.Timeouts()
        timeouts.requestBody = .seconds(10)
        timeouts.write = .seconds(30)
        return timeouts
    }

    private func at(_ seconds: Int) -> DispatchTime { start.adding(.seconds(seconds)) }

    /// A stream whose handler reads its body.
    private func reading() -> HTTP2StreamState {
        var state = HTTP2StreamState(requestComplete: false, now: start)
        state.readerAttached()
        return state
    }

    @Test func aRequestWithoutABody_IsComplete_AndItsResponseDrainsNothing() {
        var state = HTTP2StreamState(requestComplete: true, now: start)
        #expect(state.isRequestComplete && !state.isBodyRead)
        state.readerAttached()
        #expect(!state.isBodyRead, "no body, no reader")
        #expect(state.mayStartResponse)
        state.responseStarted(now: start)
        #expect(!state.mayStartResponse && state.isResponseStarted && !state.isResponseComplete)
        #expect(state.responseCompleted(now: start) == 0)
        #expect(state.request == .complete && state.isResponseComplete)
        #expect(state.ended() == (0, false), "nothing to give back, the handler is done")
    }

    @Test func aBodyRead_HoldsItsWindowUntilTheHandlerReadsIt_ThenEnds() {
        var state = reading()
        #expect(state.dataReceived(100, now: at(1), limits: .init()) == .deliver)
        #expect(state.dataReceived(50, now: at(2), limits: .init()) == .deliver)
        #expect(state.unreadBytes == 150 && state.receivedBytes == 150 && state.bodyActivityAt == at(2))
        state.handlerRead(100, now: at(3))
        #expect(state.unreadBytes == 50 && state.bodyActivityAt == at(3))
        let readerEnds = state.endStreamReceived()
        #expect(readerEnds, "the reader's body ends")
        #expect(state.isRequestComplete)
        #expect(state.ended() == (50, true), "the unread window goes back; the handler, not done, is cancelled")
        #expect(state.unreadBytes == 0 && state.isEnded)
    }

    @Test func bytesPastTheLimit_AreRefused_413() {
        var limits = WhiskerServer.Limits()
        limits.maxRequestBodySize = 150
        var state = reading()
        #expect(state.dataReceived(100, now: at(1), limits: limits) == .deliver)
        guard case .reject(let rejection) = state.dataReceived(100, now: at(1), limits: limits) else {
            Issue.record("past the limit is refused")
            return
        }
        #expect(rejection.status == .contentTooLarge)
        #expect(state.unreadBytes == 100, "refused bytes hold no window: the connection gives it back at once")
        #expect(state.rejected() == .answer, "no response yet: the rejection is the answer")
        #expect(!state.isBodyRead)
        #expect(state.dataReceived(10, now: at(2), limits: limits) == .drop, "nobody reads what still comes")
    }

    @Test func anEarlyResponse_DrainsTheRest_ThenAsksTheClientToStop() {
        var state = reading()
        #expect(state.dataReceived(300, now: at(1), limits: .init()) == .deliver)
        state.responseStarted(now: at(2))
        #expect(state.responseCompleted(now: at(2)) == 300, "the handler's unread bytes go back")
        #expect(state.request == .draining && state.drainedBytes == 300 && state.unreadBytes == 0)
        let allowance = Int(WhiskerServer.Limits.unreadBodyDrain)
        #expect(state.dataReceived(allowance - 300, now: at(3), limits: .init()) == .drop)
        #expect(state.dataReceived(1, now: at(3), limits: .init()) == .dropAndStop, "past the drain allowance")
        #expect(state.request == .stopRequested)
        #expect(state.dataReceived(1000, now: at(4), limits: .init()) == .drop)
        let askedAgain = state.stopRequested()
        #expect(!askedAgain, "asked once")
        let readerEnds = state.endStreamReceived()
        #expect(!readerEnds && state.isRequestComplete, "nobody reads a drained body")
    }

    @Test func aRefusal_AfterTheResponseStarted_IsAReset() {
        var state = reading()
        state.responseStarted(now: start)
        #expect(state.rejected() == .reset)
        state.reset()
        #expect(state.isResponseComplete && !state.mayStartResponse)
        #expect(state.ended().cancelHandler == false, "a reset response is complete: nothing of it is awaited")
    }

    @Test func stopRequested_OnlyWhileTheBodyMayStillCome() {
        var open = HTTP2StreamState(requestComplete: false, now: start)
        let first = open.stopRequested(), second = open.stopRequested()
        #expect(first && !second)
        var complete = HTTP2StreamState(requestComplete: true, now: start)
        let afterTheEnd = complete.stopRequested()
        #expect(!afterTheEnd)
    }

    @Test func aHandlerWaitingForBytes_HasTheBodyDeadline_AHandlerBehindOnReadingHasNone() {
        var state = reading()
        var check = state.check(now: at(5), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil)
        #expect(check.expired == nil && check.next == at(10))
        check = state.check(now: at(10), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil)
        #expect(check.expired == .bodyStalled)
        _ = state.dataReceived(10, now: at(11), limits: .init())
        check = state.check(now: at(30), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil)
        #expect(check.expired == nil && check.next == nil, "bytes wait for the handler: the client is not late")
        state.handlerRead(10, now: at(31))
        check = state.check(now: at(32), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil)
        #expect(check.next == at(41), "read: waiting on the client again, from the read")
    }

    @Test func aBodySlowerThanTheMinimumRate_Expires() {
        let rate = MinimumDataRate(bytesPerSecond: 100, gracePeriod: .seconds(2))
        var state = reading()
        _ = state.dataReceived(10, now: at(1), limits: .init())
        state.handlerRead(10, now: at(1))
        let check = state.check(now: at(9), timeouts: timeouts, minBodyRate: rate, framedBodyBytes: nil)
        #expect(check.expired == .bodyTooSlow, "10 bytes in 8 seconds is far below 100 bytes/s")
    }

    @Test func aDrainThatStalls_Expires() {
        var state = HTTP2StreamState(requestComplete: false, now: start)
        state.responseStarted(now: start)
        _ = state.responseCompleted(now: at(1))
        #expect(state.check(now: at(5), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil).next == at(11))
        #expect(state.check(now: at(11), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil).expired == .drainStalled)
    }

    @Test func aWindowThatStaysClosed_Expires_ProgressMovesTheDeadline() {
        var state = HTTP2StreamState(requestComplete: true, now: start)
        state.responseStarted(now: start)
        var check = state.check(now: at(10), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: 100)
        #expect(check.expired == nil && check.next == at(40), "new progress at 10 s")
        check = state.check(now: at(39), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: 100)
        #expect(check.expired == nil && check.next == at(40))
        check = state.check(now: at(40), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: 100)
        #expect(check.expired == .windowClosed)
        #expect(state.check(now: at(41), timeouts: timeouts, minBodyRate: nil, framedBodyBytes: nil).next == nil, "nothing waiting: no deadline")
    }
}
