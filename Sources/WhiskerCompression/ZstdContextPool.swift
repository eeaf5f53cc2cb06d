import CZstd
import Synchronization

/// The one-shot zstd contexts that ``ZstdCompressor/encodeWhole(_:level:pool:)`` reuses.
///
/// Creating a context runs libzstd's CPU-feature probe, two `cpuid` instructions. In a virtual
/// machine each one traps to the hypervisor. Measured on this project's 2-core VM, a 400-byte
/// response coded with zstd took 64 µs of server CPU against gzip's 52, with 13% of its samples on
/// those two instructions. A context that coded a body is as good as new for the next one:
/// `ZSTD_compress2` starts a new frame each time, and the level is set before each use.
///
/// At most `capacity` contexts are kept, and only those whose tables and buffers are at most
/// `maxContextBytes`. A context that grew for a large body is freed, so an idle server does not
/// keep that memory.
final class ZstdContextPool: Sendable {
    /// The pool every response shares: 8 contexts of at most 256 KiB (a 400-byte body's context
    /// holds 33 KiB).
    static let shared = ZstdContextPool(capacity: 8, maxContextBytes: 256 * 1024)

    private let idle = Mutex<[ContextPointer]>([])
    private let capacity: Int
    private let maxContextBytes: Int

    /// - Parameters:
    ///   - capacity: The most contexts kept between uses.
    ///   - maxContextBytes: The largest context kept (`ZSTD_sizeof_CCtx`); a larger one is freed.
    init(capacity: Int, maxContextBytes: Int) {
        self.capacity = capacity
        self.maxContextBytes = maxContextBytes
    }

    deinit {
        idle.withLock { contexts in
            for context in contexts { ZSTD_freeCCtx(context.pointer) }
        }
    }

    /// A kept context, else a new one; `nil` when libzstd cannot make one.
    func take() -> OpaquePointer? {
        idle.withLock { $0.popLast()?.pointer } ?? ZSTD_createCCtx()
    }

    /// Keeps `context` for the next body, or frees it: when it grew past `maxContextBytes`, or the
    /// pool is full. The caller must not use it afterwards.
    func giveBack(_ context: OpaquePointer) {
        let kept = ZSTD_sizeof_CCtx(context) <= maxContextBytes && idle.withLock { contexts in
            guard contexts.count < capacity else { return false }
            contexts.append(ContextPointer(pointer: context))
            return true
        }
        if !kept { ZSTD_freeCCtx(context) }
    }

    /// How many contexts the pool holds now.
    var count: Int { idle.withLock { $0.count } }

    /// A context between two uses: owned by the pool alone, so moving it between threads is safe.
    private struct ContextPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}
