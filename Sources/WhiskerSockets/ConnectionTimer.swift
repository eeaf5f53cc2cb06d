package import Dispatch

/// One connection's deadline, kept in its worker's ``WorkerDeadlines`` instead of a Dispatch timer
/// of its own: arming is a heap update on the worker's queue (no system call, no object in
/// libdispatch), and the worker's single Dispatch timer fires for the earliest deadline of all.
///
/// It is armed lazily: moving a deadline later costs nothing (the timer fires at the old
/// deadline, the connection finds the new one with ``isDue(_:)``, which re-arms), so the hot path
/// only records timestamps and a connection's timer fires at most about once per timeout period.
/// Use it on the worker's queue only.
package final class ConnectionTimer {
    private let worker: IOWorker
    private var handler: (() -> Void)?
    private var isCancelled = false
    /// The deadline it is armed for (then it is in the worker's heap, at `heapIndex`).
    fileprivate(set) var armedDeadline: DispatchTime?
    var heapIndex = -1

    package init(worker: IOWorker) {
        self.worker = worker
    }

    /// Sets what runs (on the worker's queue) when an armed deadline passes.
    package func start(_ handler: @escaping () -> Void) {
        guard !isCancelled else { return }
        self.handler = handler
    }

    /// Makes sure the handler runs no later than `deadline` (give or take the worker timer's
    /// 100 ms leeway).
    package func arm(_ deadline: DispatchTime) {
        guard !isCancelled, handler != nil else { return }
        if let armedDeadline, armedDeadline <= deadline { return }
        armedDeadline = deadline
        worker.deadlines.schedule(self)
    }

    /// Whether `deadline` has passed; if not (the timer fired for an earlier deadline that has
    /// since moved), re-arms for it.
    package func isDue(_ deadline: DispatchTime) -> Bool {
        guard DispatchTime.now() < deadline else { return true }
        arm(deadline)
        return false
    }

    /// Stops it for good; it leaves the worker's heap at once.
    package func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        handler = nil
        if armedDeadline != nil {
            worker.deadlines.remove(self)
            armedDeadline = nil
        }
    }

    /// Called by the worker once the armed deadline passed (it has left the heap).
    func fire() {
        armedDeadline = nil
        handler?()
    }
}

/// The armed deadlines of one worker's connections: a binary min-heap in which each
/// ``ConnectionTimer`` knows its position (so arming earlier and cancelling are O(log n)), and one
/// Dispatch timer, re-scheduled only when the earliest deadline of all moves earlier.
final class WorkerDeadlines {
    private var heap: [ConnectionTimer] = []
    private let source: any DispatchSourceTimer
    private var scheduledFor: DispatchTime?

    init(queue: DispatchQueue) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
    }

    deinit { source.cancel() }

    /// How many timers are armed (for tests).
    var count: Int { heap.count }

    /// Inserts `timer`, or moves it up after its deadline moved earlier.
    func schedule(_ timer: ConnectionTimer) {
        if timer.heapIndex < 0 {
            timer.heapIndex = heap.count
            heap.append(timer)
        }
        siftUp(timer.heapIndex)
        guard let deadline = timer.armedDeadline, heap[0] === timer else { return }
        if let scheduledFor, scheduledFor <= deadline { return }
        scheduledFor = deadline
        source.schedule(deadline: deadline, leeway: .milliseconds(100))
    }

    /// Takes `timer` out (the Dispatch timer may then fire for nothing, which is harmless).
    func remove(_ timer: ConnectionTimer) {
        let index = timer.heapIndex
        guard index >= 0 else { return }
        timer.heapIndex = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        last.heapIndex = index
        siftDown(index)
        siftUp(last.heapIndex)
    }

    private func fire() {
        scheduledFor = nil
        let now = DispatchTime.now()
        while let first = heap.first, let deadline = first.armedDeadline, deadline <= now {
            remove(first)
            first.fire()
        }
        if let next = heap.first?.armedDeadline, scheduledFor.map({ next < $0 }) ?? true {
            scheduledFor = next
            source.schedule(deadline: next, leeway: .milliseconds(100))
        }
    }

    private func isEarlier(_ a: Int, _ b: Int) -> Bool {
        heap[a].armedDeadline! < heap[b].armedDeadline!
    }

    private func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        heap[a].heapIndex = a
        heap[b].heapIndex = b
    }

    private func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard isEarlier(index, parent) else { return }
            swapAt(index, parent)
            index = parent
        }
    }

    private func siftDown(_ start: Int) {
        var index = start
        while true {
            let left = 2 * index + 1, right = left + 1
            var smallest = index
            if left < heap.count, isEarlier(left, smallest) { smallest = left }
            if right < heap.count, isEarlier(right, smallest) { smallest = right }
            guard smallest != index else { return }
            swapAt(index, smallest)
            index = smallest
        }
    }
}
