internal import COpenSSL

/// ALPN's wire format (RFC 7301 §3.1): each protocol name preceded by its length in one byte.
package func alpnWireFormat(_ protocols: [String]) -> [UInt8] {
    protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
}

/// The protocol ALPN selected on the connection `ssl`, or `nil` when none was.
package func selectedApplicationProtocol(_ ssl: OpaquePointer) -> String? {
    var name: UnsafePointer<UInt8>?
    var length: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &name, &length)
    guard let name, length > 0 else { return nil }
    return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
}
