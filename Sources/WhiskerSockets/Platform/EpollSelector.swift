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
/// keyed by its descriptor, and the worker's wake-up descriptor (an eventfd) in it. This is the seam
/// a kqueue sibling (for macOS development) would stand beside, as SwiftNIO keeps `SelectorEpoll`
/// and `SelectorKqueue`.
///
/// Level-triggered means a descriptor is reported at every poll while it is ready, so a reader
/// may take what it needs and leave the rest; interest changes are one `epoll_ctl` each and happen
/// only when a connection pauses reading or a write blocks, never per request. It also means a
/// readiness that is dropped (see `IOWorker`'s descriptors registered since the last poll) is
/// reported again by the next poll.
///
/// Threads: ``add(_:interest:)``, ``modify(_:interest:)`` and ``remove(_:)`` run on the worker's
/// queue; ``wait(timeout:)`` and ``forEachReady(_:_:)`` on the worker's thread only, or with
/// ``IOBackend/dispatchSources`` (Linux) on the queue only (they share the ready buffers);
/// ``wake()`` anywhere. The kernel serializes `epoll_ctl` against `epoll_wait`.
final class EpollSelector: @unchecked Sendable {
    // `@unchecked Sendable`: the descriptors are immutable; the ready buffers are used by the
    // worker's thread only (see above), and everything else is a system call on an epoll set.
    /// The epoll descriptor.
    let fd: Int32
    /// The eventfd that ``wake()`` makes readable; reported by no poll, only by ``wait(timeout:)``'s
    /// ``wasWoken``.
    private let wakeFD: Int32
    private var readyFDs: [Int32]
    private var readyEvents: [UInt32]

    /// - Parameter capacity: The most descriptors one ``wait(timeout:)`` reports.
    init(capacity: Int = 64) throws(SocketError) {
        fd = try checkedSystemCall("epoll_create1") { whisker_epoll_create() }
        do throws(SocketError) {
            wakeFD = try checkedSystemCall("eventfd") { whisker_eventfd() }
        } catch {
            close(fd)
            throw error
        }
        readyFDs = Array(repeating: 0, count: capacity)
        readyEvents = Array(repeating: 0, count: capacity)
        do throws(SocketError) {
            try add(wakeFD, interest: .read)
        } catch {
            close(wakeFD)
            close(fd)
            throw error
        }
    }

    deinit {
        close(fd)
        close(wakeFD)
    }

    /// The most descriptors one ``wait(timeout:)`` reports.
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

    /// Makes every ``wait(timeout:)`` from now on return at once with ``wasWoken`` set: how a
    /// worker that goes away ends its thread. It is never reset.
    func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Whether the last ``wait(timeout:)`` found the wake-up descriptor readable.
    private(set) var wasWoken = false

    /// Waits up to `timeout` milliseconds (-1: until something is ready, 0: not at all) and keeps
    /// what is ready, at most ``capacity`` descriptors, for ``forEachReady(_:_:)``.
    /// - Returns: How many descriptors were reported (the wake-up descriptor included; 0 when a
    ///   signal interrupted the wait).
    func wait(timeout: Int32) -> Int {
        let count = readyFDs.withUnsafeMutableBufferPointer { fds in
            readyEvents.withUnsafeMutableBufferPointer { events in
                whisker_epoll_wait(fd, fds.baseAddress, events.baseAddress, Int32(fds.count), timeout)
            }
        }
        guard count > 0 else { return 0 }
        // A plain loop: a slice's `contains` allocated in debug builds, at every wake-up.
        for index in 0..<Int(count) where readyFDs[index] == wakeFD { wasWoken = true }
        return Int(count)
    }

    /// Shows `body` each of the first `count` descriptors the last ``wait(timeout:)`` kept, but the
    /// wake-up descriptor.
    func forEachReady(_ count: Int, _ body: (IOReadiness) -> Void) {
        for index in 0..<count where readyFDs[index] != wakeFD {
            let bits = readyEvents[index]
            body(IOReadiness(
                fd: readyFDs[index],
                isReadable: bits & WHISKER_EPOLL_READABLE != 0,
                isWritable: bits & WHISKER_EPOLL_WRITABLE != 0,
                isFailed: bits & WHISKER_EPOLL_FAILED != 0))
        }
    }
}
#else
#if canImport(Darwin)
import Darwin
#endif

/// No epoll here: a worker asked for ``IOBackend/epoll`` throws `ENOSYS` when it is made (the
/// platform's default, ``IOBackend/dispatchSources``, needs no selector of this kind). The members
/// are the Linux selector's, so that the worker reads the same on every platform.
final class EpollSelector: Sendable {
    let fd: Int32 = -1
    var capacity: Int { 0 }
    var wasWoken: Bool { true }
    init() throws(SocketError) { throw SocketError(call: "epoll_create1", code: ENOSYS) }
    func add(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {}
    func modify(_ descriptor: Int32, interest: IOInterest) throws(SocketError) {}
    func remove(_ descriptor: Int32) {}
    func wake() {}
    func wait(timeout: Int32) -> Int { 0 }
    func forEachReady(_ count: Int, _ body: (IOReadiness) -> Void) {}
}
#endif
