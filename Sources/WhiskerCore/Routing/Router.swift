public import HTTPTypes

/// Routes requests by method and OpenAPI path template to a value (a handler).
///
/// Templates have static segments (`/pets`), parameter segments (`/pets/{petId}`) and mixed
/// segments (`/file/{name}.zip`, `/{a}-{b}`). Static segments beat templated ones, and among
/// templated ones more literal text wins; a trailing slash matters (`/pets/` is not `/pets`).
///
/// Paths are compared byte for byte as RFC 3986 §6.2.2 says equivalent URIs are: a
/// percent-encoded unreserved character (`%65` for `e`, `%7E` for `~`) is the character itself,
/// and hex digits are compared without regard to case, so `/api/%65moji` is `/api/emoji` and
/// `%c3%a9` is `%C3%A9`. Reserved characters stay encoded: `/a%2Fb` is one segment, never `/a/b`.
/// A path with a `%` that does not start a triplet is left as it is. Templates are normalised the
/// same way, and a non-ASCII character in one is percent-encoded as UTF-8 (as a URI carries it:
/// `/café` matches `/caf%C3%A9`). A request path that is not ASCII never matches: requests carry
/// ASCII only, and Swift's `String` comparison would otherwise equate Unicode look-alikes (the
/// Kelvin sign and `K`). Parameter values are passed as they appear in the normalised path,
/// percent-encoding otherwise included.
/// The routes form a trie, so matching costs one dictionary lookup per static segment, however
/// many routes there are.
///
///     var router = Router<String>()
///     try router.register("show", method: .get, path: "/pets/{petId}")
///     if case .found(let handler, let parameters) = router.match(method: .get, path: "/pets/7") {
///         print(handler, parameters["petId"]!)   // show 7
///     }
public struct Router<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var parameterNames: [String]
        var template: String
    }

    private struct Node: Sendable {
        /// Keyed by `Substring` so that a lookup with a segment of the request path allocates nothing.
        var literals: [Substring: Int] = [:]
        /// Sorted most specific first.
        var patterns: [(pattern: SegmentPattern, node: Int)] = []
        var handlers: [HTTPRequest.Method: Entry] = [:]
    }

    private var nodes: [Node] = [Node()]
    /// The node of each template that has no parameter, by its normalised path: such a request
    /// (`/api/emoji`) is matched with one lookup, its path never split into segments.
    private var staticPaths: [Substring: Int] = [:]
    /// What answers a path no route has, by path prefix, longest first (``registerFallback(_:under:)``).
    private var fallbacks: [(prefix: String, value: Value)] = []

    /// Every method some route answers, plus `HEAD` where `GET` is (what `OPTIONS *` reports).
    public private(set) var methods: Set<HTTPRequest.Method> = []

    /// Creates an empty router.
    public init() {}

    /// Adds a route.
    /// - Parameters:
    ///   - value: What a match returns, typically a handler.
    ///   - method: The HTTP method.
    ///   - path: An OpenAPI path template starting with `/`.
    /// - Throws: ``RouteError`` when the template is malformed, or when the same method and an
    ///   equivalent template (same shape, any parameter names) is already registered; the error
    ///   names both routes.
    public mutating func register(_ value: Value, method: HTTPRequest.Method, path: String) throws(RouteError) {
        let normalised = String(Self.normalizingPercentEncoding(Self.percentEncodingNonASCII(path[...])))
        let template = try PathTemplate(normalised)
        var current = 0
        var isStatic = true
        for segment in template.segments {
            switch segment {
            case .literal(let text):
                if let next = nodes[current].literals[text[...]] {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].literals[text[...]] = nodes.count - 1
                    current = nodes.count - 1
                }
            case .pattern(let pattern):
                isStatic = false
                if let existing = nodes[current].patterns.first(where: { $0.pattern.shape == pattern.shape }) {
                    current = existing.node
                } else {
                    nodes.append(Node())
                    let position = nodes[current].patterns.firstIndex { pattern.isMoreSpecific(than: $0.pattern) } ?? nodes[current].patterns.endIndex
                    nodes[current].patterns.insert((pattern, nodes.count - 1), at: position)
                    current = nodes.count - 1
                }
            }
        }
        if let existing = nodes[current].handlers[method] {
            throw RouteError(.duplicate(method: method, path: path, existing: existing.template))
        }
        nodes[current].handlers[method] = Entry(value: value, parameterNames: template.parameterNames, template: path)
        if isStatic { staticPaths[normalised[...]] = current }
        methods.insert(method)
        if method == .get { methods.insert(.head) }
    }

    /// Adds what answers, for any method, a path under `prefix` that no route has (a path some
    /// route has, for another method, still gets 405): files beside an API, a page of your own.
    /// The longest prefix that a path starts with wins; `/` takes every path.
    /// - Parameters:
    ///   - value: What such a match returns, with no path parameters.
    ///   - prefix: A path prefix starting with `/`; a prefix without a trailing slash also takes
    ///     the path that is exactly the prefix (`/static` takes `/static` and `/static/a.css`).
    /// - Throws: ``RouteError`` for a prefix that does not start with `/`, or one already taken.
    public mutating func registerFallback(_ value: Value, under prefix: String) throws(RouteError) {
        guard prefix.hasPrefix("/") else { throw RouteError(.invalidTemplate(prefix, "a fallback's prefix starts with /")) }
        guard !fallbacks.contains(where: { $0.prefix == prefix }) else { throw RouteError(.duplicate(method: .get, path: prefix + "*", existing: prefix + "*")) }
        fallbacks.append((prefix, value))
        fallbacks.sort { $0.prefix.utf8.count > $1.prefix.utf8.count }
    }

    /// Finds the route for a request.
    /// - Parameters:
    ///   - method: The request method. `HEAD` falls back to the `GET` route when no `HEAD` route exists.
    ///   - path: The request path without the query (`/pets/7`), normalised as the type's
    ///     documentation says before it is matched.
    /// - Returns: The value and the path parameters; or, when the path matches routes but none for
    ///   this method, the methods that are allowed (for a 405 with `Allow`); or not found.
    public func match(method: HTTPRequest.Method, path: Substring) -> RouteMatch<Value> {
        // A static route's path as it is, with nothing to normalise: where a trie walk would end.
        if let node = staticPaths[path], path.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }),
           let entry = nodes[node].handlers[method] ?? (method == .head ? nodes[node].handlers[.get] : nil) {
            return .found(entry.value, PathParameters())
        }
        guard let segments = Self.segments(path) else { return fallback(for: path) }
        var captures: [Substring] = []
        captures.reserveCapacity(4)
        var allowed: Set<HTTPRequest.Method> = []
        if let entry = search(node: 0, segments: segments[...], method: method, captures: &captures, allowed: &allowed) {
            var parameters = PathParameters()
            for (name, value) in zip(entry.parameterNames, captures) { parameters.append(name: name, value: value) }
            return .found(entry.value, parameters)
        }
        if allowed.isEmpty { return fallback(for: path) }
        if allowed.contains(.get) { allowed.insert(.head) }
        return .methodNotAllowed(allowed: allowed.sorted { $0.rawValue < $1.rawValue })
    }

    /// The fallback of the longest prefix of `path` (a prefix without a trailing slash ends at a
    /// `/` of the path, or at its end), or not found.
    private func fallback(for path: Substring) -> RouteMatch<Value> {
        for (prefix, value) in fallbacks where path.hasPrefix(prefix) {
            if prefix.hasSuffix("/") || path.utf8.count == prefix.utf8.count || path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/") {
                return .found(value, PathParameters())
            }
        }
        return .notFound
    }

    /// The methods `path` has routes for (`HEAD` with `GET`), sorted; empty when it has none.
    public func methods(path: Substring) -> [HTTPRequest.Method] {
        guard let segments = Self.segments(path) else { return [] }
        var captures: [Substring] = []
        var allowed: Set<HTTPRequest.Method> = []
        _ = search(node: 0, segments: segments[...], method: nil, captures: &captures, allowed: &allowed)
        if allowed.contains(.get) { allowed.insert(.head) }
        return allowed.sorted { $0.rawValue < $1.rawValue }
    }

    /// The path's segments, percent-encoding normalized; `nil` for a path that cannot match.
    @inline(__always)
    private static func segments(_ path: Substring) -> [Substring]? {
        guard path.first == "/", path.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let path = path.utf8.contains(UInt8(ascii: "%")) ? normalizingPercentEncoding(path) : path
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }

    /// Finds the entry for `method` (`nil`: none; every method met is collected in `allowed`).
    private func search(node index: Int, segments: ArraySlice<Substring>, method: HTTPRequest.Method?, captures: inout [Substring], allowed: inout Set<HTTPRequest.Method>) -> Entry? {
        let node = nodes[index]
        guard let segment = segments.first else {
            if let method, let entry = node.handlers[method] ?? (method == .head ? node.handlers[.get] : nil) { return entry }
            allowed.formUnion(node.handlers.keys)
            return nil
        }
        let rest = segments.dropFirst()
        if let next = node.literals[segment],
           let entry = search(node: next, segments: rest, method: method, captures: &captures, allowed: &allowed) {
            return entry
        }
        for (pattern, next) in node.patterns {
            let mark = captures.count
            guard pattern.match(segment, into: &captures) else { continue }
            if let entry = search(node: next, segments: rest, method: method, captures: &captures, allowed: &allowed) { return entry }
            captures.removeSubrange(mark...)
        }
        return nil
    }
}

