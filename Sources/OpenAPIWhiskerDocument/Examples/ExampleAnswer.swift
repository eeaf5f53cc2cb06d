import WhiskerCore

extension DocumentOperations {
    /// What the answer to `request` does that the document does not say: a status the operation
    /// does not document, or not the one the example expects (the status of the response whose
    /// example has its name, else any success: 2XX or 3XX); a `Content-Type` not documented for
    /// the status; a JSON body, or an item of a sequential body (`itemSchema`), that its schema
    /// does not allow. `body` is `nil` when it was too large to be kept: its type is still checked.
    package func problems(ofAnswer status: Int, contentType: String?, body: [UInt8]?, to request: ExampleRequest) -> [String] {
        guard let operation = operations.first(where: { $0.id == request.operationID && $0.method == request.method }) else {
            return ["the document has no operation \(request.operationID)"]
        }
        guard let documented = operation.response(for: status) else { return [operation.undocumented(status)] }
        var problems: [String] = []
        if let expected = request.expectedStatus {
            if expected != String(status), expected != "\(status / 100)XX" {
                problems.append("status \(status), but the example is the \(expected) response's")
            }
        } else if !(200..<400).contains(status) {
            problems.append("status \(status), not a success (2XX or 3XX)")
        }
        guard body.map({ !$0.isEmpty }) ?? true, status != 204, status != 304, request.method != "HEAD" else { return problems }
        let (essence, match, problem) = documented.match(contentType: contentType, status: status)
        if let problem { return problems + [problem] }
        guard let body else { return problems }
        if let itemSchema = match.itemSchema, let sequential = SequentialMediaType(essence: essence) {
            var reader = SequentialItemReader(type: sequential, limit: body.count + 1)
            var number = 0
            let add = { (item: SequentialItemReader.Item) in
                number += 1
                problems += self.schemas.problems(of: item, number: number, name: sequential.itemName, against: itemSchema)
            }
            reader.read(body, add)
            reader.finish(add)
        } else if let schema = match.schema, MediaTypes.isJSON(essence) {
            problems += schemas.problems(ofJSON: body, against: schema)
        }
        return problems
    }
}
