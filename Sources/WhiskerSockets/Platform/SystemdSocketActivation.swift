#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening sockets systemd passed to this process (socket activation), read as
/// `sd_listen_fds_with_names(3)` reads them, without linking libsystemd.
///
/// A `.socket` unit (or `systemd-socket-activate`) opens and binds the sockets, then starts the
/// service with them as descriptors 3, 4, ... and three variables: `LISTEN_PID` (the process they
/// are meant for), `LISTEN_FDS` (how many) and `LISTEN_FDNAMES` (a colon-separated name for each,
/// from `FileDescriptorName=`; systemd's default is the socket unit's name).
///
///     if let activation = try SystemdSocketActivation.fromEnvironment() {
///         for descriptor in activation.descriptors {
///             let listener = try Listener(inheritedDescriptor: descriptor.fd)
///             print(descriptor.name, listener.localAddress)
///         }
///     }
///
/// Adopt each descriptor once (`init(inheritedDescriptor:)`): the listener closes it
/// when it stops.
public struct SystemdSocketActivation: Sendable, Equatable {
    /// The names (`FileDescriptorName=`) of the sockets meant for TLS unless told otherwise:
    /// `https` and `tls`.
    public static let defaultTLSNames: Set<String> = ["https", "tls"]

    /// One inherited descriptor and the name systemd gave it.
    public struct Descriptor: Sendable, Hashable, CustomStringConvertible {
        /// The descriptor number: 3 for the first, then consecutive.
        public var fd: Int32
        /// Its `FileDescriptorName=`, or `unknown` when `LISTEN_FDNAMES` was not set (as
        /// libsystemd reports it).
        public var name: String

        /// Describes an inherited descriptor.
        /// - Parameters:
        ///   - fd: An open listening socket the process owns.
        ///   - name: The name that says what it is for, such as `https`.
        public init(fd: Int32, name: String) {
            self.fd = fd
            self.name = name
        }

        /// `fd 3 ("https")`.
        public var description: String { "fd \(fd) (\"\(name)\")" }
    }

    /// The first passed descriptor (`SD_LISTEN_FDS_START`); the rest follow it in order.
    public static let firstDescriptor: Int32 = 3

    /// The variables systemd sets for socket activation, in the order they are read.
    public static let variableNames = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// `LISTEN_FDS`, the variable that counts the passed descriptors, for messages outside this
    /// folder (which names no systemd variable itself).
    package static let descriptorCountVariable = "LISTEN_FDS"

    /// The passed descriptors, in order.
    public var descriptors: [Descriptor]

    /// Wraps descriptors that were passed in another way (or made by a test).
    /// - Parameter descriptors: Open listening sockets, each adopted at most once.
    public init(descriptors: [Descriptor]) {
        self.descriptors = descriptors
    }

    /// Reads this process's socket activation and unsets the three variables (as
    /// `sd_listen_fds(1)` does), so that processes this one starts do not take the sockets for
    /// theirs. Each passed descriptor is marked close-on-exec.
    /// - Returns: `nil` when the process was not socket-activated: no `LISTEN_PID`, a
    ///   `LISTEN_PID` for another process (the variables were inherited by mistake; they are
    ///   ignored), no `LISTEN_FDS`, or `LISTEN_FDS=0`.
    /// - Throws: ``SystemdSocketActivationError`` naming the variable when one is malformed
    ///   (the variables are unset all the same).
    ///   On Darwin (no systemd) always `nil`, and the environment is left alone.
    public static func fromEnvironment() throws(SystemdSocketActivationError) -> SystemdSocketActivation? {
        #if os(Linux)
        var environment: [String: String] = [:]
        for name in variableNames {
            if let value = getenv(name) { environment[name] = String(cString: value) }
            unsetenv(name)
        }
        guard let activation = try parse(environment, processID: getpid()) else { return nil }
        for descriptor in activation.descriptors {
            let flags = fcntl(descriptor.fd, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor.fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        return activation
        #else
        return nil
        #endif
    }

    /// Parses the variables without touching the process: the testable half of
    /// ``fromEnvironment()``.
    /// - Parameters:
    ///   - environment: The variables (others are ignored).
    ///   - processID: The process the sockets must be meant for (`getpid()`).
    /// - Returns: `nil` when the variables do not activate `processID` (see ``fromEnvironment()``).
    /// - Throws: ``SystemdSocketActivationError`` naming the malformed variable.
    public static func parse(_ environment: [String: String], processID: Int32) throws(SystemdSocketActivationError) -> SystemdSocketActivation? {
        guard let pidText = environment["LISTEN_PID"] else { return nil }
        guard let pid = Int32(pidText), pid > 0 else {
            throw SystemdSocketActivationError(variable: "LISTEN_PID", value: pidText, reason: "must be a process id (a positive whole number)")
        }
        guard pid == processID else { return nil }
        guard let countText = environment["LISTEN_FDS"] else { return nil }
        // Descriptors run from 3 to 3 + count - 1, which must fit an Int32.
        guard let count = Int32(countText), count >= 0, count <= Int32.max - firstDescriptor else {
            throw SystemdSocketActivationError(variable: "LISTEN_FDS", value: countText, reason: "must be a number of descriptors (a whole number, 0 or more)")
        }
        guard count > 0 else { return nil }
        let names: [String]
        if let namesText = environment["LISTEN_FDNAMES"] {
            names = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard names.count == Int(count) else {
                throw SystemdSocketActivationError(
                    variable: "LISTEN_FDNAMES", value: namesText,
                    reason: "must have one colon-separated name per descriptor: LISTEN_FDS is \(count), but it has \(names.count)")
            }
        } else {
            names = Array(repeating: "unknown", count: Int(count))
        }
        return SystemdSocketActivation(descriptors: names.enumerated().map { index, name in
            Descriptor(fd: firstDescriptor + Int32(index), name: name)
        })
    }
}

/// A socket-activation variable that cannot be understood; its description names the variable
/// and its value, e.g. `LISTEN_FDS must be a number of descriptors (...), got "two"`.
public struct SystemdSocketActivationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The variable: `LISTEN_PID`, `LISTEN_FDS` or `LISTEN_FDNAMES`.
    public var variable: String
    /// Its value.
    public var value: String
    /// What it should have been.
    public var reason: String

    /// Creates an error for one variable.
    /// - Parameters:
    ///   - variable: The variable's name.
    ///   - value: Its value.
    ///   - reason: What it should have been, as the end of a sentence starting with its name.
    public init(variable: String, value: String, reason: String) {
        self.variable = variable
        self.value = value
        self.reason = reason
    }

    public var description: String {
        "socket activation: \(variable) \(reason), got \"\(value)\""
    }
}
