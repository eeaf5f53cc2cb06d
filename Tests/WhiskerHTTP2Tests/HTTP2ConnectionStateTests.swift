import Dispatch
import Testing
import WhiskerCore
@testable import WhiskerHTTP2
import WhiskerSockets

/// ``HTTP2ConnectionState`` alone: the GOAWAY sequence, held output and the deadlines, from
/// made-up times and no socket.
@Suite struct HTTP2ConnectionStateTests {
    private let start = DispatchTime(uptimeNanoseconds: 5_000_000_000)
    private func at(_ seconds: Double) -> DispatchTime { start + .nanoseconds(Int(seconds * 1e9)) }
    private let timeouts = WhiskerServer.Timeouts()
    /// A mutating call's result, so that `#expect` (whose expansion cannot mutate) can check it.
    private func result<T>(_ value: T) -> T { value }

    @Test func shutdown_NoticeOnce_ThenFinalGoAwayOnce_ThenCloseWhenTheLastStreamEnds() {
        var state = HTTP2ConnectionState(now: start)
        state.streamOpened(now: at(0.1), checkInterval: .seconds(30))
        #expect(result(state.shutdownRequested(now: at(1))))
        #expect(!result(state.shutdownRequested(now: at(1.5))), "one notice")
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: true)! == (.finalGoAway, at(2)))
        #expect(result(state.finalGoAwayDue()), "the PING was acknowledged, or the second is over")
        #expect(!result(state.finalGoAwayDue()), "one final GOAWAY")
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: true)?.0 == .streams)
        #expect(result(state.lastStreamClosed(now: at(3))), "the shutdown is complete: close")
    }

    @Test func lastStreamClosing_WithoutAShutdown_StartsTheIdleTimeout() {
        var state = HTTP2ConnectionState(now: start)
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: false)! == (.idle, start.adding(timeouts.idle)))
        state.streamOpened(now: at(1), checkInterval: .seconds(5))
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: true)! == (.streams, at(6)))
        state.streamOpened(now: at(2), checkInterval: .seconds(5))
        #expect(state.streamCheckAt == at(6), "a second stream does not push the check back")
        #expect(!result(state.lastStreamClosed(now: at(4))))
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: false)! == (.idle, at(4).adding(timeouts.idle)))
    }

    @Test func upgradedConnection_HoldsOutputUntilThePreface() {
        var state = HTTP2ConnectionState(now: start)
        state.holdOutput(now: at(1))
        #expect(!state.mayWrite)
        #expect(state.deadline(timeouts, writeBlockedSince: nil, hasStreams: true)! == (.preface, at(1).adding(timeouts.requestHeader)))
        #expect(state.deadline(timeouts, writeBlockedSince: at(2), hasStreams: true)! == (.writeStall, at(2).adding(timeouts.write)), "a stalled write comes first")
        state.bytesArrived()
        #expect(state.mayWrite)
    }

    @Test func closedConnection_SendsNothing_AndHasNoDeadline() {
        var state = HTTP2ConnectionState(now: start)
        state.closed()
        #expect(!state.mayWrite)
        #expect(!result(state.shutdownRequested(now: at(1))))
        #expect(!result(state.finalGoAwayDue()))
        #expect(state.deadline(timeouts, writeBlockedSince: at(1), hasStreams: true) == nil)
    }
}
