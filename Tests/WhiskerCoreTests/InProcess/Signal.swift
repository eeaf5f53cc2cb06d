/// A one-shot event a test can await: a handler fires it, the test waits for it (bounded), so
/// no test sleeps to synchronise.
final class Signal<Value: Sendable>: Sendable {
    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    }

    func fire(_ value: Value) { continuation.yield(value) }

    /// The next value, or `nil` if none arrives within `timeout` (a guard against hanging, not a clock).
    func wait(timeout: Duration = .seconds(10)) async -> Value? {
        let stream = self.stream
        return await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension Signal where Value == Void {
    func fire() { fire(()) }
}
