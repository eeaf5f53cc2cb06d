import Synchronization
import WhiskerCore

extension ContractCheck {
    /// The most violating items of one response reported: a stream whose every event is wrong
    /// says so ten times, not once per event for hours.
    static let reportedItemsLimit = 10

    /// Checks each item of `response`'s body (of the sequential media type `type`) against the
    /// schema `schema` as it is written, and hands the problems of each item that violates it to
    /// `report`.
    func checkItems(
        of response: inout Response, as type: SequentialMediaType, against schema: Int, report: @escaping @Sendable ([String]) -> Void
    ) {
        let checker = ItemChecker(type: type, schema: schema, schemas: operations.schemas, limit: Self.streamedBodyLimit, report: report)
        switch response.body.storage {
        case .bytes(let bytes):
            checker.read(bytes)
            checker.finish()
        case .stream(let length, let write):
            response.body = ResponseBody(length: length) { writer in
                try await write(ResponseBodyWriter(sink: ItemCheckingSink(forwardingTo: writer.sink, checker: checker)))
                checker.finish()
            }
        case .empty, .switchingProtocols:
            break
        }
    }
}

/// Reads the items of one response's body and checks each against its schema.
private final class ItemChecker: Sendable {
    private struct State {
        var reader: SequentialItemReader
        var items = 0
        var reported = 0
    }

    private let state: Mutex<State>
    private let schema: Int
    private let schemas: SchemaSet
    private let name: String
    private let report: @Sendable ([String]) -> Void

    init(type: SequentialMediaType, schema: Int, schemas: SchemaSet, limit: Int, report: @escaping @Sendable ([String]) -> Void) {
        state = Mutex(State(reader: SequentialItemReader(type: type, limit: limit)))
        self.schema = schema
        self.schemas = schemas
        name = type.itemName
        self.report = report
    }

    func read(_ chunk: some Collection<UInt8> & Sendable) {
        for problems in state.withLock({ state in checked(&state) { $0.read(chunk, $1) } }) { report(problems) }
    }

    func finish() {
        for problems in state.withLock({ state in checked(&state) { $0.finish($1) } }) { report(problems) }
    }

    /// The problems of each violating item that `reading` completes, one list per item.
    private func checked(_ state: inout State, _ reading: (inout SequentialItemReader, (SequentialItemReader.Item) -> Void) -> Void) -> [[String]] {
        var found: [[String]] = []
        var items = state.items
        var reported = state.reported
        reading(&state.reader) { item in
            items += 1
            guard reported < ContractCheck.reportedItemsLimit else { return }
            let problems = schemas.problems(of: item, number: items, name: name, against: schema)
            if !problems.isEmpty {
                reported += 1
                found.append(problems)
            }
        }
        state.items = items
        state.reported = reported
        return found
    }
}

/// Passes a streamed body on, its items checked first.
private struct ItemCheckingSink: ResponseBodySink {
    let next: any ResponseBodySink
    let checker: ItemChecker

    init(forwardingTo next: any ResponseBodySink, checker: ItemChecker) {
        self.next = next
        self.checker = checker
    }

    func writeBodyChunk(_ chunk: ArraySlice<UInt8>) async throws {
        checker.read(chunk)
        try await next.writeBodyChunk(chunk)
    }
}
