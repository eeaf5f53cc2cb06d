#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The served directory, open for the life of the server: every lookup starts from its
/// descriptor (`openat(2)`), one name at a time, never following a symbolic link (`O_NOFOLLOW`,
/// `AT_SYMLINK_NOFOLLOW`), so no name can lead outside it, whatever the path says.
final class StaticRoot: Sendable {
    let descriptor: Int32
    let path: String

    /// Opens `path`, which must be a directory.
    init(path: String) throws(StaticFilesError) {
        let descriptor = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StaticFilesError("cannot open the directory \"\(path)\" to serve (errno \(errno))") }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// What a lookup found.
    enum Found {
        /// A regular file: `name` in the directory `directory` (which the caller closes when
        /// `ownsDirectory`), and its status.
        case file(directory: Int32, ownsDirectory: Bool, name: String, status: stat)
        /// A directory, asked for without its trailing slash.
        case directoryWithoutSlash
        /// Nothing servable: why (for the log line; the client gets 404).
        case missing(String)
    }

    /// Looks `names` up below the root: each directory opened by name from the one before
    /// (`O_DIRECTORY | O_NOFOLLOW`); the last name is a regular file, or, with `directory` (the
    /// path ended with `/`), a directory whose first index file answers.
    func lookUp(_ names: [String], directory: Bool, indexFiles: [String]) -> Found {
        var current = descriptor
        var owned = false
        func closeCurrent() { if owned { close(current) } }
        for name in names.dropLast() {
            let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            closeCurrent()
            guard next >= 0 else { return .missing(errno == ELOOP || errno == ENOTDIR ? "a directory of the path is a symbolic link or a file" : "no such directory") }
            current = next
            owned = true
        }
        if let last = names.last {
            var status = stat()
            guard fstatat(current, last, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                closeCurrent()
                return .missing("no such file")
            }
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                if directory {
                    closeCurrent()
                    return .missing("a file asked for as a directory")
                }
                return .file(directory: current, ownsDirectory: owned, name: last, status: status)
            case S_IFDIR:
                guard directory else {
                    closeCurrent()
                    return .directoryWithoutSlash
                }
                let next = openat(current, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                closeCurrent()
                guard next >= 0 else { return .missing("cannot open the directory") }
                current = next
                owned = true
            case S_IFLNK:
                closeCurrent()
                return .missing("a symbolic link")
            default:
                closeCurrent()
                return .missing("not a regular file (a device, a fifo or a socket)")
            }
        }
        for index in indexFiles {
            var status = stat()
            if fstatat(current, index, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG {
                return .file(directory: current, ownsDirectory: owned, name: index, status: status)
            }
        }
        closeCurrent()
        return .missing("a directory without an index file")
    }

    /// The status of `name` in `directory` when it is a regular file (a precompressed sibling).
    static func regularFile(_ name: String, in directory: Int32) -> stat? {
        var status = stat()
        guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return status
    }

    /// Opens the regular file `name` in `directory` for reading: not following a link, not
    /// blocking (a fifo put there since the lookup would otherwise hang the open), and checked
    /// again once open (it must still be a regular file).
    static func openFile(_ name: String, in directory: Int32) -> OpenFile? {
        let descriptor = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return OpenFile(descriptor: descriptor, status: status)
    }
}

/// A file open for one response; closed when the response is gone, whatever became of it (sent,
/// a client gone mid-body, HEAD, 304, an error).
final class OpenFile: Sendable {
    let descriptor: Int32
    let size: Int64
    let inode: UInt64
    let modified: (seconds: Int, nanoseconds: Int)

    init(descriptor: Int32, status: stat) {
        self.descriptor = descriptor
        self.size = Int64(status.st_size)
        self.inode = UInt64(status.st_ino)
        #if canImport(Darwin)
        self.modified = (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
        #else
        self.modified = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
        #endif
    }

    deinit { close(descriptor) }

    /// A strong entity tag from the inode, size and modification time: a file replaced or
    /// changed gets another one.
    var entityTag: String {
        "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(modified.seconds, radix: 16)).\(String(modified.nanoseconds, radix: 16))\""
    }
}

/// Why a directory cannot be served, as one readable sentence.
public struct StaticFilesError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the directory or prefix.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// close(2), for the files that do not import the C library.
@discardableResult
func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
