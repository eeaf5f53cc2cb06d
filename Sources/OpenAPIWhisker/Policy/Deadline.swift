import Synchronization

/// Runs `operation` in a task of its own and returns its result, or `nil` as soon as `deadline`
/// passes first: then that task is cancelled and left to end when it notices (its result, if it
/// ever has one, is dropped). The caller is answered at the deadline even by a handler that never
/// looks at cancellation (a blocking call, a loop). Cancelling the caller cancels the operation.
///
/// The operation's task inherits the caller's task-local values (``RequestContext/current``).
func withDeadline<T: Sendable>(
    _ deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let race = DeadlineRace<T>()
    let work = Task { race.finish(await Result<T?, any Error> { try await operation() }) }
    let timer = Task {
        // Cancelled: the work finished first, and nothing is left to do.
        guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
        race.finish(.success(nil))
    }
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in race.wait(continuation) }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
    timer.cancel()
    // Not the work's own result: the deadline passed, or the caller was cancelled.
    if case .success(.some) = result {} else { work.cancel() }
    return try result.get()
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
