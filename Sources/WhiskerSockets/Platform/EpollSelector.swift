#if os(Linux)
// Linux only: epoll(7). On Darwin the I/O workers use the Dispatch-source backend instead
// (`IOBackend.platformDefault`), and `IOBackend.epoll` is refused when a worker is made.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
private import CWhiskerSystem

/// The readiness mechanism of an ``IOWorker``: one epoll set, level-triggered, each registration
/// keyed by its descriptor. This is the seam a kqueue sibling (for macOS development) would
/// stand beside, as SwiftNIO keeps `SelectorEpoll` and `SelectorKqueue`: the worker uses only
/// these five members.
///
/// Level-triggered means a descriptor is reported at every poll while it is ready, so a reader
/// may take what it needs and leave the rest; interest changes are one `epoll_ctl` each and happen
/// only when a connection pauses reading or a write blocks, never per request.
final class EpollSelector {
    /// The epoll descriptor, readable whenever a registered descriptor is ready (what the
    /// worker's Dispatch source watches).
    let fd: Int32
    private var readyFDs: [Int32]
    private var readyEvents: [UInt32]

    /// - Parameter capacity: The most descriptors one ``poll()`` reports.
    init(capacity: Int = 64) throws(SocketError) {
        fd = try checkedSystemCall("epoll_create1") { whisker_epoll_create() }
        readyFDs = Array(repeating: 0, count: capacity)
        readyEvents = Array(repeating: 0, count: capacity)
    }

    deinit { close(fd) }

    /// The most descriptors one ``poll()`` reports.
    var capacity: Int { readyFDs.count }

    func add(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {
        try control(0, descriptor, interest, "epoll_ctl(ADD)")
    }

    func modify(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {
        try control(1, descriptor, interest, "epoll_ctl(MOD)")
    }

    /// Removes `descriptor`; it may be closed once this returns.
    func remove(_ descriptor: Int32) {
        _ = try? control(2, descriptor, [], "epoll_ctl(DEL)")
    }

    private func control(_ op: Int32, _ descriptor: Int32, _ interest: IOInterest, _ name: String) throws(SocketError) {
        let readable: UInt32 = interest.contains(.read) ? 1 : 0
        let writable: UInt32 = interest.contains(.write) ? 1 : 0
        _ = try checkedSystemCall(name) { whisker_epoll_control(fd, op, descriptor, readable, writable) }
    }

    /// The descriptors ready now (never blocks), at most ``capacity``; `body` sees each in turn.
    /// - Returns: How many were reported.
    @discardableResult
    func poll(_ body: (IOReadiness) -> Void) -> Int {
        let count = readyFDs.withUnsafeMutableBufferPointer { fds in
            readyEvents.withUnsafeMutableBufferPointer { events in
                whisker_epoll_poll(fd, fds.baseAddress, events.baseAddress, Int32(fds.count))
            }
        }
        guard count > 0 else { return 0 }
        for index in 0..<Int(count) {
            let bits = readyEvents[index]
            body(IOReadiness(
                fd: readyFDs[index],
                isReadable: bits & WHISKER_EPOLL_READABLE != 0,
                isWritable: bits & WHISKER_EPOLL_WRITABLE != 0,
                isFailed: bits & WHISKER_EPOLL_FAILED != 0))
        }
        return Int(count)
    }
}
#else
#if canImport(Darwin)
import Darwin
#endif

/// No epoll here: a worker asked for ``IOBackend/epoll`` throws `ENOSYS` when it is made (the
/// platform's default, ``IOBackend/dispatchSources``, needs no selector of this kind). The members
/// are the Linux selector's, so that the worker reads the same on every platform.
final class EpollSelector {
    let fd: Int32 = -1
    var capacity: Int { 0 }
    init() throws(SocketError) { throw SocketError(call: "epoll_create1", code: ENOSYS) }
    func add(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {}
    func modify(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {}
    func remove(_ descriptor: Int32) {}
    @discardableResult
    func poll(_ body: (IOReadiness) -> Void) -> Int { 0 }
}
#endif
