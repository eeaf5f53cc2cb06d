public import Dispatch

/// A reference that can be sent anywhere but is only ever used on its queue.
///
/// This is the one way code off a connection's queue (a handler's task, a timer) reaches a connection:
/// ``run(_:)`` enqueues the work on the queue that owns the value, so the value's state is never
/// touched from two threads. That is why the `@unchecked Sendable` is sound.
public struct QueueBound<Value: AnyObject>: @unchecked Sendable {
    private let value: Value
    /// The queue that owns the value.
    public let queue: DispatchQueue

    /// Binds `value` to `queue`; from now on use the value only through ``run(_:)`` or on the queue.
    public init(_ value: Value, queue: DispatchQueue) {
        self.value = value
        self.queue = queue
    }

    /// Runs `body` with the value on the value's queue.
    public func run(_ body: @escaping @Sendable (Value) -> Void) {
        let value = UncheckedBox(value)
        queue.async { body(value.value) }
    }
}

/// Carries a non-Sendable value into a `@Sendable` closure that runs on the value's own queue.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
