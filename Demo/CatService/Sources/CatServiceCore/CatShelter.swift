import OpenAPIRuntime

/// The CatService's two operations with request bodies: a large upload (`countCats`) and a
/// small JSON request (`adoptCat`), each with its own body limit (see `CatHandler.requestBodyLimits`).
extension CatHandler {
    /// The body limits of the two operations, keyed as the transport takes them.
    static let requestBodyLimits = ["POST /api/census": 64 << 20, "POST /api/adopt": 1024] as [String: Int64]

    /// `POST /census`: counts the cats in the text as it streams in (a cat's four UTF-8 bytes may
    /// straddle two chunks), never holding more than one chunk.
    func countCats(_ input: Operations.countCats.Input) async throws -> Operations.countCats.Output {
        var counter = CatCounter()
        switch input.body {
        case .plainText(let body):
            for try await chunk in body { counter.read(chunk) }
        }
        return .ok(.init(body: .json(.init(cats: counter.cats, bytes: counter.bytes))))
    }

    /// `POST /adopt`: welcomes the named cat. The name's 1 to 100 characters, not only spaces,
    /// are the document's `minLength`, `maxLength` and `pattern`, enforced before the handler runs.
    func adoptCat(_ input: Operations.adoptCat.Input) async throws -> Operations.adoptCat.Output {
        let adoption = switch input.body { case .json(let adoption): adoption }
        let name = adoption.name.trimmingWhitespace
        ledger.adopted()
        return .created(.init(body: .json(.init(message: "Welcome home, \(name) 😻"))))
    }
}

/// Counts cat emoji in UTF-8 text that arrives in pieces.
struct CatCounter {
    private(set) var cats: Int64 = 0
    private(set) var bytes: Int64 = 0
    /// The last bytes of the previous piece that may begin a cat.
    private var carry: [UInt8] = []

    /// The UTF-8 of each cat that `getEmoji` picks from.
    private static let patterns: Set<[UInt8]> = Set(CatHandler.cats.map { Array(String($0).utf8) })

    mutating func read(_ piece: some Collection<UInt8>) {
        bytes += Int64(piece.count)
        let text = carry + piece
        var index = 0
        while index + 4 <= text.count {
            if text[index] == 0xF0, Self.patterns.contains(Array(text[index..<(index + 4)])) {
                cats += 1
                index += 4
            } else {
                index += 1
            }
        }
        carry = Array(text[index...])
    }
}

extension String {
    /// The text without the white space (Unicode's White_Space: spaces, tabs, line breaks) around it.
    var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = self[start...].lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
