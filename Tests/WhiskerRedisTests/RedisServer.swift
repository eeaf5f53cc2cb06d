import Dispatch
import Foundation
import Synchronization

/// A real `redis-server` (Debian's, from `make deps`) on a Unix domain socket of its own, with no
/// persistence: started by a test, stopped (or killed, or paused) by it.
final class RedisServer: @unchecked Sendable {
    let socket: String
    private let directory: URL
    private var process: Process?

    /// Starts one and waits until it says it accepts connections.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("whisker-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socket = directory.appendingPathComponent("redis.sock").path
        try start()
    }

    /// Starts the server on the same socket (after ``kill()``), waiting for its "Ready" line.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "redis-server", "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700",
            "--save", "", "--appendonly", "no", "--dir", directory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        self.process = process
        // Bounded: a server not ready in 10 s is killed, which ends the pipe and the wait.
        let ready = Atomic(false)
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) { if !ready.load(ordering: .relaxed) { Foundation.kill(pid, SIGKILL) } }
        var seen = ""
        // "Ready to accept connections tcp" (7.0 on TCP), "ready to accept connections at PATH".
        while !seen.lowercased().contains("ready to accept connections") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw RedisServerFailed(description: "redis-server (make deps installs it) ended before it was ready: \(seen)")
            }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        ready.store(true, ordering: .relaxed)
        // Its later log lines go nowhere: a full pipe must never block it.
        output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
    }

    /// Ends the server at once (SIGKILL), as a crash would, and waits until it is gone.
    func kill() {
        guard let process else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the server: a Redis that holds its connections and
    /// answers nothing.
    func pause(_ paused: Bool) {
        guard let process else { return }
        Foundation.kill(process.processIdentifier, paused ? SIGSTOP : SIGCONT)
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }
}

struct RedisServerFailed: Error, CustomStringConvertible {
    let description: String
}
