import Dispatch
import Testing
@testable import WhiskerSockets

/// Connection deadlines in the worker's heap: they fire in deadline order whatever order they
/// were armed in, a cancelled one never fires and leaves the heap at once, and arming later than
/// the armed deadline changes nothing until it fires and `isDue` re-arms.
@Suite(.timeLimit(.minutes(1))) struct ConnectionTimerTests {
    @Test(arguments: IOBackend.allForTests) func timers_FireInDeadlineOrder_AndCancelledOnesNever(backend: IOBackend) async throws {
        let worker = try IOWorker(backend: backend)
        let fired = AsyncStream.makeStream(of: String.self)
        let bound = QueueBound(worker, queue: worker.queue)
        bound.run { worker in
            let now = DispatchTime.now()
            var timers: [ConnectionTimer] = []  // local: armed timers live in the heap
            for (name, delay) in [("late", 300), ("early", 100), ("cancelled", 200), ("moved", 900)] {
                let timer = ConnectionTimer(worker: worker)
                timer.start { fired.continuation.yield(name) }
                timer.arm(now + .milliseconds(delay))
                timers.append(timer)
            }
            timers[3].arm(now + .milliseconds(50))  // earlier: moves up
            timers[1].arm(now + .seconds(60))  // later: ignored until it fires
            timers[2].cancel()
            fired.continuation.yield("armed \(worker.deadlines.count)")
            // The heap holds armed timers; once they have fired it holds none.
            worker.queue.asyncAfter(deadline: now + .milliseconds(600)) {
                fired.continuation.yield("left \(worker.deadlines.count)")
            }
        }
        var events: [String] = []
        for await event in fired.stream {
            events.append(event)
            if event.hasPrefix("left") { break }
        }
        #expect(events == ["armed 3", "moved", "early", "late", "left 0"])
    }
}
