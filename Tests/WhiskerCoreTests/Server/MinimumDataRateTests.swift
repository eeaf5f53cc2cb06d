import Dispatch
import Testing
import WhiskerCore

/// ``DataRateClock`` and ``MinimumDataRate`` as arithmetic: made-up times, exact deadlines.
@Suite struct MinimumDataRateTests {
    private let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
    private func at(_ seconds: Double) -> DispatchTime { start + .nanoseconds(Int(seconds * 1e9)) }
    private let rate = MinimumDataRate(bytesPerSecond: 240, gracePeriod: .seconds(5))

    @Test func deadline_IsTheGracePeriodPlusTheTimeTheBytesBuy() {
        #expect(rate.deadline(start: start, bytes: 0) == at(5))
        #expect(rate.deadline(start: start, bytes: 480) == at(7))
        #expect(MinimumDataRate.default == rate)
    }

    @Test func clock_CountsOnlyTheTimeItRuns() {
        var clock = DataRateClock()
        #expect(clock.deadline(rate) == nil, "not running yet")
        clock.start(now: at(1))
        clock.add(240)
        #expect(clock.deadline(rate) == at(7))
        clock.pause(now: at(3))
        #expect(clock.deadline(rate) == nil)
        clock.start(now: at(10))
        #expect(clock.deadline(rate) == at(14), "2 s counted before the pause, none during it")
        clock.start(now: at(11))
        #expect(clock.deadline(rate) == at(14), "starting a running clock changes nothing")
    }
}
