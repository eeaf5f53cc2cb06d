/// An event a test can await: a handler fires it, the test waits for it (bounded), so no test
/// sleeps to synchronise.
///
///     let started = Signal<Void>()
///     try server.register(method: .get, path: "/slow") { _ in
///         started.fire()
///         ...
///     }
///     #expect(await started.wait() != nil, "the handler started")
public final class Signal<Value: Sendable>: Sendable {
    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    /// Creates an event that nothing has fired yet.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self)
    }

    /// Fires the event with `value`; each `fire` is seen by one `wait`.
    public func fire(_ value: Value) { continuation.yield(value) }

    /// The next value, or `nil` if none arrives within `timeout` (a guard against hanging, not a clock).
    public func wait(timeout: Duration = .seconds(10)) async -> Value? {
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
    /// Fires an event that carries no value.
    public func fire() { fire(()) }
}
