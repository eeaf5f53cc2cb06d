// `Upgrade: h2c`: the input is parsed as an HTTP/1.1 head by HTTP1RequestParser, then
// `HTTP2Upgrade.settingsPayload` decides, as HTTP1Connection does; an accepted upgrade starts an
// HTTP/2 session with the decoded settings (nghttp2_session_upgrade2), serves the upgraded request
// as stream 1 and reads the client's preface, as HTTP2Connection does. `base64URLDecoded` also
// runs on the raw input.
//
// Checked: an accepted upgrade is HTTP/1.1 without a body, with `Upgrade: h2c`, both connection
// options and one `HTTP2-Settings`; its payload is whole settings entries; the upgraded request's
// HTTP/2 fields parse back to the same method, path and authority; the decoder round-trips.

import FuzzSupport
import HTTPTypes
@testable import WhiskerCore
@testable import WhiskerHTTP
@testable import WhiskerHTTP2
import WhiskerSockets

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

/// Base64url without padding (RFC 4648 §5).
private func encode(_ bytes: some Collection<UInt8>) -> String {
    var out: [UInt8] = []
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in bytes {
        accumulator = accumulator << 8 | UInt32(byte)
        bits += 8
        while bits >= 6 {
            bits -= 6
            out.append(alphabet[Int((accumulator >> UInt32(bits)) & 63)])
        }
    }
    if bits > 0 { out.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 63)]) }
    return String(decoding: out, as: UTF8.self)
}

private let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
private let connectionSpecific: Set<HTTPField.Name> = [.connection, .transferEncoding, .upgrade, HTTPField.Name("Proxy-Connection")!, HTTPField.Name("Keep-Alive")!]

private func checkDecoder(_ text: String, raw: UnsafeBufferPointer<UInt8>) {
    if let decoded = HTTP2Upgrade.base64URLDecoded(text) {
        guard decoded.count % 6 == 0 else { fuzzFailure("decoded \(decoded.count) bytes, not whole settings entries") }
        let significant = text.utf8.count { $0 != UInt8(ascii: "=") }
        guard decoded.count == significant * 6 / 8 else { fuzzFailure("\(significant) characters decode to \(decoded.count) bytes") }
        guard HTTP2Upgrade.base64URLDecoded(encode(decoded)) == decoded else { fuzzFailure("decoding is not stable") }
    }
    // Any whole number of entries survives the round trip.
    let entries = raw.prefix(raw.count - raw.count % 6)
    guard HTTP2Upgrade.base64URLDecoded(encode(entries)) == Array(entries) else { fuzzFailure("round trip of \(entries.count) bytes fails") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH2CUpgrade(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    checkDecoder(String(decoding: raw, as: UTF8.self), raw: raw)

    var limits = WhiskerServer.Limits()
    limits.maxHeaderBytes = 4096
    var parser = HTTP1RequestParser(limits: limits)
    var buffer = ReadBuffer(raw)
    guard case .head(let head)? = try? parser.next(&buffer) else { return 0 }
    // The settings field's value, decoded on its own too.
    for value in head.request.headerFields[values: HTTPField.Name("HTTP2-Settings")!] {
        checkDecoder(value, raw: UnsafeBufferPointer(start: nil, count: 0))
    }
    // The core asks about an HTTP/1.1 request without a body only (HTTP1Connection).
    guard head.isHTTP11, head.framing == .none, let payload = HTTP2Upgrade.settingsPayload(head.request) else { return 0 }

    let fields = head.request.headerFields
    let upgrades = fields[values: .upgrade].flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() }
    let options = Set(fields[values: .connection].flatMap { $0.split(separator: ",") }.map { $0.trimmingOWS().lowercased() })
    guard upgrades.contains("h2c"), options.isSuperset(of: ["upgrade", "http2-settings"]),
          fields[values: HTTPField.Name("HTTP2-Settings")!].count == 1, payload.count % 6 == 0
    else { fuzzFailure("upgrade accepted for a head that does not ask for it") }

    // HTTP2Connection.startUpgradedRequest: the request as stream 1's fields.
    let request = head.request
    var h2Fields = HTTP2RequestFields(capacity: request.headerFields.count)
    h2Fields.append(":method", request.method.rawValue)
    h2Fields.append(":scheme", "http")
    h2Fields.append(":authority", request.authority ?? "")
    h2Fields.append(":path", request.path ?? "/")
    for field in request.headerFields where !connectionSpecific.contains(field.name) && field.name.canonicalName != "http2-settings" {
        h2Fields.append(field.name.canonicalName, field.value)
    }
    var validAuthority: String?
    let upgraded: HTTPRequest?
    do {
        upgraded = try HTTP2RequestHead.parse(h2Fields, validAuthority: &validAuthority)
    } catch {
        fuzzFailure("the upgraded request is refused over HTTP/2: \(error)")
    }
    guard let upgraded, upgraded.method == request.method, upgraded.path == request.path,
          upgraded.authority == (request.authority ?? "")
    else { fuzzFailure("the upgraded request changed: \(String(describing: upgraded))") }

    // The session, as the connection starts it; bad settings values are refused by nghttp2.
    guard let session = try? HTTP2Session(settings: HTTP2Settings(), maxHeaderFields: limits.maxHeaderCount,
                                          upgradeSettings: payload, upgradeIsHEAD: request.method == .head)
    else { return 0 }
    let body = Array("upgraded\n".utf8)
    let isHEAD = request.method == .head
    do {
        try session.respond(streamID: 1, status: 200, fields: [("content-length", "\(body.count)")], hasBody: !isHEAD)
    } catch {
        fuzzFailure("cannot answer the upgraded stream 1: \(error)")
    }
    if !isHEAD { session.send(streamID: 1, bytes: body[...], endStream: true, completion: nil) }
    // Whatever came after the head is the client's HTTP/2 (normally the preface).
    var events: [HTTP2Session.Event] = []
    do {
        events += try preface.withUnsafeBytes { try session.receive($0) }
        if buffer.readableBytes > 0 {
            events += try buffer.withUnsafeReadableBytes { try session.receive(UnsafeRawBufferPointer($0)) }
        }
    } catch {}
    for _ in 0..<64 {
        guard (try? session.takeOutput()) ?? nil != nil else { break }
    }
    events += session.takeEvents()
    return 0
}
