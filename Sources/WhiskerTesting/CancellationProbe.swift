import HTTPTypes
public import WhiskerCore

/// A handler for tests about cancellation: it fires ``started`` when it begins, then waits until
/// its task is cancelled (two minutes at most) and fires ``cancelled`` when that happens.
///
///     let probe = CancellationProbe()
///     try server.register(method: .get, path: "/slow", handler: probe.handler)
///     ... send the request ...
///     #expect(await probe.started.wait() != nil)
///     ... disconnect, reset the stream, or stop the server ...
///     #expect(await probe.cancelled.wait() != nil, "the handler's task was cancelled")
public struct CancellationProbe: Sendable {
    /// Fired when the handler starts.
    public let started = Signal<Void>()
    /// Fired when the handler's task is cancelled.
    public let cancelled = Signal<Void>()

    /// Creates a probe whose handler has not run yet.
    public init() {}

    /// The handler to register; it answers 200 if it is ever let go without a cancellation.
    public var handler: HTTPHandler {
        { [started, cancelled] _ in
            started.fire()
            await withTaskCancellationHandler {
                _ = await Signal<Void>().wait(timeout: .seconds(120))
            } onCancel: {
                cancelled.fire()
            }
            return Response(status: .ok)
        }
    }
}
