import Dispatch
import Synchronization
import WhiskerSockets

/// Runs `operation` in a task of its own and returns its result, or `nil` as soon as `deadline`
/// passes first: then that task is cancelled and, unless `awaitingCancelledWork`, left to end when
/// it notices (its result, if it ever has one, is dropped). The caller is answered at the deadline
/// even by a handler that never looks at cancellation (a blocking call, a loop). Cancelling the
/// caller cancels the operation.
///
/// A deadline is usually beaten, and then it costs nothing more: its timer is a ``DeadlineTimer``,
/// freed when the work ends. (A task sleeping until the deadline, cancelled, kept ~1.4 KB until
/// the instant passed: with a 600 s deadline, 9,766 requests a second held 13 MB more each second.)
///
/// The operation's task inherits the caller's task-local values (`RequestContext.current`).
///
/// - Parameters:
///   - deadline: When the caller is answered `nil` if the operation has not ended.
///   - awaitingCancelledWork: Whether to wait, after the deadline or the caller's cancellation,
///     until the cancelled operation has ended: for work that must not outlive the call (one
///     that writes a response body).
///   - operation: The work.
package func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, awaitingCancelledWork: Bool = false, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let race = DeadlineRace<T>()
    let work = Task { race.finish(await Result<T?, any Error> { try await operation() }) }
    let timer = DeadlineTimer(at: deadline) { race.finish(.success(nil)) }
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in race.wait(continuation) }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
    timer.cancel()
    // Not the work's own result: the deadline passed, or the caller was cancelled.
    if case .success(.some) = result {} else {
        work.cancel()
        if awaitingCancelledWork { await work.value }
    }
    return try result.get()
}

/// A one-shot Dispatch timer that calls its handler on a global queue at a deadline, unless it is
/// cancelled first. Cancelling frees it at once (a Dispatch source is released when cancelled, not
/// when it fires), so a timer that is almost always beaten costs nothing once it is.
///
/// `@unchecked Sendable`: it only holds a Dispatch source, whose `cancel` any thread may call.
final class DeadlineTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    /// A started timer that calls `handler` at `deadline` (at once if it has passed).
    init(at deadline: ContinuousClock.Instant, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: DispatchTime.now().adding(ContinuousClock.now.duration(to: deadline)), leeway: .milliseconds(10))
        source.setEventHandler(handler: handler)
        source.activate()
    }

    /// Stops the timer, if it has not fired, and frees it. Call it once the timer is not needed,
    /// fired or not.
    func cancel() {
        source.cancel()
    }
}

/// Whichever of the work, the timer and the caller's cancellation comes first, once.
private final class DeadlineRace<T: Sendable>: Sendable {
    private enum State {
        case running
        case waiting(CheckedContinuation<Result<T?, any Error>, Never>)
        case finished(Result<T?, any Error>)
        case delivered
    }

    private let state = Mutex(State.running)

    func wait(_ continuation: CheckedContinuation<Result<T?, any Error>, Never>) {
        let ready: Result<T?, any Error>? = state.withLock { state in
            guard case .finished(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .delivered
            return result
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func finish(_ result: Result<T?, any Error>) {
        let waiter: CheckedContinuation<Result<T?, any Error>, Never>? = state.withLock { state in
            switch state {
            case .running:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .finished, .delivered:
                return nil
            }
        }
        waiter?.resume(returning: result)
    }
}

extension Result where Failure == any Error {
    /// The result of `body`, its error caught.
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
