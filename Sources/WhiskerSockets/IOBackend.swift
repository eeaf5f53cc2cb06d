#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How an ``IOWorker`` learns that its descriptors are ready.
///
/// Both backends serve the same connections the same way (a serial queue per worker, readiness
/// delivered on it, level-triggered: a reader may leave bytes for later); they differ in what
/// wakes the queue and what an event costs:
///
/// - ``epoll``: one epoll set per worker and a thread of the worker's own blocking in `epoll_wait`
///   on it, which handles each batch inside a synchronous call on the queue (on itself, with the queue's identity);
///   one wake-up handles every descriptor that became ready meanwhile (up to 64 at a time), a
///   keep-alive request changes no registration, and a lone request costs one thread wake-up. The
///   default on Linux.
/// - ``dispatchSources``: no thread of the worker's own; libdispatch wakes the queue. On Darwin,
///   one `DispatchSourceRead` and one `DispatchSourceWrite` per descriptor, on the worker's queue,
///   resumed and suspended as the interest changes: the model libdispatch implements natively
///   with kqueue. On Linux, the worker's epoll set as with ``epoll`` and one `DispatchSourceRead`
///   on the set's descriptor, whose handler polls the set on the queue: libdispatch never watches
///   a socket there, because its epoll backend can finalize a source twice, and crash the process,
///   when a socket's hang-up races the cancellation of its sources (swift-corelibs-libdispatch
///   #949, #833), and a client that resets causes such a hang-up. Each wake-up passes through
///   libdispatch's manager thread and a pool thread, so it is slower than ``epoll`` (see the
///   Performance article for figures); it is the portable path, and a check of the epoll
///   worker's queue discipline without its thread.
///
/// Choose one per worker (``IOWorker/init(label:backend:)``, ``IOWorkerGroup/init(count:backend:)``)
/// or for a whole server (`WhiskerServer.Configuration.io.backend`). ``default`` is the platform's
/// choice unless the environment variable `WHISKER_IO_BACKEND` says otherwise: the hook that runs a
/// whole test suite (`make test-dispatch`) or a deployed binary on the other backend unchanged.
public enum IOBackend: Sendable, Hashable, CustomStringConvertible {
    /// One epoll set per worker. Linux only: on other systems a worker made with it throws.
    case epoll
    /// A Dispatch read and write source per descriptor.
    case dispatchSources

    /// The platform's choice: ``epoll`` on Linux, ``dispatchSources`` elsewhere (Darwin, where
    /// libdispatch watches descriptors with kqueue).
    public static let platformDefault: IOBackend = {
        #if os(Linux)
        .epoll
        #else
        .dispatchSources
        #endif
    }()

    /// ``platformDefault``, unless `WHISKER_IO_BACKEND` is set to `epoll` or `dispatch`; read
    /// once, the first time it is asked. Any other value is an error when a worker group is made
    /// (``IOWorkerGroup/init(count:backend:)``, so a server's start), naming the variable and the
    /// values it takes: a test run or a deployment that asked for a backend never silently gets
    /// the other one.
    public static let `default`: IOBackend = (try? named(inEnvironment: environmentValue)) ?? platformDefault

    /// `WHISKER_IO_BACKEND`'s value, `nil` when it is not set.
    static var environmentValue: String? { getenv("WHISKER_IO_BACKEND").map { String(cString: $0) } }

    /// The backend `value` of `WHISKER_IO_BACKEND` names: ``platformDefault`` when it is `nil` or
    /// empty.
    /// - Throws: ``SocketError`` naming the variable and the values it takes, for anything else.
    public static func named(inEnvironment value: String?) throws(SocketError) -> IOBackend {
        guard let value, !value.isEmpty else { return platformDefault }
        guard let backend = IOBackend(name: value) else {
            throw SocketError(call: "WHISKER_IO_BACKEND=\(value)", code: EINVAL, reason: "not an I/O backend: use epoll or dispatch")
        }
        return backend
    }

    /// The backend a name stands for: `epoll`, or `dispatch` (also `dispatchSources`); `nil` for
    /// anything else. What `WHISKER_IO_BACKEND` and an application's own setting (a command-line
    /// flag, a configuration key) take.
    public init?(name: String) {
        switch name {
        case "epoll": self = .epoll
        case "dispatch", "dispatchSources": self = .dispatchSources
        default: return nil
        }
    }

    /// `epoll` or `dispatch`, the name ``init(name:)`` takes.
    public var description: String {
        switch self {
        case .epoll: "epoll"
        case .dispatchSources: "dispatch"
        }
    }
}
