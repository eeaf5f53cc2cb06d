import HTTPTypes

/// Undoes the content coding of request bodies (`Content-Encoding: gzip`) as the handler reads
/// them. `WhiskerCompression` plugs in here through `configuration.requestDecompression`; `nil`
/// (the default) leaves bodies as they came, whatever they say.
package protocol RequestDecoding: Sendable {
    /// Whether a body coded as `coding` (one coding, lowercased) can be decoded; if not, the
    /// request gets `415 Unsupported Media Type`.
    func supports(_ coding: String) -> Bool
    /// A new decoder for a body coded as `coding`, one it ``supports(_:)``.
    func decoder(for coding: String) -> (any RequestBodyDecoder)?
    /// The most decoded bytes per coded byte a body may reach (past its first MiB), or `nil` for
    /// no bound: a decompression bomb gets `413`.
    var maxRatio: Int? { get }
}

/// One body's decoder: coded bytes in, decoded bytes out, a bounded piece at a time. Used by one
/// reader only.
package protocol RequestBodyDecoder: AnyObject {
    /// Takes `input`, the next coded bytes; ``output(upTo:)`` then gives what they decode to.
    func feed(_ input: ArraySlice<UInt8>)
    /// Up to `limit` decoded bytes, or `nil` when it needs more input (or, once ``isComplete()``
    /// is true, has no more).
    /// - Throws: an error saying what is malformed (the request gets `400`), or an
    ///   ``HTTPRejection`` to answer with instead: a limit of the server's own, say.
    func output(upTo limit: Int) throws -> ArraySlice<UInt8>?
    /// Whether the coded stream ended where it should (false: it was cut short).
    func isComplete() -> Bool
}

extension HTTPRejection {
    /// A body coded in a way the server does not decode.
    static func unsupportedCoding(_ coding: String) -> HTTPRejection {
        HTTPRejection(.unsupportedMediaType, "request body coding \"\(coding)\" is not supported")
    }
}
