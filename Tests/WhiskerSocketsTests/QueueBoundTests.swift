import Dispatch
import Testing
import WhiskerSockets

@Suite struct QueueBoundTests {
    private final class Box {}

    /// The value is handed out on its own (marked) queue only: not on another thread, not on
    /// another marked queue, not on its queue before that queue was marked.
    @Test func valueIfOnQueue_IsTheValueOnItsMarkedQueueOnly() {
        let box = Box()
        let queue = DispatchQueue(label: "QueueBoundTests.own")
        let other = DispatchQueue(label: "QueueBoundTests.other")
        let bound = QueueBound(box, queue: queue)
        #expect(queue.sync { bound.valueIfOnQueue } == nil, "an unmarked queue cannot be told")
        QueueBound<Box>.markOwned(queue)
        QueueBound<Box>.markOwned(other)
        #expect(bound.valueIfOnQueue == nil, "off the queue")
        #expect(other.sync { bound.valueIfOnQueue } == nil, "on another marked queue")
        #expect(queue.sync { bound.valueIfOnQueue } === box)
    }
}
