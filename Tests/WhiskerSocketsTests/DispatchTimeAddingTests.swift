import Dispatch
import Testing
import WhiskerSockets

@Suite struct DispatchTimeAddingTests {
    private let start = DispatchTime(uptimeNanoseconds: 1_000_000_000_000)

    /// Whole and fractional seconds, past the 64-bit attosecond range (about 18 s), and negative:
    /// the same nanoseconds as the duration, a part of a nanosecond dropped.
    @Test(arguments: [
        (.seconds(60), 60_000_000_000), (.milliseconds(1500), 1_500_000_000), (.nanoseconds(1), 1),
        (.seconds(3600 * 24), 86_400_000_000_000), (.seconds(-5), -5_000_000_000), (.zero, 0),
        (Duration(secondsComponent: 2, attosecondsComponent: 999_999_999), 2_000_000_000),
    ] as [(Duration, Int64)])
    func adding_MovesByTheDurationsNanoseconds(duration: Duration, nanoseconds: Int64) {
        #expect(Int64(bitPattern: start.adding(duration).uptimeNanoseconds) - Int64(bitPattern: start.uptimeNanoseconds) == nanoseconds)
    }

    /// A duration beyond what nanoseconds hold (`.seconds(Int64.max)`) is far in the future, not
    /// wrapped into the past.
    @Test func adding_ADurationTooLongForNanoseconds_IsFarInTheFuture() {
        #expect(start.adding(.seconds(Int64.max)) > start.adding(.seconds(3600 * 24 * 365 * 100)))
    }
}
