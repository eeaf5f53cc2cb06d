import Dispatch
import Testing
@testable import WhiskerCore
import WhiskerSockets

/// ``HTTP1ConnectionState`` alone: the events a connection reports, in order, and what it is told
/// to do. No socket, no clock: times are made up.
@Suite struct HTTP1ConnectionStateTests {
    private let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
    private func at(_ seconds: Double) -> DispatchTime { start + .nanoseconds(Int(seconds * 1e9)) }
    private let timeouts = WhiskerServer.Timeouts()
    /// A mutating call's result, so that `#expect` (whose expansion cannot mutate) can check it.
    private func result<T>(_ value: T) -> T { value }

    // MARK: Keep-alive and pipelining

    @Test func keepAliveRequest_WithBodyRead_FinishesAndReadsNext() {
        var state = HTTP1ConnectionState(now: start)
        state.bytesArrived(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .length(3))
        #expect(!state.mayParseHead, "one exchange at a time: a pipelined head waits")
        #expect(state.mayParseBody)
        state.bodyReceived(3, accepted: true)
        #expect(result(state.bodyEnded()) == false, "the response is not written yet")
        #expect(!state.mayParseBody)
        #expect(result(state.responseStarting(id: id)) == true)
        #expect(result(state.responseWritten(id: id, keptAlive: true)) == .finishExchange)
        #expect(result(state.exchangeFinished(now: at(1), hasBufferedBytes: true)) == .readNext)
        #expect(state.mayParseHead)
    }

