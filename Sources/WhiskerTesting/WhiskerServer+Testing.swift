public import WhiskerCore

extension WhiskerServer {
    /// Runs the server on a free port of 127.0.0.1 (port 0), calls `body` with its address once it
    /// accepts connections, then shuts it down gracefully and waits until it has stopped.
    ///
    ///     try await server.withRunning { address in
    ///         let client = try await TestClient.connect(to: address)
    ///         ...
    ///     }
    ///
    /// Make the server with `port: 0` (see ``/WhiskerCore/WhiskerServer/Configuration``).
    @discardableResult
    public nonisolated func withRunning<Result: Sendable>(_ body: @Sendable (SocketAddress) async throws -> Result) async throws -> Result {
        try await withRunningAddresses { try await body($0[0]) }
    }

    /// Like ``withRunning(_:)``, with every bound address: the cleartext listener's first, then
    /// the HTTPS listener's.
    @discardableResult
    public nonisolated func withRunningAddresses<Result: Sendable>(_ body: @Sendable ([SocketAddress]) async throws -> Result) async throws -> Result {
        let (addresses, continuation) = AsyncStream.makeStream(of: [SocketAddress].self)
        let runTask = Task {
            try await self.run { bound in
                continuation.yield(bound)
                continuation.finish()
            }
        }
        var iterator = addresses.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await runTask.value
            throw CancellationError()
        }
        do {
            let result = try await body(bound)
            await shutdown()
            try await runTask.value
            return result
        } catch {
            await shutdown()
            try? await runTask.value
            throw error
        }
    }
}
