import HTTPTypes
import Synchronization
import WhiskerCore

/// ``CompressionSettings`` at work, a feature: the last ``ResponseStep`` of every response, the
/// content coding.
struct ResponseCompression: ServerFeature, ResponseStep {
    let settings: CompressionSettings
    var phase: ResponseStepPhase { .coding }

    func contribute(to contributions: inout ServerFeatureContributions) { contributions.add(self as any ResponseStep) }

    /// Levels the libraries do not take are a startup error naming the setting.
    func validate(_ configuration: WhiskerServer.Configuration) throws(WhiskerServerError) {
        guard (1...9).contains(settings.gzipLevel) else {
            throw WhiskerServerError("configuration.compression: gzipLevel must be 1...9, got \(settings.gzipLevel)")
        }
        guard (0...11).contains(settings.brotliQuality) else {
            throw WhiskerServerError("configuration.compression: brotliQuality must be 0...11, got \(settings.brotliQuality)")
        }
        guard (1...19).contains(settings.zstdLevel) else {
            throw WhiskerServerError("configuration.compression: zstdLevel must be 1...19, got \(settings.zstdLevel)")
        }
    }

    func apply(to response: inout Response, for request: HTTPRequest, requestID: String?) {
        response = encode(response, for: request)
    }

    func encode(_ response: Response, for request: HTTPRequest) -> Response {
        guard let type = compressibleType(of: response) else { return response }
        var response = response
        response.head.headerFields.addVary(.acceptEncoding)
        let accepted = AcceptEncoding(request.headerFields)
        guard let coding = accepted.preferred(among: settings.codings) else { return response }
        switch response.body.storage {
        case .empty, .switchingProtocols:
            return response
        case .bytes(let bytes):
            // A coding that fails (no memory) leaves the body as it was: still a right answer.
            guard let coded = try? coding.encode(bytes, settings: settings) else { return response }
            response.body = ResponseBody(bytes: coded)
        case .stream(let length, let write):
            response.body = ResponseBody(length: nil) { [settings] writer in
                let compressor = try coding.compressor(for: length, settings: settings, eventStream: type.isEventStream)
                let sink = CompressingSink(writer, compressor: compressor)
                try await write(ResponseBodyWriter(sink: sink))
                try await sink.finish()
            }
        }
        var fields = response.head.headerFields
        fields[.contentEncoding] = coding.token
        // The length the handler may have declared is the identity body's.
        fields[.contentLength] = nil
        if let etag = fields[.eTag], !etag.hasPrefix("W/") { fields[.eTag] = "W/" + etag }
        response.head.headerFields = fields
        return response
    }

    /// The response's media type when everything but the client's `Accept-Encoding` says it may be
    /// compressed, else `nil`. The cheap checks first: most responses of an API are small.
    private func compressibleType(of response: Response) -> MediaType? {
        let minimum = max(settings.minimumSize, 1)
        switch response.body.storage {
        case .empty, .switchingProtocols: return nil
        case .bytes(let bytes): guard bytes.count >= minimum else { return nil }
        case .stream(let length, _): guard length.map({ $0 >= minimum }) ?? true else { return nil }
        }
        let status = response.head.status.code
        guard status >= 200, status != 204, status != 206, status != 304 else { return nil }
        let fields = response.head.headerFields
        guard fields[.contentEncoding] == nil, fields[.contentRange] == nil,
              let type = fields[.contentType].flatMap(MediaType.init), settings.compresses(type)
        else { return nil }
        if let cacheControl = fields[.cacheControl], cacheControl.lowercased().contains("no-transform") { return nil }
        return type
    }
}

/// Passes a streamed body through a compressor: each chunk leaves coded and flushed.
private final class CompressingSink: ResponseBodySink {
    private let next: ResponseBodyWriter
    private let compressor: Mutex<any StreamCompressor>

    init(_ next: ResponseBodyWriter, compressor: sending any StreamCompressor) {
        self.next = next
        self.compressor = Mutex(compressor)
    }

    func writeBodyChunk(_ bytes: ArraySlice<UInt8>) async throws {
        let coded = try compressor.withLock { try $0.compress(bytes) }
        try await next.write(coded)
    }

    /// Writes the end of the coded stream.
    func finish() async throws {
        let last = try compressor.withLock { try $0.finish() }
        try await next.write(last)
    }
}
