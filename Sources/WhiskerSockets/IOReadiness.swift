// What both readiness mechanisms (EpollSelector, DispatchSourceSelector) and the worker share.

/// What a registered descriptor wants to hear about.
struct IOInterest: OptionSet, Sendable {
    let rawValue: UInt8
    static let read = IOInterest(rawValue: 1)
    static let write = IOInterest(rawValue: 2)
}

/// The readiness of one descriptor, as one poll reported it.
struct IOReadiness: Sendable {
    let fd: Int32
    let isReadable: Bool
    let isWritable: Bool
    /// An error or a hang-up (reported whatever the interest, even none).
    let isFailed: Bool
}
