import HTTPTypes
import Logging
import WhiskerCore
import WhiskerHTTP

/// Answers one request for a file: the method, the path's checks, the lookup, the representation
/// (a precompressed sibling or the file), the validators, preconditions and range.
struct StaticFileResponder: Sendable {
    let root: StaticRoot
    let prefix: String
    let options: StaticFileOptions
    let logger: Logger

    func respond(to request: Request) -> Response {
        let head = request.head
        let target = head.path ?? "/"
        let queryStart = target.firstIndex(of: "?") ?? target.endIndex
        let path = target[..<queryStart]
        guard head.method == .get || head.method == .head else {
            return ProblemDetails(status: .methodNotAllowed, detail: "files answer GET and HEAD").response(to: head, fields: [.allow: "GET, HEAD"])
        }
        switch StaticFilePath.parse(path, prefix: prefix, options: options) {
        case .refused(let status, let reason):
            return refuse(head, path: path, reason: reason, status: status == 400 ? .badRequest : .notFound)
        case .prefixWithoutSlash:
            return redirect(path: path, query: target[queryStart...])
        case .names(let names, let directory):
            switch root.lookUp(names, directory: directory, indexFiles: options.indexFiles) {
            case .missing(let reason):
                return refuse(head, path: path, reason: reason, status: .notFound)
            case .directoryWithoutSlash:
                return redirect(path: path, query: target[queryStart...])
            case .file(let directory, let ownsDirectory, let name, _):
                defer { if ownsDirectory { _ = closeDescriptor(directory) } }
                return answer(head, name: name, in: directory, path: path)
            }
        }
    }

    /// The file `name` (or its chosen precompressed sibling) as it answers `head`.
    private func answer(_ head: HTTPRequest, name: String, in directory: Int32, path: Substring) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = ContentTypes.type(of: name, overrides: options.contentTypes, fallback: options.defaultContentType)
        var chosen = name
        if options.servesPrecompressed {
            let siblings = [("br", name + ".br"), ("zstd", name + ".zst"), ("gzip", name + ".gz")].filter { StaticRoot.regularFile($0.1, in: directory) != nil }
            if !siblings.isEmpty {
                fields[.vary] = "Accept-Encoding"
                let accepted = AcceptEncoding(head.headerFields)
                if let sibling = accepted.preferred(among: siblings, notBelowIdentity: true, token: \.0) {
                    chosen = sibling.1
                    fields[.contentEncoding] = sibling.0
                }
            }
        }
        guard let file = StaticRoot.openFile(chosen, in: directory) else {
            return refuse(head, path: path, reason: "cannot open the file", status: .notFound)
        }
        fields[.eTag] = file.entityTag
        fields[.lastModified] = DateCache.format(file.modified.seconds)
        fields[.acceptRanges] = "bytes"
        if let cacheControl = options.cacheControl { fields[.cacheControl] = cacheControl }
        var response = Response(status: .ok, headerFields: fields)
        // 304 and 412 as every response gets them (ConditionalRequests): the file is closed unread.
        let checked = response.answeringPreconditions(of: head)
        guard checked.head.status == .ok else { return checked }
        var start: Int64 = 0
        var count = file.size
        switch RangeAnswer.decide(head, response.head, length: file.size, codedContent: true) {
        case .whole:
            break
        case .partial(let range, let length):
            response.head.status = .partialContent
            response.head.headerFields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
            start = range.lowerBound
            count = range.upperBound - range.lowerBound + 1
        case .unsatisfiable(let length):
            return Response(
                status: .rangeNotSatisfiable,
                headerFields: [.contentRange: "bytes */\(length)", .acceptRanges: "bytes", .contentType: "text/plain; charset=utf-8"],
                body: .init(string: "range not satisfiable: the representation has \(length) bytes\n"))
        }
        if head.method == .head {
            // The head of GET, no byte of the file: it closes now.
            response.body = ResponseBody(length: count) { _ in }
            return response
        }
        response.body = ResponseBody(length: count) { [start, count] writer in
            try await writer.writeFile(descriptor: file.descriptor, offset: start, count: count)
            withExtendedLifetime(file) {}
        }
        return response
    }

    /// 301 to `path` with a slash, the query kept.
    private func redirect(path: Substring, query: Substring) -> Response {
        Response(status: .movedPermanently, headerFields: [.location: "\(path)/\(query)", .contentType: "text/plain; charset=utf-8"], body: .init(string: "moved to \(path)/\n"))
    }

    /// A refused path: 404 (or 400) without saying more to the client, and a log line that does.
    private func refuse(_ head: HTTPRequest, path: Substring, reason: String, status: HTTPResponse.Status) -> Response {
        logger.forRequest(RequestContext.current?.requestID).info("static file refused", metadata: [
            "path": "\(LogValue.quoted(String(path.prefix(256))))", "status": "\(status.code)", "reason": "\(LogValue.quoted(reason))",
        ])
        return ProblemDetails(status: status, detail: status == .badRequest ? "malformed path" : "no such file").response(to: head)
    }
}
