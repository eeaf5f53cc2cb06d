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
    /// Make the server with `port: 0` (see ``WhiskerServer/Configuration``).
    public nonisolated func withRunning<Result: Sendable>(_ body: @Sendable (SocketAddress) async throws -> Result) async throws -> Result {
        let (addresses, continuation) = AsyncStream.makeStream(of: SocketAddress.self)
        let runTask = Task {
            try await self.run { bound in
                if let first = bound.first { continuation.yield(first) }
                continuation.finish()
            }
        }
        var iterator = addresses.makeAsyncIterator()
        guard let address = await iterator.next() else {
            try await runTask.value
            throw CancellationError()
        }
        do {
            let result = try await body(address)
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