    @Test func bodilessRequest_AnsweredBeforeItsEndIsParsed_FinishesAtTheEnd() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        #expect(state.mayParseBody, "the parser still has the request's end to report")
        #expect(result(state.responseStarting(id: id)) == true)
        #expect(result(state.responseWritten(id: id, keptAlive: true)) == .drainBody)
        #expect(result(state.bodyEnded()) == true, "the end arrives: the exchange is over")
    }

    @Test func requestSayingClose_ClosesAfterTheResponse_AsAsked() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: false, expectsContinue: false, framing: .none)
        #expect(result(state.responseStarting(id: id)) == false)
        // Answered before the parser reported the end of a request that has no body: it is whole.
        #expect(result(state.responseWritten(id: id, keptAlive: false)) == .closeAsAsked, "the client's own close: no linger needed")
        #expect(state.isClosing)
        #expect(!state.mayParseHead)
    }

    @Test func closeTheClientDidNotAskFor_OrBeforeItsBodyEnded_Lingers() {
        var keepAlive = HTTP1ConnectionState(now: start)
        let first = keepAlive.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        #expect(result(keepAlive.responseWritten(id: first, keptAlive: false)) == .close, "the server's decision: the client may be sending")
        var unread = HTTP1ConnectionState(now: start)
        let second = unread.headReceived(keepAlive: false, expectsContinue: false, framing: .length(10))
        #expect(result(unread.responseWritten(id: second, keptAlive: false)) == .close, "body bytes still on their way")
    }

    @Test func lateCallback_FromAnEarlierExchange_IsIgnored() {
        var state = HTTP1ConnectionState(now: start)
        let first = state.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        _ = state.bodyEnded()
        _ = state.responseStarting(id: first)
        _ = state.responseWritten(id: first, keptAlive: true)
        _ = state.exchangeFinished(now: at(1), hasBufferedBytes: false)
        let second = state.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        #expect(!state.isCurrent(first))
        #expect(state.isCurrent(second))
        #expect(result(state.responseWritten(id: first, keptAlive: true)) == nil)
        #expect(state.exchange?.isResponseComplete == false)
    }

    @Test func readAhead_PausesWhileTheBodyBufferIsFull_AndIsBoundedAfterTheRequest() {
        var state = HTTP1ConnectionState(now: start)
        #expect(state.wantsBytes(buffered: 0, limit: 100))
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .chunked)
        state.bodyReceived(10, accepted: false)
        #expect(!state.wantsBytes(buffered: 0, limit: 100), "the handler's buffer is full")
        #expect(!state.mayParseBody)
        #expect(result(state.bodyDemanded(id: id, now: at(2))) == false)
        #expect(state.wantsBytes(buffered: 0, limit: 100))
        _ = state.bodyEnded()
        #expect(state.wantsBytes(buffered: 99, limit: 100))
        #expect(!state.wantsBytes(buffered: 100, limit: 100), "pipelined requests are read only so far ahead")
    }

    // MARK: 100-continue

    @Test func continue_IsSentOnce_WhenTheHandlerFirstAsks() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: true, framing: .length(5))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil) == nil, "a client told to wait has no body deadline")
        #expect(result(state.bodyDemanded(id: id, now: at(1))) == true)
        #expect(result(state.bodyDemanded(id: id, now: at(2))) == false)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)?.0 == .requestBody)
    }

    @Test func continue_IsNotSent_AfterTheResponseStarted_AndTheConnectionCloses() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: true, framing: .length(5))
        #expect(result(state.responseStarting(id: id)) == false, "the client may or may not send the body: only closing is safe")
        #expect(result(state.bodyDemanded(id: id, now: at(1))) == false)
    }

    // MARK: Draining

    @Test func earlyResponse_DrainsASmallRemainder_AndClosesOnALargeOne() {
        var small = HTTP1ConnectionState(now: start, drainAllowance: 100)
        let id = small.headReceived(keepAlive: true, expectsContinue: false, framing: .length(150))
        small.bodyReceived(50, accepted: true)
        #expect(result(small.responseStarting(id: id)) == true, "100 bytes left: within the allowance")
        #expect(result(small.responseWritten(id: id, keptAlive: true)) == .drainBody)
        #expect(small.mayParseBody, "the rest is read and dropped")
        small.bodyReceived(100, accepted: true)
        #expect(result(small.bodyEnded()) == true, "the response was written: the exchange is over")

        var large = HTTP1ConnectionState(now: start, drainAllowance: 100)
        let other = large.headReceived(keepAlive: true, expectsContinue: false, framing: .length(150))
        large.bodyReceived(49, accepted: true)
        #expect(result(large.responseStarting(id: other)) == false, "101 bytes left: more than the allowance")

        var chunked = HTTP1ConnectionState(now: start, drainAllowance: 100)
        let third = chunked.headReceived(keepAlive: true, expectsContinue: false, framing: .chunked)
        #expect(result(chunked.responseStarting(id: third)) == false, "an unfinished chunked body has no known end")
    }

    @Test func drainingBody_IsNeverPaused() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .length(10))
        state.bodyReceived(5, accepted: false)
        _ = state.responseStarting(id: id)
        #expect(result(state.responseWritten(id: id, keptAlive: true)) == .drainBody)
        #expect(state.mayParseBody)
        #expect(state.wantsBytes(buffered: 0, limit: 100))
    }

    // MARK: Shutdown

    @Test func shutdown_OfAnIdleConnection_ReadsPendingBytesFirst() {
        var idle = HTTP1ConnectionState(now: start)
        #expect(result(idle.shutdownRequested()) == .readPending)
        #expect(result(idle.shutdownAfterRead(hasBufferedBytes: false)) == true)
        #expect(idle.isClosing)

        var pending = HTTP1ConnectionState(now: start)
        #expect(result(pending.shutdownRequested()) == .readPending)
        #expect(result(pending.shutdownAfterRead(hasBufferedBytes: true)) == false, "a request on its way is answered")
    }

    @Test func shutdown_OfABusyConnection_FinishesTheResponseWithClose() {
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        _ = state.bodyEnded()
        #expect(result(state.shutdownRequested()) == .finishCurrent)
        #expect(result(state.responseStarting(id: id)) == false, "the response says Connection: close")

        var written = HTTP1ConnectionState(now: start)
        let other = written.headReceived(keepAlive: true, expectsContinue: false, framing: .none)
        _ = written.bodyEnded()
        #expect(result(written.responseStarting(id: other)) == true)
        _ = written.shutdownRequested()
        #expect(result(written.responseWritten(id: other, keptAlive: true)) == .finishExchange)
        #expect(result(written.exchangeFinished(now: at(1), hasBufferedBytes: false)) == .close, "the head had gone out: close right after")
    }

    // MARK: Deadlines

    @Test func deadlines_FollowTheConnectionsState() {
        var state = HTTP1ConnectionState(now: start)
        #expect(state.deadline(timeouts, isHandshaking: true, writeBlockedSince: nil)! == (.handshake, start.adding(timeouts.tlsHandshake)))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)! == (.idle, start.adding(timeouts.idle)))
        state.bytesArrived(now: at(1))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)! == (.requestHeader, at(1).adding(timeouts.requestHeader)))
        state.bytesArrived(now: at(2))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)!.1 == at(1).adding(timeouts.requestHeader), "the header deadline runs from the head's first byte")
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .length(4))
        state.bytesArrived(now: at(3))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)! == (.requestBody, at(3).adding(timeouts.requestBody)))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: at(4))! == (.write, at(4).adding(timeouts.write)))
        _ = state.bodyEnded()
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil) == nil, "a running handler has no deadline")
        _ = state.responseStarting(id: id)
        _ = state.responseWritten(id: id, keptAlive: true)
        _ = state.exchangeFinished(now: at(5), hasBufferedBytes: false)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil)! == (.idle, at(5).adding(timeouts.idle)))
        state.closing()
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil) == nil)
    }

    // MARK: Minimum data rates

    /// A body that trickles: past the grace period the rate's deadline comes before the stall's,
    /// and each byte moves it by 1/rate. Time the handler's full buffer holds the body back is not counted.
    @Test func slowRequestBody_MeetsTheRateDeadline_AndPausesAreNotCounted() {
        var limits = WhiskerServer.Limits()
        limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 100, gracePeriod: .seconds(5))
        var state = HTTP1ConnectionState(now: start)
        state.bytesArrived(now: start)
        _ = state.headReceived(keepAlive: true, expectsContinue: false, framing: .length(10_000), now: start)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.slowRequestBody, at(5)))
        state.bytesArrived(now: at(2))
        state.bodyReceived(200, accepted: true, now: at(2))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.slowRequestBody, at(7)), "200 bytes buy 2 s")
        state.bodyReceived(100, accepted: false, now: at(3))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits) == nil, "a full buffer: the client is not the one waited on")
        _ = state.bodyDemanded(id: 1, now: at(13))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.slowRequestBody, at(18)), "the 10 s paused are not counted: 3 s used, 300 bytes bought 3 s")
        limits.minRequestBodyRate = nil
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.requestBody, at(13).adding(timeouts.requestBody)), "without a minimum, only the stall")
    }

    /// While a response is under way (a handler streaming its answer to a request it reads at its
    /// own pace), only the stall timeout applies; the rate counts again, without the time
    /// spent responding, once the response is written and the rest of the body is drained.
    @Test func slowRequestBody_IsNotTimedWhileTheResponseIsUnderWay() {
        var limits = WhiskerServer.Limits()
        limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 100, gracePeriod: .seconds(5))
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: false, framing: .chunked, now: start)
        state.bytesArrived(now: at(1))
        state.bodyReceived(100, accepted: true, now: at(1))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.slowRequestBody, at(6)))
        #expect(state.responseStarting(id: id, now: at(2)) == false)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.requestBody, at(1).adding(timeouts.requestBody)), "only the stall")
        state.bytesArrived(now: at(20))
        state.bodyReceived(26, accepted: true, now: at(20))
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.requestBody, at(20).adding(timeouts.requestBody)))
    }

    /// A client waiting for `100 Continue` is not timed until the handler asks for the body.
    @Test func slowRequestBody_IsNotTimedBefore100Continue() {
        var limits = WhiskerServer.Limits()
        limits.minRequestBodyRate = MinimumDataRate(bytesPerSecond: 100, gracePeriod: .seconds(5))
        var state = HTTP1ConnectionState(now: start)
        let id = state.headReceived(keepAlive: true, expectsContinue: true, framing: .length(10_000), now: start)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits) == nil)
        #expect(result(state.bodyDemanded(id: id, now: at(20))) == true)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: nil, limits: limits)! == (.slowRequestBody, at(25)))
    }

    /// A response the client reads slowly: the rate counts from when bytes began to wait, with
    /// what the client took since; the stall deadline still applies to a client that takes nothing.
    @Test func slowRead_MeetsTheRateDeadline() {
        var limits = WhiskerServer.Limits()
        limits.minResponseRate = MinimumDataRate(bytesPerSecond: 1000, gracePeriod: .seconds(5))
        let state = HTTP1ConnectionState(now: start)
        let backlog = WriteBacklog(since: at(1), bytesSent: 2_000)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: at(9), writeBacklog: backlog, limits: limits)! == (.slowRead, at(8)))
        let fast = WriteBacklog(since: at(1), bytesSent: 100_000_000)
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: at(9), writeBacklog: fast, limits: limits)! == (.write, at(9).adding(timeouts.write)))
        limits.minResponseRate = nil
        #expect(state.deadline(timeouts, isHandshaking: false, writeBlockedSince: at(9), writeBacklog: backlog, limits: limits)! == (.write, at(9).adding(timeouts.write)))
    }
}
