public import ServiceLifecycle
public import WhiskerCore

/// A ``WhiskerCore/WhiskerServer`` is a swift-service-lifecycle `Service`: run it in a
/// `ServiceGroup` next to the rest of your application, and SIGTERM drains it.
///
///     let server = WhiskerServer(configuration: .init(host: "0.0.0.0", port: 8080))
///     try handler.registerHandlers(on: WhiskerTransport(server), serverURL: Servers.Server1.url())
///     let group = ServiceGroup(configuration: .init(
///         services: [server],
///         gracefulShutdownSignals: [.sigterm, .sigint],
///         logger: logger))
///     try await group.run()
///
/// A graceful shutdown of the group is the server's ``/WhiskerCore/WhiskerServer/shutdown()``: the
/// listeners close, idle connections close, and every request already received is answered
/// (HTTP/1.1 with `Connection: close`, HTTP/2 after a GOAWAY) within
/// ``/WhiskerCore/WhiskerServer/Timeouts/shutdownGracePeriod``. When the group then cancels the
/// server (its `maximumGracefulShutdownDuration` is over, or another service failed), what is
/// left closes at once and its handlers are cancelled.
extension WhiskerServer: Service {
    /// Serves until the group shuts down gracefully or cancels; see ``/WhiskerCore/WhiskerServer/run(onListening:)``.
    /// To learn the bound addresses (port 0), await ``/WhiskerCore/WhiskerServer/listeningAddresses()``.
    public func run() async throws {
        try await withGracefulShutdownHandler {
            try await run(onListening: { _ in })
        } onGracefulShutdown: {
            Task { await self.shutdown() }
        }
    }
}
