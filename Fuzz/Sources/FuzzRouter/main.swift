// The router: OpenAPI path templates registered, then arbitrary methods and paths matched, and
// arbitrary templates registered (malformed ones must throw, not crash).
//
// Input: text lines. `+METHOD /template` registers a route on a copy of the fixed router
// (FuzzRoutes); `METHOD /path` matches one (a line without a space is a GET of the line).
//
// Every answer is checked against a plain reference written here, which compares bytes after
// the RFC 3986 §6.2.2 normalisation the router documents: a route is found exactly when some
// template matches the path with this method (HEAD falling back to GET); the template found,
// with its parameters put back, spells the normalised path; 405's Allow lists exactly the methods
// of the templates that match; a non-ASCII path never matches. Templates are normalised as paths
// are (non-ASCII percent-encoded as UTF-8 first), and the reference and the router must judge
// every one alike.

import FuzzSupport
import HTTPTypes
@testable import WhiskerCore
@testable import WhiskerHTTP

// MARK: Reference

// Structs, not enums with payloads: LeakSanitizer does not see pointers that carry an enum's
// tag bits, and would report these (kept in a global) as leaks.
private struct RefPart: Equatable {
    var literal: [UInt8] = []
    /// The parameter's name, for a capture.
    var capture: String?
    static func literal(_ bytes: [UInt8]) -> Self { .init(literal: bytes) }
    static func capture(_ name: String) -> Self { .init(capture: name) }
}

private struct RefSegment: Equatable {
    var literal: [UInt8] = []
    /// The parts, for a segment with captures.
    var parts: [RefPart]?
    static func literal(_ bytes: [UInt8]) -> Self { .init(literal: bytes) }
    static func pattern(_ parts: [RefPart]) -> Self { .init(parts: parts) }
}

private struct RefRoute {
    var method: HTTPRequest.Method
    var template: String
    var segments: [RefSegment]
}

/// The template's segments, or nil when it is malformed; bytes, not Characters.
private func refParse(_ template: String) -> [RefSegment]? {
    let bytes = Array(template.utf8)
    guard bytes.first == UInt8(ascii: "/") else { return nil }
    var names: Set<String> = []
    var segments: [RefSegment] = []
    for raw in bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
        guard raw.contains(UInt8(ascii: "{")) || raw.contains(UInt8(ascii: "}")) else {
            segments.append(.literal(Array(raw)))
            continue
        }
        var parts: [RefPart] = []
        var index = raw.startIndex
        while index < raw.endIndex {
            if raw[index] == UInt8(ascii: "{") {
                guard let close = raw[index...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
                let name = raw[(index + 1)..<close]
                guard !name.isEmpty, !name.contains(UInt8(ascii: "{")) else { return nil }
                if parts.last?.capture != nil { return nil }
                let text = String(decoding: name, as: UTF8.self)
                guard names.insert(text).inserted else { return nil }
                parts.append(.capture(text))
                index = close + 1
            } else {
                let end = raw[index...].firstIndex(of: UInt8(ascii: "{")) ?? raw.endIndex
                guard !raw[index..<end].contains(UInt8(ascii: "}")) else { return nil }
                parts.append(.literal(Array(raw[index..<end])))
                index = end
            }
        }
        segments.append(.pattern(parts))
    }
    return segments
}

/// The segment's shape with captures unnamed, as two equivalent templates share it.
private func shape(_ segments: [RefSegment]) -> [RefSegment] {
    segments.map { segment in
        guard let parts = segment.parts else { return segment }
        return .pattern(parts.map { $0.capture != nil ? .capture("") : $0 })
    }
}

private func isUnreserved(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
}

private func hex(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
}

