import OpenAPIRuntime

/// The events of `GET /emoji/stream`: `count` server-sent events, each the `data` of one cat chosen
/// at random, with `id` 1, 2, ... The first is due at once and event `n` at `interval × (n - 1)`
/// after it, on the continuous clock: a late event does not push the ones after it back.
///
/// Waiting is `Task.sleep`, so cancelling the handler's task (the client went away) ends the
/// sequence at once with `CancellationError`.
struct CatEvents: AsyncSequence, Sendable {
    typealias Element = ServerSentEvent

    /// How many events.
    let count: Int
    /// The time between two events.
    let interval: Duration

    func makeAsyncIterator() -> Iterator {
        Iterator(count: count, interval: interval)
    }

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        let interval: Duration
        private var sent = 0
        private var start: ContinuousClock.Instant?

        init(count: Int, interval: Duration) {
            self.count = count
            self.interval = interval
        }

        mutating func next() async throws -> ServerSentEvent? {
            guard sent < count else { return nil }
            if let start {
                try await Task.sleep(until: start + interval * sent, clock: .continuous)
            } else {
                start = .now
            }
            sent += 1
            return ServerSentEvent(id: String(sent), data: String(CatHandler.cats.randomElement()!))
        }
    }
}
