import Dispatch
import Synchronization

/// Ends lingering closes that outlive their deadline, for every connection in the process, with
/// at most one pending timer.
///
/// A lingering close usually ends within a round trip, when the peer closes its side. Giving each
/// one its own `asyncAfter` kept every closed connection alive until its deadline (10,000 of them
/// at 5,000 connections a second with a 2 s linger: about 16 MB, and a timer heap of that size).
/// Here a connection is held weakly, its entry is removed when it closes, and one timer on a
/// private queue wakes for the earliest deadline, so a connection is freed as soon as it closes.
final class LingerDeadlines: Sendable {
    /// The process-wide instance.
    static let shared = LingerDeadlines()

    private struct Entry {
        let deadline: DispatchTime
        let connection: WeakConnection
    }

    private struct State: ~Copyable {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The deadline the pending timer wakes for, if one is pending.
        var wakeAt: DispatchTime?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "whisker.linger-deadlines")

    /// Closes `connection` on its queue at `deadline` unless ``remove(_:)`` comes first (a
    /// draining one is looked at again instead: `SocketConnection.lingerDeadlinePassed()`).
    func add(_ connection: SocketConnection, deadline: DispatchTime) {
        let entry = Entry(deadline: deadline, connection: WeakConnection(connection))
        let schedule = state.withLock { state -> Bool in
            state.entries[ObjectIdentifier(connection)] = entry
            guard state.wakeAt.map({ deadline < $0 }) ?? true else { return false }
            state.wakeAt = deadline
            return true
        }
        if schedule { queue.asyncAfter(deadline: deadline) { self.expire() } }
    }

    /// Forgets `connection`: it closed before its deadline.
    func remove(_ connection: SocketConnection) {
        _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Whether `connection` is waiting for its deadline (for tests).
    func contains(_ connection: SocketConnection) -> Bool {
        state.withLock { $0.entries[ObjectIdentifier(connection)] != nil }
    }

    private func expire() {
        let now = DispatchTime.now()
        let (expired, next) = state.withLock { state -> ([WeakConnection], DispatchTime?) in
            var expired: [WeakConnection] = []
            var next: DispatchTime?
            for (id, entry) in state.entries {
                if entry.deadline <= now {
                    expired.append(entry.connection)
                    state.entries[id] = nil
                } else if next.map({ entry.deadline < $0 }) ?? true {
                    next = entry.deadline
                }
            }
            // A timer for an earlier deadline may already be pending; a second one is harmless.
            state.wakeAt = next
            return (expired, next)
        }
        for connection in expired { connection.closeOnItsQueue() }
        if let next { queue.asyncAfter(deadline: next) { self.expire() } }
    }
}

/// A weak reference to a connection that may be carried to the connection's queue and used there.
/// `@unchecked Sendable` is sound: off the queue only the weak reference is loaded (an atomic
/// operation), and the connection itself is touched only inside `queue.async`.
private struct WeakConnection: @unchecked Sendable {
    weak var connection: SocketConnection?
    let queue: DispatchQueue

    init(_ connection: SocketConnection) {
        self.connection = connection
        self.queue = connection.queue
    }

    func closeOnItsQueue() {
        let weakSelf = self
        queue.async { weakSelf.connection?.lingerDeadlinePassed() }
    }
}