/// RFC 3986 §6.2.2.1-2: unreserved characters decoded, other triplets' hex digits upper case.
private func refNormalize(_ path: [UInt8]) -> [UInt8] {
    guard percentSignsStartTriplets(path) else { return path }  // not a URI path: left alone
    var out: [UInt8] = []
    var index = 0
    while index < path.count {
        if path[index] == UInt8(ascii: "%"), index + 2 < path.count, let high = hex(path[index + 1]), let low = hex(path[index + 2]) {
            let value = high << 4 | low
            if isUnreserved(value) {
                out.append(value)
            } else {
                out += [UInt8(ascii: "%"), Array("0123456789ABCDEF".utf8)[Int(high)], Array("0123456789ABCDEF".utf8)[Int(low)]]
            }
            index += 3
        } else {
            out.append(path[index])
            index += 1
        }
    }
    return out
}

/// Every byte of a non-ASCII character percent-encoded, as a URI carries it (RFC 3987 §3.1).
private func percentEncoded(_ template: String) -> [UInt8] {
    template.utf8.flatMap { byte -> [UInt8] in
        byte < 0x80 ? [byte] : [UInt8(ascii: "%"), Array("0123456789ABCDEF".utf8)[Int(byte >> 4)], Array("0123456789ABCDEF".utf8)[Int(byte & 0xF)]]
    }
}

private func percentSignsStartTriplets(_ path: [UInt8]) -> Bool {
    for (index, byte) in path.enumerated() where byte == UInt8(ascii: "%") {
        guard index + 2 < path.count, hex(path[index + 1]) != nil, hex(path[index + 2]) != nil else { return false }
    }
    return true
}

private func matchParts(_ parts: ArraySlice<RefPart>, _ text: ArraySlice<UInt8>) -> Bool {
    guard let first = parts.first else { return text.isEmpty }
    guard first.capture != nil else {
        guard text.starts(with: first.literal) else { return false }
        return matchParts(parts.dropFirst(), text.dropFirst(first.literal.count))
    }
    if text.isEmpty { return false }
    if parts.count == 1 { return true }
    for end in (text.startIndex + 1)..<text.endIndex where matchParts(parts.dropFirst(), text[end...]) { return true }
    return false
}

private func refMatches(_ route: RefRoute, _ segments: [ArraySlice<UInt8>]) -> Bool {
    guard route.segments.count == segments.count else { return false }
    for (segment, text) in zip(route.segments, segments) {
        if let parts = segment.parts {
            guard matchParts(parts[...], text) else { return false }
        } else {
            guard text.elementsEqual(segment.literal) else { return false }
        }
    }
    return true
}

/// The template with each capture replaced by its parameter's value.
private func fill(_ route: RefRoute, _ parameters: PathParameters) -> [UInt8] {
    var out: [UInt8] = []
    for segment in route.segments {
        out.append(UInt8(ascii: "/"))
        guard let parts = segment.parts else {
            out += segment.literal
            continue
        }
        for part in parts {
            guard let name = part.capture else {
                out += part.literal
                continue
            }
            guard let value = parameters[name] else { fuzzFailure("parameter \(name) of \(route.template) missing") }
            if value.isEmpty { fuzzFailure("empty parameter \(name) of \(route.template)") }
            out += value.utf8
        }
    }
    return out
}

private let fixedRoutes: [RefRoute] = FuzzRoutes.all.map { route in
    guard let segments = refParse(route.template) else { fatalError("reference refuses \(route.template)") }
    return RefRoute(method: route.method, template: route.template, segments: segments)
}

// MARK: Target

