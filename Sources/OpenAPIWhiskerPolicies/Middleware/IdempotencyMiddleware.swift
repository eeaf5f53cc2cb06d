public import HTTPTypes
public import Logging
public import OpenAPIRuntime
import WhiskerCore

/// ``IdempotencyKeys`` as a `ServerMiddleware`: a retried request with the same `Idempotency-Key`
/// gets the first one's answer, and the handler runs once.
///
///     try handler.registerHandlers(on: transport, serverURL: url, middlewares: [
///         try RequestValidationMiddleware(document, authenticators: authenticators),
///         IdempotencyMiddleware(IdempotencyKeys(.required), for: ["adoptCat"]),
///     ])
///
/// Keys are scoped by operation and by principal (`RequestContext.current?.principal`, so place it
/// after the middleware that authenticates), or the client's address without one: two clients
/// cannot see each other's answers by guessing a key. `WhiskerTransport`'s `policies:` (or the
/// document's `x-idempotency`) places it so for you.
public struct IdempotencyMiddleware: ServerMiddleware {
    private let keys: IdempotencyKeys
    private let store: any IdempotencyStore
    private let scope: OperationScope
    private let logger: Logger?

    /// Idempotency keys for the operations of `operations`.
    /// - Parameters:
    ///   - keys: Whether a key is required, how long answers are kept, and where.
    ///   - operations: The operations it applies to; the others pass as they are.
    ///   - logger: Where refusals are logged (`info`): `nil` (the default) logs to swift-log's
    ///     `Logger.current`, bound by Whisker for every request with its `request_id`.
    public init(_ keys: IdempotencyKeys, for operations: OperationScope = .all, logger: Logger? = nil) {
        self.keys = keys
        store = keys.store ?? InMemoryIdempotencyStore()
        scope = operations
        self.logger = logger
    }

