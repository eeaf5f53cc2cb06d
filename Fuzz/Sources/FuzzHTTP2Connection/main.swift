// The real HTTP/2 connection (Connection, the handover on the preface, HTTP2Connection and its
// nghttp2 session over a MemoryByteStream), not a mirror of its logic: see ConnectionHarness for
// the steps and the checks.
//
// Input: byte 0 picks the settings (bits 0-1: defaults, a small one: 4 streams, 1 KiB windows, a
// reset burst of 10; a 16-byte window; a 1 KiB header list); bytes 1-4 seed the harness's choices;
// the rest is what the client sends after its preface and an empty SETTINGS (sent by the target).
//
// Checked, besides the harness's own checks (every handler ends after the close, the connection
// and its handler are released): what the server wrote is HTTP/2 frames, its SETTINGS first.

import FuzzSupport
import WhiskerCore
import WhiskerHTTP2

private let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]

private let harnesses: [ConnectionHarness] = {
    var small = HTTP2Settings()
    small.maxConcurrentStreams = 4
    small.initialStreamWindowSize = 1024
    small.connectionWindowSize = 65_535
    small.maxContinuations = 2
    small.resetRateLimit = (10, 1)
    var tinyWindow = HTTP2Settings()
    tinyWindow.initialStreamWindowSize = 16
    var smallHeaders = HTTP2Settings()
    smallHeaders.maxHeaderListSize = 1024
    return [HTTP2Settings(), small, tinyWindow, smallHeaders].map { settings in
        ConnectionHarness { $0.http2 = settings }
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafeRawPointer, _ count: Int) -> Int32 {
    var input = FuzzInput(data, count)
    let harness = harnesses[Int(input.byte() & 3)]
    var random = FuzzRandom(seed: UInt64(input.uint32()) | 1 << 40)
    let output = harness.run(preamble: clientPreface, wire: input.rest(), random: &random)
    // The server's preface: a SETTINGS frame (type 4 on stream 0) comes first.
    if output.count >= 9, output[3] != 4 || output[5...8] != [0, 0, 0, 0] {
        fuzzFailure("the server's first frame is not SETTINGS: \(output.prefix(9))")
    }
    return 0
}
