import Testing
@testable import WhiskerSockets

/// When a worker's thread polls before it sleeps: a busy stream of requests is served without
/// sleeping (the legitimate traffic), an idle or sporadic server sleeps and burns no CPU polling
/// (what the limit stops).
@Suite struct WorkerSpinTests {
    @Test func aNewWorker_SleepsAtOnce() {
        #expect(!WorkerSpin(budget: 50_000).shouldSpin)
    }

    @Test func afterAShortGap_ItSpins_AndKeepsSpinningWhileSpinsFindEvents() {
        var spin = WorkerSpin(budget: 50_000)
        spin.slept(waited: 20_000)
        #expect(spin.shouldSpin, "a request 20 µs after the last batch: the next is likely as soon")
        spin.spun(found: true)
        #expect(spin.shouldSpin)
    }

    @Test func aSpinThatFindsNothing_TurnsSpinningOff_UntilASleepEndsWithinTheBudget() {
        var spin = WorkerSpin(budget: 50_000)
        spin.slept(waited: 10_000)
        spin.spun(found: false)
        #expect(!spin.shouldSpin, "the burst ended: the next wait must sleep at once")
        spin.slept(waited: 1_000_000_000)
        #expect(!spin.shouldSpin, "sporadic traffic (a request a second) never spins")
        spin.slept(waited: 49_000)
        #expect(spin.shouldSpin)
    }

    @Test func aBudgetOfZero_NeverSpins() {
        var spin = WorkerSpin(budget: 0)
        spin.slept(waited: 0)
        #expect(!spin.shouldSpin)
    }
}
