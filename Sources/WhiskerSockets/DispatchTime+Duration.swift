package import Dispatch

extension DispatchTime {
    /// This time plus a Swift `Duration` (a negative one, earlier), saturating far in the future:
    /// the one conversion the deadlines of every layer use. One 128-bit division by a constant;
    /// `Duration.components` divides twice, and cost ~500 instructions a call (counted with
    /// cachegrind: two calls a keep-alive request).
    package func adding(_ duration: Duration) -> DispatchTime {
        let nanoseconds = Int64(exactly: duration.attoseconds / 1_000_000_000) ?? .max
        return self + DispatchTimeInterval.nanoseconds(Int(clamping: nanoseconds))
    }
}
