#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#elseif canImport(Darwin)
package import Darwin
#endif

/// The C library's calls that Linux and Darwin both have, under one spelling for the places where
/// an unqualified name would find a method of the same name (`close()`, `read(...)`, `send(...)`)
/// and the module name would otherwise be written out (`Glibc.close(fd)` does not compile on
/// Darwin). Each is the C function itself, inlined: no extra call, no extra system call.
package enum LibC {
    /// `struct linger` (`SO_LINGER`'s value).
    #if canImport(Glibc)
    package typealias linger = Glibc.linger
    #elseif canImport(Musl)
    package typealias linger = Musl.linger
    #elseif canImport(Darwin)
    package typealias linger = Darwin.linger
    #endif

    /// `SOCK_STREAM` as the `Int32` that `socket(2)` takes (Glibc imports it as an enum case,
    /// Darwin as a number).
    package static var streamSocket: Int32 {
        @inline(__always) get {
            #if os(Linux)
            Int32(SOCK_STREAM.rawValue)
            #else
            SOCK_STREAM
            #endif
        }
    }

    /// `SOCK_DGRAM` as the `Int32` that `socket(2)` takes.
    package static var datagramSocket: Int32 {
        @inline(__always) get {
            #if os(Linux)
            Int32(SOCK_DGRAM.rawValue)
            #else
            SOCK_DGRAM
            #endif
        }
    }

    /// close(2).
    @inline(__always) @discardableResult
    package static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #elseif canImport(Musl)
        Musl.close(fd)
        #elseif canImport(Darwin)
        Darwin.close(fd)
        #endif
    }

    /// read(2).
    @inline(__always)
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.read(fd, buffer, count)
        #elseif canImport(Darwin)
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// send(2).
    @inline(__always)
    package static func send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, buffer, count, flags)
        #elseif canImport(Musl)
        Musl.send(fd, buffer, count, flags)
        #elseif canImport(Darwin)
        Darwin.send(fd, buffer, count, flags)
        #endif
    }

    /// recv(2).
    @inline(__always)
    package static func recv(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.recv(fd, buffer, count, flags)
        #elseif canImport(Musl)
        Musl.recv(fd, buffer, count, flags)
        #elseif canImport(Darwin)
        Darwin.recv(fd, buffer, count, flags)
        #endif
    }

    /// shutdown(2).
    @inline(__always) @discardableResult
    package static func shutdown(_ fd: Int32, _ how: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.shutdown(fd, how)
        #elseif canImport(Musl)
        Musl.shutdown(fd, how)
        #elseif canImport(Darwin)
        Darwin.shutdown(fd, how)
        #endif
    }

    /// poll(2).
    @inline(__always)
    package static func poll(_ descriptors: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.poll(descriptors, count, timeout)
        #elseif canImport(Musl)
        Musl.poll(descriptors, count, timeout)
        #elseif canImport(Darwin)
        Darwin.poll(descriptors, count, timeout)
        #endif
    }

    /// connect(2).
    @inline(__always)
    package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #elseif canImport(Musl)
        Musl.connect(fd, address, length)
        #elseif canImport(Darwin)
        Darwin.connect(fd, address, length)
        #endif
    }
}
