#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Byte-level searches the parsers and the request path share: a request's bytes are ASCII where
// it matters (a method, a field name, a target's delimiters), so they are compared and searched as
// bytes, never as `Character`s.

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `text`'s UTF-8: one length check and one `memcmp`, no
    /// `String` made. How the parsers recognise a method, a field name or a pseudo-header field
    /// among bytes they have not copied.
    @inline(__always)
    package func spells(_ text: StaticString) -> Bool {
        text.utf8CodeUnitCount == count && (count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0)
    }
}

extension String {
    /// The index of the first `byte` in this string's UTF-8 (`?` in a request target), found with
    /// `memchr` over its contiguous bytes. `utf8.firstIndex(of:)` goes through the view's indices,
    /// about 17 instructions a byte (counted with cachegrind), and a request's path is searched
    /// for its `?` three times on the way to its handler.
    package func utf8Index(of byte: UInt8) -> String.Index? {
        let offset: Int?? = utf8.withContiguousStorageIfAvailable { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard let offset else { return utf8.firstIndex(of: byte) }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }
}