    /// Runs the request once per key: claims the key and keeps the answer, or answers from the
    /// key's record. A request without a key (where it is optional) goes straight on.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard scope.contains(operationID) else { return try await next(request, body, metadata) }
        // A walk over the fields, not `headerFields[name]`: a lookup by name builds the fields'
        // index, allocations on each request, one without the field too.
        guard let field = request.headerFields.first(where: { $0.name == .idempotencyKey })?.value else {
            guard keys.requirement == .required else { return try await next(request, body, metadata) }
            return refuse(request, .badRequest, operationID, "this operation requires an Idempotency-Key field")
        }
        return try await keyed(field, request, body: body, metadata: metadata, operationID: operationID, next: next)
    }

    /// A request with a key. Out of line, so that the async frame of a request without one stays
    /// small.
    @inline(never)
    private func keyed(
        _ field: String, _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let key = Self.key(field) else {
            return refuse(request, .badRequest, operationID, "Idempotency-Key must be a string of 1 to 255 printable ASCII characters")
        }
        var bytes: ArraySlice<UInt8>?
        if let body { bytes = try await ArraySlice<UInt8>(collecting: body, upTo: .max) }
        let context = RequestContext.current
        let whose = RateLimitKey(RateLimiter.key(client: context?.client, principal: context?.principal?.name, by: .principal))
        let recordKey = "\(operationID):\(whose):\(key)"
        let fingerprint = Self.fingerprint(request, body: bytes ?? [])
        let passedBody = bytes.map { HTTPBody($0) }

        let record: IdempotencyRecord?
        do {
            record = try await store.claim(recordKey, fingerprint: fingerprint, lease: keys.lease)
        } catch {
            return try await keys.whenStoreFails.answer(
                error, for: "idempotency key", running: "run without its key's record", request, body: passedBody, metadata: metadata,
                operationID: operationID, logger: logger ?? Logger.current, next: next
            )
        }
        switch record {
        case nil:
            return try await runOnce(request, body: passedBody, metadata: metadata, key: recordKey, fingerprint: fingerprint, operationID: operationID, next: next)
        case let record? where record.fingerprint != fingerprint:
            return refuse(request, .unprocessableContent, operationID, "this Idempotency-Key was used with another request: use a new key for a new request")
        case .inFlight?:
            var fields = HTTPFields()
            fields[.retryAfter] = "1"
            return refuse(request, .conflict, operationID, "a request with this Idempotency-Key is still being processed; retry in 1 s", fields: fields)
        case .completed(_, let response)?:
            var head = HTTPResponse(status: response.status, headerFields: response.headerFields)
            head.headerFields[.idempotentReplayed] = "true"
            return (head, response.body.isEmpty ? nil : HTTPBody(response.body))
        }
    }

    /// The first request with the key: runs it, then keeps its answer, or frees the key when
    /// there is nothing to keep (an error, a 5xx, a streamed or too long body).
    private func runOnce(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, key: String, fingerprint: String, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let head: HTTPResponse, responseBody: HTTPBody?
        do {
            (head, responseBody) = try await next(request, body, metadata)
        } catch {
            await release(key, fingerprint: fingerprint, operationID: operationID)
            throw error
        }
        let kept: [UInt8]?
        switch responseBody?.length {
        case nil: kept = []
        case .known(let length)? where length <= keys.maxStoredBodySize: kept = Array(try await ArraySlice<UInt8>(collecting: responseBody!, upTo: keys.maxStoredBodySize))
        default: kept = nil
        }
        guard head.status.kind != .serverError, let kept else {
            if head.status.kind != .serverError {
                (logger ?? Logger.current).warning("idempotency key not kept", metadata: [
                    "operation": "\(operationID)", "reason": "the answer's body is streamed or longer than \(keys.maxStoredBodySize) bytes: a retry runs again",
                ], source: logSource)
            }
            await release(key, fingerprint: fingerprint, operationID: operationID)
            return (head, responseBody)
        }
        do {
            try await store.complete(key, fingerprint: fingerprint, response: IdempotentResponse(status: head.status, headerFields: head.headerFields, body: kept), keepFor: keys.expiry)
        } catch {
            (logger ?? Logger.current).warning("idempotency key not kept", metadata: [
                "operation": "\(operationID)", "reason": "the store failed: \(error)",
            ], source: logSource)
        }
        return (head, kept.isEmpty ? nil : HTTPBody(kept))
    }

    private func release(_ key: String, fingerprint: String, operationID: String) async {
        do {
            try await store.release(key, fingerprint: fingerprint)
        } catch {
            // The claim then holds until its lease ends.
            (logger ?? Logger.current).debug("idempotency key not released", metadata: ["operation": "\(operationID)", "error": "\(error)"], source: logSource)
        }
    }

    private func refuse(
        _ request: HTTPRequest, _ status: HTTPResponse.Status, _ operationID: String, _ detail: String, fields: HTTPFields = [:]
    ) -> (HTTPResponse, HTTPBody?) {
        (logger ?? Logger.current).info("request refused", metadata: [
            "operation": "\(operationID)", "status": "\(status.code)", "error": "idempotency key: \(detail)",
        ], source: logSource)
        return ProblemDetails(status: status, detail: detail).response(to: request, fields: fields).openAPI
    }

    /// The key a field names: 1 to 255 printable ASCII characters. A structured-field string
    /// (`"8e03978e-40d5"`, the draft's form) names the key in its quotes, and the bare value (as
    /// many clients send it) is the same key; a value that is not a structured-field string of a
    /// valid key (`"unterminated`, `""`) is a bare key, quotes and all. So every key a document
    /// can describe as `{type: string, minLength: 1, maxLength: 255}` of printable ASCII is one.
    static func key(_ field: String) -> String? {
        if field.hasPrefix("\""), let key = unquoted(field), isValid(key) { return key }
        return isValid(field) ? field : nil
    }

    private static func isValid(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The content of the structured-field string `field` (RFC 9651, section 3.3.3), or `nil`.
    private static func unquoted(_ field: String) -> String? {
        guard field.count >= 2, field.hasSuffix("\"") else { return nil }
        var key = ""
        var escaped = false
        for character in field.dropFirst().dropLast() {
            if escaped || character != "\\" {
                if !escaped, character == "\"" { return nil }
                key.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return escaped ? nil : key
    }

    /// The request's fingerprint: SHA-256 of its method, target and body, in hexadecimal.
    static func fingerprint(_ request: HTTPRequest, body: ArraySlice<UInt8>) -> String {
        var hash = Digesting<SHA256>()
        hash.update("\(request.method.rawValue) \(request.path ?? "")\n".utf8)
        hash.update(body)
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: hash.finalize().flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}

extension HTTPField.Name {
    /// draft-ietf-httpapi-idempotency-key-header.
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// Marks an answer replayed for a retry (as Stripe and others send it).
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}
