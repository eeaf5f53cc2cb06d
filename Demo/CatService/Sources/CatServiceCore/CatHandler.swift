#if canImport(CatClip)
import CatClip
#else
// The benchmark servers (Benchmarks/Shared symlinks this file) bundle the clip as a resource.
import Foundation
#endif
import OpenAPIRuntime

/// The CatService's operations, as the generated `APIProtocol` asks for them.
struct CatHandler: APIProtocol {
    /// The cats that `getEmoji` picks from: the set in the WWDC23 talk's code.
    static let cats: [Character] = Array("🐱😹😻🙀😿😽😸😺😾😼")

    /// The counts `getEmoji` and `getEmojiStream` accept; an absent `count` means 1 and 10.
    static let countRange = 1...100
    /// The milliseconds between events that `getEmojiStream` accepts; an absent `interval_ms` means 1000.
    static let intervalRange = 0...5000

    /// The bytes of `cat.mp4`, compiled into the binary (CatClip).
    let clip: ArraySlice<UInt8>
    /// The clip's strong entity tag (its length and a 64-bit FNV-1a hash of its bytes), which
    /// `ClipValidatorMiddleware` sends as `getClip`'s `ETag`.
    let clipETag: String

    #if canImport(CatClip)
    /// Serves the clip compiled into the binary (CatClip's `cat.mp4`), copied once into an array.
    /// - Throws: ``MissingResourceError`` if the clip compiled in is empty.
    init() throws {
        let bytes = UnsafeBufferPointer(start: cat_clip_bytes(), count: Int(cat_clip_count()))
        guard !bytes.isEmpty else { throw MissingResourceError(name: "cat.mp4", underlying: nil) }
        self.init(clip: ArraySlice(bytes))
    }
    #else
    /// Loads the clip from the module's resource bundle.
    /// - Throws: ``MissingResourceError`` if `cat.mp4` is not in the bundle or cannot be read.
    init() throws {
        guard let url = Bundle.module.url(forResource: "cat", withExtension: "mp4") else {
            throw MissingResourceError(name: "cat.mp4", underlying: nil)
        }
        do {
            self.init(clip: ArraySlice(try Data(contentsOf: url)))
        } catch {
            throw MissingResourceError(name: url.path, underlying: error)
        }
    }
    #endif

    /// What the shelter's report counts.
    let ledger = ShelterLedger()

    /// Serves `clip` as the clip.
    init(clip: ArraySlice<UInt8>) {
        self.clip = clip
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in clip {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        clipETag = "\"\(String(clip.count, radix: 16))-\(String(hash, radix: 16))\""
    }

    /// `GET /emoji`: one cat chosen at random, repeated `count` times, as plain text (as the talk's
    /// code does). The document's `minimum` and `maximum` are enforced before the handler runs
    /// (`WhiskerTransport(server, validatingAgainst:)`); the check here only keeps a server run with
    /// `--no-validation` from trapping on a negative count.
    func getEmoji(_ input: Operations.getEmoji.Input) async throws -> Operations.getEmoji.Output {
        let count = input.query.count ?? 1
        if let problem = Self.outOfRange("count", count, Self.countRange) { return .badRequest(problem) }
        let chosen = Self.cats.randomElement()!
        return .ok(.init(body: .plainText(HTTPBody(String(repeating: chosen, count: count)))))
    }

    /// `GET /emoji/stream`: `count` server-sent events, `interval_ms` apart, each one random cat
    /// (``CatEvents``), encoded by the runtime's `asEncodedServerSentEvents()`: one chunk per event,
    /// which Whisker sends as it comes. The parameters' ranges are enforced as `getEmoji`'s are.
    func getEmojiStream(_ input: Operations.getEmojiStream.Input) async throws -> Operations.getEmojiStream.Output {
        let count = input.query.count ?? 10
        let interval = input.query.interval_ms ?? 1000
        if let problem = Self.outOfRange("count", count, Self.countRange) ?? Self.outOfRange("interval_ms", interval, Self.intervalRange) {
            return .badRequest(problem)
        }
        let events = CatEvents(count: count, interval: .milliseconds(interval)).asEncodedServerSentEvents()
        return .ok(.init(body: .text_event_hyphen_stream(HTTPBody(events, length: .unknown, iterationBehavior: .single))))
    }

    /// The 400 for a parameter outside its range (problem details, as the document's `Problem`
    /// response), or `nil` when it is inside.
    static func outOfRange(_ name: String, _ value: Int, _ range: ClosedRange<Int>) -> Components.Responses.Problem? {
        guard !range.contains(value) else { return nil }
        let detail = "query parameter \(name): must be between \(range.lowerBound) and \(range.upperBound), got \(value)"
        return .init(body: .application_problem_plus_json(.init(
            _type: "about:blank", title: "Bad Request", status: 400, detail: detail
        )))
    }

    /// `GET /clip`: the bundled MP4, with its length known up front (which lets the server answer
    /// `Range` requests).
    func getClip(_ input: Operations.getClip.Input) async throws -> Operations.getClip.Output {
        .ok(.init(body: .video_mp4(HTTPBody(clip, length: .known(Int64(clip.count))))))
    }
}

/// The bundled resource the service needs is missing or unreadable.
public struct MissingResourceError: Error, CustomStringConvertible {
    /// The resource's name or path.
    public var name: String
    /// What failed while reading it, if it was found.
    public var underlying: (any Error)?

    public init(name: String, underlying: (any Error)?) {
        self.name = name
        self.underlying = underlying
    }

    public var description: String {
        if let underlying {
            return "cannot read bundled resource \(name): \(underlying)"
        }
        return "bundled resource \(name) is missing from the cat-service resource bundle"
    }
}
