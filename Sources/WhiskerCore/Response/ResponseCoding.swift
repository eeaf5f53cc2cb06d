package import HTTPTypes

/// Changes how a response's content is represented on its way out (a content coding such as gzip),
/// once everything else has been decided: the handler's response with the server's own fields, its
/// `ETag`, the request's preconditions (304, 412) and `Range` (206, 416). `WhiskerCompression`
/// plugs in here through ``WhiskerServer/Configuration/responseCoding``; `nil` costs one check.
package protocol ResponseCoding: Sendable {
    /// `response` as it answers `request`: the same response, or one with a coded body and the
    /// fields that say so (`Content-Encoding`, `Vary`).
    func encode(_ response: Response, for request: HTTPRequest) -> Response
}
