#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A path for a Unix domain socket named `name` in a new directory of its own under `/tmp` (short
/// enough for `sun_path`), for a test's listener.
/// - Throws: ``TestClientError`` when the directory cannot be made.
public func temporarySocketPath(_ name: String = "cats.sock") throws -> String {
    var template = Array("/tmp/whisker-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    guard made else { throw TestClientError("cannot make a temporary directory: errno \(errno)") }
    let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return "\(directory)/\(name)"
}
