#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WhiskerSockets

@Suite struct ReadBufferTests {
    @Test func consumedBytesAreReclaimed_AndUnreadBytesSurviveGrowth() {
        var buffer = ReadBuffer(capacity: 8)
        buffer.append(contentsOf: Array("abcdefgh".utf8))
        buffer.moveReaderIndex(forwardBy: 6)
        buffer.append(contentsOf: Array("ijklmnopqrstuvwxyz".utf8))
        #expect(buffer.readableBytes == 20)
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == Array("ghijklmnopqrstuvwxyz".utf8))
        #expect(buffer.readBytes(3) == Array("ghi".utf8)[...])
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        #expect(buffer.readableBytes == 0)
        #expect(buffer.readerIndex == 0 && buffer.writerIndex == 0, "an empty buffer starts over at the front")
    }

    @Test func readSize_StartsSmall_DoublesOnlyWhileReadsFillIt_AndAnEmptiedLargeBufferIsReleased() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, LibC.streamSocket, 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let sent = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(sent.withUnsafeBytes { write(pair[1], $0.baseAddress, $0.count) } == sent.count)

        var buffer = ReadBuffer(capacity: 1024)
        #expect(buffer.capacity == 0, "nothing is allocated before the first read")
        var sizes: [Int] = []
        while buffer.readableBytes < sent.count {
            let count = try #require(bytesRead(try buffer.read(from: pair[0], chunk: 8192)))
            sizes.append(count)
        }
        #expect(sizes.first == 1024, "the first read asks for the initial capacity only")
        #expect(sizes.count < 10, "reads that fill their space make the next one larger: \(sizes)")
        #expect(buffer.capacity <= 65536, "storage doubles as the bytes held grow, no further")
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == sent, "no byte lost or reordered across growth")

        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        #expect(buffer.capacity == 0, "an emptied buffer that grew past 4x its capacity lets go of its memory")

        // A small message after the reset is read with the initial size again.
        #expect(write(pair[1], "ping", 4) == 4)
        #expect(bytesRead(try buffer.read(from: pair[0], chunk: 8192)) == 4)
        #expect(buffer.capacity == 1024)
    }

    @Test func append_CopiesContiguousBytesAtOnce_AndOtherSequencesByteByByte() {
        var buffer = ReadBuffer(capacity: 4)
        buffer.append(contentsOf: Array("abc".utf8))
        buffer.append(contentsOf: (0..<3).lazy.map { UInt8(ascii: "d") + UInt8($0) })  // not contiguous
        buffer.append(contentsOf: [UInt8]())
        buffer.moveReaderIndex(forwardBy: 2)
        buffer.append(contentsOf: Array("ghijk".utf8)[...])  // past the capacity: moved to the front, then grown
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == Array("cdefghijk".utf8))
    }

    @Test func releaseStorageIfEmpty_FreesOnlyAnEmptyBuffer() {
        var buffer = ReadBuffer(Array("GET".utf8))
        buffer.releaseStorageIfEmpty()
        #expect(buffer.capacity > 0 && buffer.readableBytes == 3, "unread bytes are kept")
        buffer.moveReaderIndex(forwardBy: 3)
        buffer.releaseStorageIfEmpty()
        #expect(buffer.capacity == 0)
        buffer.append(contentsOf: Array("x".utf8))
        #expect(buffer.withUnsafeReadableBytes { Array($0) } == Array("x".utf8), "and it is usable again")
    }
}

private func bytesRead(_ result: IOResult<Int>) -> Int? {
    if case .done(let count) = result { count } else { nil }
}