extension Router {
    /// `path` with percent-encoded unreserved characters decoded and the hex digits of the other
    /// triplets in upper case (RFC 3986 §6.2.2.1, §6.2.2.2). A path with a `%` not followed by two
    /// hex digits is not a URI path: it is returned as it is (so the result never depends on how
    /// often it was normalised).
    static func normalizingPercentEncoding(_ path: Substring) -> Substring {
        let bytes = Array(path.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = bytes[index + 1].hexValue, let low = bytes[index + 2].hexValue else { return path }
                let decoded = high << 4 | low
                if decoded.isUnreserved {
                    result.append(decoded)
                } else {
                    result.append(contentsOf: [UInt8(ascii: "%"), Self.hexDigits[Int(high)], Self.hexDigits[Int(low)]])
                }
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)[...]
    }

    /// `template` with every byte of a non-ASCII character percent-encoded (RFC 3987 §3.1).
    static func percentEncodingNonASCII(_ template: Substring) -> Substring {
        guard !template.utf8.allSatisfy({ $0 < 0x80 }) else { return template }
        var result: [UInt8] = []
        for byte in template.utf8 {
            if byte < 0x80 {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: result, as: UTF8.self)[...]
    }

    private static var hexDigits: [UInt8] { Array("0123456789ABCDEF".utf8) }
}

extension UInt8 {
    /// RFC 3986 `unreserved`: ALPHA / DIGIT / "-" / "." / "_" / "~".
    fileprivate var isUnreserved: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

/// The outcome of ``Router/match(method:path:)``.
public enum RouteMatch<Value: Sendable>: Sendable {
    /// A route matched; here are its value and the raw path parameters.
    case found(Value, PathParameters)
    /// The path matched routes, but none for the method; `allowed` is for the `Allow` header.
    case methodNotAllowed(allowed: [HTTPRequest.Method])
    /// No route has this path.
    case notFound
}

/// The values of a matched route's path parameters, exactly as they appeared in the path
/// (still percent-encoded).
public struct PathParameters: Sendable, Equatable, Sequence {
    private var storage: [(name: String, value: Substring)] = []

    /// Creates an empty set of parameters.
    public init() {}

    /// Adds a parameter.
    public mutating func append(name: String, value: Substring) { storage.append((name, value)) }

    /// The raw value of the parameter called `name`.
    public subscript(name: String) -> Substring? { storage.first { $0.name == name }?.value }

    /// The number of parameters.
    public var count: Int { storage.count }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: Substring)> { storage.makeIterator() }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage.elementsEqual(rhs.storage) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A route that cannot be registered.
public struct RouteError: Error, CustomStringConvertible, Sendable {
    enum Kind: Sendable {
        case invalidTemplate(String, String)
        case duplicate(method: HTTPRequest.Method, path: String, existing: String)
        case serverRunning(method: HTTPRequest.Method, path: String)
    }

    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }

    public var description: String {
        switch kind {
        case .invalidTemplate(let template, let reason):
            "invalid path template \"\(template)\": \(reason)"
        case .duplicate(let method, let path, let existing):
            "route \(method.rawValue) \(path) conflicts with \(method.rawValue) \(existing), registered earlier"
        case .serverRunning(let method, let path):
            "cannot register \(method.rawValue) \(path): routes must be registered before the server runs"
        }
    }
}
