package import Dispatch

/// What a connection does when its idle timeout passes while the peer has not yet taken all that
/// was written to it (issue 38, defect 6).
///
/// A connection is idle once its last response is written, which means in the kernel's send
/// buffer, not read by the client: the buffer autotunes to megabytes, and a client that reads a
/// pipelined clip at a few bytes a second leaves nearly all of it there. Closed at the idle
/// timeout as usual, the socket became an orphan in FIN-WAIT-1 that kept the buffer (20 clients:
/// 19.4 MB) while the kernel went on delivering at the client's pace. The process-side checks
/// (write stall, minimum response rate) never saw those bytes.
///
/// So at the idle deadline the connection asks how much the peer still has to take
/// (``SocketConnection/unsentByteCount``, `SIOCOUTQ`):
/// - nothing: close as usual (FIN);
/// - something, at the first look: look again one idle period later (the bytes are counted now);
/// - something, at a later look: keep waiting while the peer took them at least at the minimum
///   response rate (any progress at all, without one) since the last look; else reset
///   (`SO_LINGER` 0): the kernel drops them at once and no orphan is left.
///
/// HTTP/1.1 hands this to its socket (``SocketConnection/closeIdle(lookingAgainAfter:minimumBytesPerSecond:)``,
/// which shuts the write side and keeps the socket meanwhile); HTTP/2 keeps its connection open
/// and counts it in its idle deadline. A slow download that keeps going is never cut; a stalled
/// or trickling reader is reset one idle period after it went idle. A close the client asked for
/// (`Connection: close`, read in full) is not an idle close and stays a FIN. (Bounding
/// `SO_SNDBUF` instead would cap every fast client's throughput, and still leave an orphan.)
package struct IdleDrainCheck: Equatable, Sendable {
    /// The peer's unsent bytes at the last look, and when.
    private var lastLook: (unsent: Int, at: DispatchTime)?

    package init() {}

    /// What to do at the idle deadline.
    package enum Verdict: Equatable, Sendable {
        /// Close as usual: the peer has taken everything.
        case close
        /// The peer still takes its bytes (or this is the first look): another idle period.
        case keepWaiting
        /// The peer stopped taking them: reset the connection, so the kernel drops them.
        case reset
    }

    /// The idle deadline passed at `now` with `unsent` bytes still to be taken by the peer;
    /// `minimumBytesPerSecond` is the slowest a response may be read (`nil`: any progress will do).
    package mutating func check(unsent: Int, now: DispatchTime, minimumBytesPerSecond: Double?) -> Verdict {
        guard unsent > 0 else {
            lastLook = nil
            return .close
        }
        defer { lastLook = (unsent, now) }
        guard let lastLook else { return .keepWaiting }
        let taken = Double(lastLook.unsent - unsent)
        let seconds = Double(now.uptimeNanoseconds &- lastLook.at.uptimeNanoseconds) / 1e9
        let fastEnough = minimumBytesPerSecond.map { taken > 0 && taken >= $0 * seconds } ?? (taken > 0)
        return fastEnough ? .keepWaiting : .reset
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.lastLook?.unsent == rhs.lastLook?.unsent && lhs.lastLook?.at == rhs.lastLook?.at
    }
}
