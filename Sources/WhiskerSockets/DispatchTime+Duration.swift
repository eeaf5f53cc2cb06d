package import Dispatch

extension DispatchTime {
    /// This time plus a Swift `Duration` (a negative one, earlier), saturating far in the future:
    /// the one conversion the deadlines of every layer use.
    package func adding(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let total = nanoseconds.overflow ? Int64.max : nanoseconds.partialValue + attoseconds / 1_000_000_000
        return self + DispatchTimeInterval.nanoseconds(Int(clamping: total))
    }
}