private func method(_ text: Substring) -> HTTPRequest.Method {
    HTTPRequest.Method(String(text)) ?? .get
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouter(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    var router = FuzzRoutes.router
    var routes = fixedRoutes

    for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
        if line.first == "+" {
            let rest = line.dropFirst()
            let space = rest.firstIndex(of: " ")
            let routeMethod = space.map { method(rest[..<$0]) } ?? .get
            let template = String(space.map { rest[rest.index(after: $0)...] } ?? rest)
            let reference = refParse(String(decoding: refNormalize(percentEncoded(template)), as: UTF8.self))
            do {
                try router.register(routes.count, method: routeMethod, path: template)
                guard let reference else { fuzzFailure("router accepts the malformed template \(template)") }
                if routes.contains(where: { $0.method == routeMethod && shape($0.segments) == shape(reference) }) {
                    fuzzFailure("router accepts \(routeMethod.rawValue) \(template), equivalent to a registered route")
                }
                routes.append(RefRoute(method: routeMethod, template: template, segments: reference))
            } catch {
                guard let reference else { continue }
                let duplicate = routes.contains { $0.method == routeMethod && shape($0.segments) == shape(reference) }
                if !duplicate { fuzzFailure("router refuses the valid template \(template): \(error)") }
            }
            continue
        }

        let space = line.firstIndex(of: " ")
        let requestMethod = space.map { method(line[..<$0]) } ?? .get
        let path = space.map { line[line.index(after: $0)...] } ?? line
        let result = router.match(method: requestMethod, path: path)

        let normalized = refNormalize(Array(path.utf8))
        if path.utf8.contains(UInt8(ascii: "%")) {
            let routerNormalized = Router<Int>.normalizingPercentEncoding(path)
            guard routerNormalized.utf8.elementsEqual(normalized) else { fuzzFailure("normalisation of \(path) differs: \(routerNormalized)") }
            // Normalising twice changes nothing (a stray `%` once made a triplet with what followed a
            // decoded one: Regressions/FuzzRouter/normalisation-not-idempotent, fixed in 832d78a).
            guard Router<Int>.normalizingPercentEncoding(routerNormalized).utf8.elementsEqual(normalized) else {
                fuzzFailure("normalisation of \(path) is not idempotent")
            }
        }
        // A request path that is not ASCII never matches (requests carry ASCII only; compared as
        // Characters, the Kelvin sign was `K` and a combining mark hid a `/`: the regressions
        // kelvin-sign-equals-K and combining-mark-after-slash, fixed in 832d78a).
        if !path.utf8.allSatisfy({ $0 < 0x80 }) {
            guard case .notFound = result else { fuzzFailure("the non-ASCII path \(path) matches") }
            continue
        }

        var matching: [RefRoute] = []
        if normalized.first == UInt8(ascii: "/") {
            let segments = normalized.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            matching = routes.filter { refMatches($0, segments) }
        }
        let answers = matching.contains { $0.method == requestMethod || (requestMethod == .head && $0.method == .get) }
        switch result {
        case .found(let index, let parameters):
            guard answers else { fuzzFailure("found route \(index) for \(requestMethod.rawValue) \(path); no template matches") }
            let route = routes[index]
            guard route.method == requestMethod || (requestMethod == .head && route.method == .get) else {
                fuzzFailure("\(requestMethod.rawValue) \(path) found \(route.method.rawValue) \(route.template)")
            }
            let captureCount = route.segments.reduce(0) { $0 + ($1.parts ?? []).count { $0.capture != nil } }
            guard parameters.count == captureCount else { fuzzFailure("\(parameters.count) parameters for \(route.template)") }
            let filled = fill(route, parameters)
            guard filled == normalized else {
                fuzzFailure("\(route.template) with its parameters is \(String(decoding: filled, as: UTF8.self)), not the path \(path)")
            }
        case .methodNotAllowed(let allowed):
            guard !answers else { fuzzFailure("405 for \(requestMethod.rawValue) \(path), which \(matching.map(\.template)) answer") }
            var expected = Set(matching.map(\.method))
            if expected.contains(.get) { expected.insert(.head) }
            guard !allowed.isEmpty, Set(allowed) == expected, allowed.count == expected.count else {
                fuzzFailure("Allow \(allowed.map(\.rawValue)) for \(path), expected \(expected.map(\.rawValue).sorted())")
            }
            guard allowed == allowed.sorted(by: { $0.rawValue < $1.rawValue }) else { fuzzFailure("Allow not sorted") }
        case .notFound:
            guard matching.isEmpty else { fuzzFailure("404 for \(requestMethod.rawValue) \(path), which \(matching.map(\.template)) match") }
        }
    }
    return 0
}
