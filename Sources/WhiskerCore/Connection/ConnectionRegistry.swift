import Dispatch
import Logging
import Synchronization
import WhiskerSockets

/// The open connections of a running server: counts them against the limit, and finds them
/// all for a graceful shutdown.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: QueueBound<Connection>] = [:]
        /// Connections being told they are refused (see ``ConnectionRefusal``).
        var refusing = 0
        var isShuttingDown = false
        var drained: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let context: ServerContext
    private let workers: IOWorkerGroup
    private let memoryRelease = FreedMemoryRelease()

    init(context: ServerContext, workers: IOWorkerGroup) {
        self.context = context
        self.workers = workers
    }

    var count: Int { state.withLock { $0.connections.count } }

    /// Serves an accepted socket (as its listener's `role` says: through TLS, after a PROXY header) on the next worker (in turn), or
    /// refuses it (503, or the refusal of another protocol's client, see ``ConnectionRefusal``) when the server is at its connection limit or shutting down.
    func accept(_ socket: Socket, role: ListenerRole) {
        let socketConnection = SocketConnection(socket: socket, worker: workers.next())
        let queue = socketConnection.queue
        let stream: any ByteStream
        if let wrapper = role.wrapper {
            do {
                stream = try wrapper.wrap(socketConnection, logger: context.logger)
            } catch {
                context.logger.error("cannot set up the connection's stream", metadata: ["peer": "\(socket.peer)", "error": "\(error)"])
                QueueBound(socketConnection, queue: queue).run { $0.close() }
                return
            }
        } else {
            stream = socketConnection
        }
        let connection = Connection(stream: stream, socket: socketConnection, role: role, context: context)
        let id = ObjectIdentifier(connection)
        let admission = state.withLock { state -> Admission in
            if state.isShuttingDown || state.connections.count >= context.configuration.limits.maxConnections {
                guard state.refusing < Self.maxRefusing else { return .dropped }
                state.refusing += 1
                return .refused(state.isShuttingDown ? "the server is shutting down" : "the server is at its connection limit")
            }
            state.connections[id] = QueueBound(connection, queue: queue)
            return .admitted
        }
        let bound = QueueBound(connection, queue: queue)
        switch admission {
        case .admitted: break
        case .refused(let reason):
            context.logger.warning("refusing connection: \(reason)", metadata: ["peer": "\(socket.peer)", "limit": "\(context.configuration.limits.maxConnections)"])
            let refusal = ConnectionRefusal(stream: stream, reason: reason, context: context) { [self] in state.withLock { $0.refusing -= 1 } }
            let deadline = context.configuration.timeouts.tlsHandshake
            QueueBound(refusal, queue: queue).run { $0.start(deadline: deadline) }
            return
        case .dropped:
            bound.run { $0.close() }
            return
        }
        bound.run { [self] connection in
            connection.onClose = { [self] in remove(id) }
            connection.start()
        }
    }

    private enum Admission {
        case admitted, refused(String), dropped
    }

    /// The most connections told at once that they are refused; past it, new ones are closed
    /// without a word (a flood gets no more of the server than that).
    static let maxRefusing = 256

    private func remove(_ id: ObjectIdentifier) {
        memoryRelease.connectionClosed()
        let drained: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.connections[id] = nil
            guard state.isShuttingDown, state.connections.isEmpty else { return nil }
            defer { state.drained = nil }
            return state.drained
        }
        drained?.resume()
    }

    /// Asks every connection to finish what it is doing and close; returns when all have closed.
    /// Connections still open after the grace period, or when the calling task is cancelled, are
    /// closed at once (their handlers cancelled).
    func shutdown(gracePeriod: Duration) async {
        let connections = state.withLock { state in
            state.isShuttingDown = true
            return Array(state.connections.values)
        }
        for connection in connections { connection.run { $0.beginShutdown() } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitUntilDrained() }
            group.addTask {
                // Ends early when the server's task is cancelled: then nothing waits any longer.
                try? await Task.sleep(for: gracePeriod)
                self.closeRemaining()
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func closeRemaining() {
        let remaining = state.withLock { Array($0.connections.values) }
        guard !remaining.isEmpty else { return }
        let why = Task.isCancelled ? "the server's task was cancelled" : "the shutdown grace period is over"
        context.logger.warning("closing connections still busy: \(why)", metadata: ["count": "\(remaining.count)"])
        for connection in remaining { connection.run { $0.close() } }
    }

    private func waitUntilDrained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.connections.isEmpty { return true }
                state.drained = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
