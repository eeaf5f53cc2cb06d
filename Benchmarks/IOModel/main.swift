// Which libdispatch I/O model should a connection use? The same minimal keep-alive HTTP server
// (a fixed 13-byte response per request) written four times: with a read source per connection
// over non-blocking syscalls, with a DispatchIO stream channel, with a few epoll workers
// (Epoll.swift: one queue and one epoll set each, one read source on the epoll descriptor), and
// with a few event-loop threads (Loop.swift: a thread blocking in epoll_wait each). `epoll-tasks`
// and `loop-tasks` answer each request from a Swift task preferring the worker, as Whisker does.
// Build: swiftc -O *.swift -o io-model
// Run: ./io-model sources|io|epoll|epoll-tasks|loop|loop-tasks PORT [WORKERS]
// Load: wrk on loopback; measure.sh runs the comparison.
// This is a measurement aid, not part of the library; see README.md beside it for the results.
import Dispatch
import Glibc

let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nHello, World!".utf8)
let terminator = Array("\r\n\r\n".utf8)

/// Counts complete request heads in `bytes` from `start`, returns (count, index after the last one).
func completeHeads(_ bytes: [UInt8], from start: Int) -> (Int, Int) {
    var count = 0
    var consumed = start
    var index = start
    while index + 3 < bytes.count {
        if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            count += 1
            index += 4
            consumed = index
        } else {
            index += 1
        }
    }
    return (count, consumed)
}

final class SourceConnection {
    let fd: Int32
    let source: any DispatchSourceRead
    var pending: [UInt8] = []
    var scratch = [UInt8](repeating: 0, count: 65536)

    init(fd: Int32, queue: DispatchQueue) {
        self.fd = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in readable() }
        source.setCancelHandler { [fd, self] in _ = self; close(fd) }
        source.resume()
    }

    func readable() {
        let n = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 {
            if n < 0 && errno == EAGAIN { return }
            source.cancel()
            return
        }
        pending += scratch[0..<n]
        let (count, consumed) = completeHeads(pending, from: 0)
        pending.removeFirst(consumed)
        guard count > 0 else { return }
        var out: [UInt8] = []
        for _ in 0..<count { out += response }
        // Small responses fit the socket buffer; a full server would queue the rest on a write source.
        _ = out.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

final class IOConnection {
    let channel: DispatchIO
    var pending: [UInt8] = []
    let queue: DispatchQueue

    init(fd: Int32, queue: DispatchQueue) {
        self.queue = queue
        channel = DispatchIO(type: .stream, fileDescriptor: fd, queue: queue) { _ in close(fd) }
        channel.setLimit(lowWater: 1)
        channel.read(offset: 0, length: Int.max, queue: queue) { [self] done, data, error in
            if let data, !data.isEmpty {
                pending += Array(data)
                let (count, consumed) = completeHeads(pending, from: 0)
                pending.removeFirst(consumed)
                if count > 0 {
                    var out: [UInt8] = []
                    for _ in 0..<count { out += response }
                    let payload = out.withUnsafeBytes { DispatchData(bytes: $0) }
                    channel.write(offset: 0, data: payload, queue: queue) { _, _, _ in }
                }
            }
            if done { channel.close(flags: .stop) }
        }
    }
}

let arguments = CommandLine.arguments
let model = arguments.count > 1 ? arguments[1] : ""
let workerCount = arguments.count == 4 ? Int(arguments[3]) ?? 0 : 1
let hasWorkers = ["epoll", "epoll-tasks", "loop", "loop-tasks"].contains(model)
guard arguments.count == 3 || (arguments.count == 4 && hasWorkers), let port = UInt16(arguments[2]),
      ["sources", "io"].contains(model) || hasWorkers, workerCount > 0 else {
    print("usage: io-model sources|io PORT   or   io-model epoll|epoll-tasks|loop|loop-tasks PORT [WORKERS (default 1)]")
    exit(2)
}
signal(SIGPIPE, SIG_IGN)
let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
var one: Int32 = 1
setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_port = port.bigEndian
address.sin_addr.s_addr = inet_addr("127.0.0.1")
let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
guard bound == 0, listen(listener, 1024) == 0 else {
    perror("io-model: bind/listen 127.0.0.1:\(port)")
    exit(1)
}
_ = fcntl(listener, F_SETFL, O_NONBLOCK)
let banner = "io-model \(model)\(hasWorkers ? " (\(workerCount) workers)" : "") listening on 127.0.0.1:\(port)"

if model.hasPrefix("loop") {
    // No Dispatch source at all: worker 0's thread accepts (the listener is in its epoll set).
    let loops = (0..<workerCount).map { LoopWorker(index: $0, tasks: model == "loop-tasks") }
    loops[0].listener = listener
    loops[0].siblings = loops
    for loop in loops { loop.start() }
    loops[0].set.control(EPOLL_CTL_ADD, listener, EPOLLIN)
    print(banner)
    dispatchMain()
}

nonisolated(unsafe) var connections: [AnyObject] = []
let acceptQueue = DispatchQueue(label: "accept")
let acceptSource = DispatchSource.makeReadSource(fileDescriptor: listener, queue: acceptQueue)
let workers = model.hasPrefix("epoll") ? (0..<workerCount).map { EpollWorker(index: $0, tasks: model == "epoll-tasks") } : []
nonisolated(unsafe) var nextWorker = 0
acceptSource.setEventHandler {
    while true {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if !workers.isEmpty {
            // Round-robin; the worker's own queue adds the descriptor to its epoll set.
            let worker = workers[nextWorker % workers.count]
            nextWorker += 1
            worker.queue.async { worker.set.add(fd) }
            continue
        }
        let queue = DispatchQueue(label: "connection", target: .global())
        connections.append(model == "sources" ? SourceConnection(fd: fd, queue: queue) : IOConnection(fd: fd, queue: queue))
    }
}
acceptSource.resume()
print(banner)
dispatchMain()
