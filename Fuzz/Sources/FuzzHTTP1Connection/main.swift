// The real HTTP/1.1 connection (Connection and HTTP1Connection over a MemoryByteStream), not a
// mirror of its logic: see ConnectionHarness for the steps and the checks.
//
// Input: bytes 0-3 seed the harness's choices (piece sizes, which gate opens, when the client stops
// reading, half-closes or the stream closes, a graceful shutdown); the rest is what the client sends.
//
// Checked, besides the harness's own checks (every handler ends after the close; the connection
// and its handler are released): what the server wrote is HTTP/1.1 responses, each starting with
// a status line (or nothing at all; an HTTP/2 preface gets HTTP/2's refusal instead).

import FuzzSupport
import WhiskerCore

private let harness = ConnectionHarness { configuration in
    configuration.http2 = nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer, _ count: Int) -> Int32 {
    var input = FuzzInput(data, count)
    var random = FuzzRandom(seed: UInt64(input.uint32()) | 1 << 40)
    let output = harness.run(preamble: [], wire: input.rest(), random: &random)
    // An HTTP/2 client (its preface) gets HTTP/2's refusal, SETTINGS then GOAWAY(HTTP_1_1_REQUIRED).
    let refusesHTTP2 = output.count >= 9 && output[3] == 4 && input.bytes.count >= 7 && input.bytes[4...6].elementsEqual("PRI".utf8)
    if !output.isEmpty, !output.starts(with: Array("HTTP/1.1 ".utf8)), !refusesHTTP2 {
        fuzzFailure("the server wrote something other than an HTTP/1.1 response first: \(output.prefix(40))")
    }
    return 0
}
