#if Compression
import CZlib
#endif

/// The receiving side of permessage-deflate: inflates a compressed message's payload as it
/// arrives, never past a bound. A protocol so that the frame reader compiles without zlib (a
/// build without the `Compression` trait negotiates nothing and has none).
protocol WebSocketInflater: AnyObject {
    /// Inflates `input`, appending what it makes to `output`, but never more than `allowance`
    /// bytes: `.tooBig` as soon as there would be more (the bytes past the allowance are not kept).
    func inflate(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], allowance: Int) -> InflateResult
    /// The message ended (its tail was inflated): forget the window when the client does not keep it.
    func endMessage()
}

/// What inflating a piece of a message came to.
enum InflateResult: Equatable {
    case ok
    /// The output would pass the allowance.
    case tooBig
    /// The bytes are not DEFLATE data (zlib's words, for the log).
    case corrupt(String)
}

/// The sending side of permessage-deflate: one message in, its compressed payload out (the
/// trailing `0x00 0x00 0xff 0xff` of the sync flush removed, RFC 7692 7.2.1), or `nil` when zlib
/// failed and the message goes uncompressed.
protocol WebSocketDeflater: AnyObject {
    func deflate(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8]?
}

/// The four bytes a sync flush ends with, which permessage-deflate strips and the receiver puts back.
let deflateTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

#if Compression
extension PerMessageDeflate {
    /// The negotiated inflater and deflater; each allocates its zlib state on first use.
    func makeCodec() -> (any WebSocketInflater, any WebSocketDeflater) {
        (
            ZlibInflater(windowBits: clientWindowBits, resetsAfterMessage: clientNoContextTakeover),
            ZlibDeflater(windowBits: serverWindowBits, memoryLevel: memoryLevel, level: level, resetsAfterMessage: serverNoContextTakeover)
        )
    }
}

/// Raw DEFLATE (no zlib header) through zlib's inflate, with the client's window.
final class ZlibInflater: WebSocketInflater {
    /// At a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private let windowBits: Int
    private let resetsAfterMessage: Bool
    private var isInitialized = false
    /// The client ended its DEFLATE stream inside this message (a final block): the rest of the
    /// message (the tail put back) is not DEFLATE data, and the next message starts a new stream.
    private var streamEnded = false
    /// The output step: enough for a usual message in one call, small enough to stop a bomb early.
    private static let step = 16 * 1024

    init(windowBits: Int, resetsAfterMessage: Bool) {
        self.windowBits = windowBits
        self.resetsAfterMessage = resetsAfterMessage
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func inflate(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], allowance: Int) -> InflateResult {
        guard !input.isEmpty, !streamEnded else { return .ok }
        if !isInitialized {
            // Negative window bits: raw DEFLATE. 8 is accepted by inflate (not by deflate).
            guard whisker_inflateInit2(stream, Int32(-windowBits)) == Z_OK else { return .corrupt("zlib's inflateInit2 failed") }
            isInitialized = true
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.pointee.avail_in = UInt32(input.count)
        defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }
        var produced = 0
        while true {
            // One byte past the allowance tells a message that fits from one that does not.
            let room = min(Self.step, allowance - produced + 1)
            // Into a temporary buffer, then copied onto the message: the message grows by what
            // was made, never by a zero-filled step.
            let status = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(room)
                let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<(room - Int(stream.pointee.avail_out))]))
                return status
            }
            produced += room - Int(stream.pointee.avail_out)
            if produced > allowance {
                output.removeLast(produced - allowance)
                return .tooBig
            }
            switch status {
            case Z_OK:
                break
            case Z_STREAM_END:
                // The client ended the DEFLATE stream (a block with BFINAL, RFC 7692 7.2.3.3):
                // what follows in this message is past its end; the next message starts anew.
                streamEnded = true
                return .ok
            case Z_BUF_ERROR:
                // No progress possible: all input taken and nothing more to give.
                if stream.pointee.avail_in == 0 { return .ok }
                return .corrupt("zlib made no progress")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                return .corrupt(message)
            }
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return .ok }
        }
    }

    func endMessage() {
        if streamEnded {
            streamEnded = false
            if !restart() {
                // Start without the window: a later reference back into it fails as not DEFLATE (1007).
                inflateReset(stream)
            }
        } else if resetsAfterMessage && isInitialized {
            inflateReset(stream)
        }
    }

    /// `inflateReset` keeping the window as a dictionary (a raw stream may take one at its start),
    /// unless the client does not keep its own.
    private func restart() -> Bool {
        var window = [UInt8](repeating: 0, count: 1 << 15)
        var length: UInt32 = 0
        let got = window.withUnsafeMutableBufferPointer { inflateGetDictionary(stream, $0.baseAddress, &length) }
        guard got == Z_OK, inflateReset(stream) == Z_OK else { return false }
        if resetsAfterMessage || length == 0 { return true }
        return window.withUnsafeBufferPointer { inflateSetDictionary(stream, $0.baseAddress, length) } == Z_OK
    }
}

/// Raw DEFLATE through zlib's deflate, each message ended with a sync flush.
final class ZlibDeflater: WebSocketDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let windowBits: Int
    private let memoryLevel: Int
    private let level: Int
    private let resetsAfterMessage: Bool
    private var isInitialized = false

    init(windowBits: Int, memoryLevel: Int, level: Int, resetsAfterMessage: Bool) {
        self.windowBits = windowBits
        self.memoryLevel = memoryLevel
        self.level = level
        self.resetsAfterMessage = resetsAfterMessage
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isInitialized { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func deflate(_ message: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        if !isInitialized {
            guard whisker_deflateInit2(stream, Int32(level), Int32(-windowBits), Int32(memoryLevel)) == Z_OK else { return nil }
            isInitialized = true
        }
        defer { if resetsAfterMessage { deflateReset(stream) } }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: message.baseAddress)
        stream.pointee.avail_in = UInt32(message.count)
        defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }
        // The worst case for the input, plus the flush's marker: one call, straight into the
        // frame's payload; more only if zlib still holds output.
        let bound = Int(deflateBound(stream, UInt(message.count))) + 16
        var status = Z_OK
        var output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            stream.pointee.next_out = buffer.baseAddress
            stream.pointee.avail_out = UInt32(bound)
            status = CZlib.deflate(stream, Z_SYNC_FLUSH)
            count = bound - Int(stream.pointee.avail_out)
        }
        while status == Z_OK && stream.pointee.avail_out == 0 {
            status = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = 4096
                let status = CZlib.deflate(stream, Z_SYNC_FLUSH)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<(4096 - Int(stream.pointee.avail_out))]))
                return status
            }
        }
        guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        // A sync flush ends with an empty stored block, 00 00 ff ff: the receiver adds it back.
        guard output.count >= 4, Array(output.suffix(4)) == deflateTail else { return nil }
        output.removeLast(4)
        return output
    }
}
#endif
