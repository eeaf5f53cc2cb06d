#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// The ``IOBackend/dispatchSources`` readiness mechanism of an ``IOWorker``: per registered
/// descriptor, a Dispatch read source and a Dispatch write source on the worker's queue, each
/// resumed while its interest is wanted and suspended otherwise (a resumed write source on a
/// writable socket would fire without end). Every event is delivered as an ``IOReadiness`` to the
/// registration's handler, on the queue, as the epoll selector's are; an end of stream or a reset
/// shows up as readable, and the read finds it.
///
/// Lifetime: libdispatch must not watch a descriptor that is closed (its number may be reused
/// meanwhile), so a registration ends with ``removeAndClose(_:)``: both sources are resumed if
/// suspended (a suspended source never runs its cancel handler) and cancelled, and the descriptor
/// is closed by whichever cancel handler runs second. Until then the number is not free, so a new
/// connection cannot get it while an old source still watches it; and each event handler checks
/// that its own registration is still the live one, so nothing is delivered after removal.
///
/// Used only on the worker's queue, by workers on Darwin (kqueue). Linux's workers do not hand
/// libdispatch their sockets (see ``IOBackend/dispatchSources``); the selector is built there too,
/// and its tests run there, with no hang-up racing a removal.
final class DispatchSourceSelector {
    private let queue: DispatchQueue
    private var registrations: [Int32: Registration] = [:]

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    deinit {
        // A worker goes only once nothing is registered (a handler holds its worker); should one
        // remain, its sources are cancelled without closing a descriptor the worker does not own.
        for registration in registrations.values { registration.cancel(closing: false, then: nil) }
    }

    /// How many descriptors are registered.
    var count: Int { registrations.count }

    func add(_ fd: Int32, interest: IOInterest, handler: any IOReadinessHandler) {
        // A number registered twice (never, as epoll would refuse it): the old sources are
        // cancelled, not dropped, since releasing a suspended source is an error in libdispatch.
        registrations[fd]?.cancel(closing: false, then: nil)
        let registration = Registration(fd: fd, queue: queue, handler: handler)
        registrations[fd] = registration
        registration.setInterest(interest)
    }

    func modify(_ fd: Int32, interest: IOInterest) {
        registrations[fd]?.setInterest(interest)
    }

    /// Ends `fd`'s registration and closes it once both its sources are cancelled (on the queue,
    /// soon after this returns); no readiness of it is delivered after this. A descriptor that is
    /// not registered is closed at once. `onClosed` runs on the queue once it is closed.
    func removeAndClose(_ fd: Int32, then onClosed: (() -> Void)?) {
        guard let registration = registrations.removeValue(forKey: fd) else {
            close(fd)
            onClosed?()
            return
        }
        registration.cancel(closing: true, then: onClosed)
    }

    /// One descriptor's two sources and the handler they report to.
    private final class Registration {
        let fd: Int32
        let readSource: any DispatchSourceRead
        let writeSource: any DispatchSourceWrite
        /// `nil` once removed: an event already queued finds it gone and is dropped.
        var handler: (any IOReadinessHandler)?
        private var isReadResumed = false
        private var isWriteResumed = false

        init(fd: Int32, queue: DispatchQueue, handler: any IOReadinessHandler) {
            self.fd = fd
            self.handler = handler
            readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            // Weak: the sources belong to the registration, not the other way round.
            readSource.setEventHandler { [weak self] in
                self?.handler?.handle(IOReadiness(fd: fd, isReadable: true, isWritable: false, isFailed: false))
            }
            writeSource.setEventHandler { [weak self] in
                self?.handler?.handle(IOReadiness(fd: fd, isReadable: false, isWritable: true, isFailed: false))
            }
        }

        /// Resumes the sources of what is wanted and suspends the others (a new source starts
        /// suspended, as `DispatchSource` makes it).
        func setInterest(_ interest: IOInterest) {
            let read = interest.contains(.read)
            if read != isReadResumed {
                isReadResumed = read
                if read { readSource.resume() } else { readSource.suspend() }
            }
            let write = interest.contains(.write)
            if write != isWriteResumed {
                isWriteResumed = write
                if write { writeSource.resume() } else { writeSource.suspend() }
            }
        }

        /// Stops delivery and cancels both sources; with `closing`, the second cancel handler
        /// closes the descriptor (both run on the queue, one after the other).
        func cancel(closing: Bool, then onClosed: (() -> Void)?) {
            handler = nil
            let closer = Closer(fd: closing ? fd : -1, onClosed: onClosed)
            readSource.setCancelHandler { closer.sourceCancelled() }
            writeSource.setCancelHandler { closer.sourceCancelled() }
            // A suspended source is resumed first: its cancel handler runs only once it is resumed.
            // Its event handler does not run after `cancel()`, and would find no handler anyway.
            if !isReadResumed { isReadResumed = true; readSource.resume() }
            if !isWriteResumed { isWriteResumed = true; writeSource.resume() }
            readSource.cancel()
            writeSource.cancel()
        }
    }

    /// Closes a descriptor once both of its sources' cancel handlers ran (on the worker's queue).
    private final class Closer {
        let fd: Int32
        private var onClosed: (() -> Void)?
        private var remaining = 2

        init(fd: Int32, onClosed: (() -> Void)?) {
            self.fd = fd
            self.onClosed = onClosed
        }

        func sourceCancelled() {
            remaining -= 1
            guard remaining == 0 else { return }
            if fd >= 0 { close(fd) }
            onClosed?()
            onClosed = nil
        }
    }
}
