// Ours: one request per operation of petstore.yaml (two for those with several body types or an
// optional body), sent by the generated Client, each checked on both sides: the response as the
// Client decoded it, and the input as the stub's handler decoded it.
import Foundation
import OpenAPIRuntime

struct CheckFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func expect(_ condition: Bool, _ message: @autoclosure () throws -> String) throws {
    if !condition { throw CheckFailure(try message()) }
}

struct PetstoreRequest: Sendable {
    var operation: String
    var send: @Sendable (Client, Received) async throws -> String
}

enum PetstoreRequests {
    static let all: [PetstoreRequest] = [
        // Every parameter style of listPets: form (explode) scalars and arrays, an enum, deepObject
        // objects (one required), a date-time, a JSON-encoded parameter, a uuid header.
        PetstoreRequest(operation: "listPets") { client, received in
            let query = Operations.ListPets.Input.Query(
                limit: 10, habitat: .water, feeds: [.omnivore, .herbivore], sort: .init(id: "age", name: "asc"),
                filter: .init(name: "Tom", state: "sleepy"), since: Fixture.date, jsonFilters: [.init(name: "Tom", state: "home")]
            )
            let headers = Operations.ListPets.Input.Headers(myRequestUUID: "0b7e0a4e-9d7c-4f7e-8a0e-1d2c3b4a5f60")
            let response = try await client.listPets(query: query, headers: headers)
            let ok = try response.ok
            try expect(ok.body.json == [Fixture.pet], "pets \(try ok.body.json)")
            try expect(ok.headers.myResponseUUID == "5f1e5cc2-1c4f-4e5a-9a1a-2b6f6e0f1a11" && ok.headers.myTracingHeader == "trace-1", "headers \(ok.headers)")
            let expected = String(describing: Operations.ListPets.Input(query: query, headers: .init(myRequestUUID: headers.myRequestUUID, accept: [.init(contentType: .json)])))
            try expect(received["listPets"] == expected, "the handler got \(received["listPets"] ?? "nothing"), not \(expected)")
            return "200, every parameter as sent"
        },
        PetstoreRequest(operation: "listPets (required filter only)") { client, received in
            let response = try await client.listPets(query: .init(filter: .init(name: "Tom")))
            try expect(try response.ok.body.json == [Fixture.pet], "pets")
            return "200"
        },
        PetstoreRequest(operation: "createPet") { client, received in
            let request = Components.Schemas.CreatePetRequest(name: "Rex", kind: .dog, tag: "good", genome: Base64EncodedData(Array("GATTACA".utf8)))
            let response = try await client.createPet(headers: .init(xExtraArguments: .init(code: 7)), body: .json(request))
            let created = try response.created
            try expect(created.headers.xExtraArguments == .init(code: 7), "X-Extra-Arguments \(String(describing: created.headers.xExtraArguments))")
            let pet = try created.body.json
            try expect(pet.name == "Rex" && pet.kind == .dog && pet.genome == request.genome, "pet \(pet)")
            return "201, a JSON header parameter and a base64 field round-tripped"
        },
        PetstoreRequest(operation: "createPetWithForm") { client, received in
            _ = try await client.createPetWithForm(body: .urlEncodedForm(.init(name: "Tom & Jerry", kind: ._public, tag: "a=b"))).noContent
            try expect(received["createPetWithForm"]?.contains("Tom & Jerry") == true && received["createPetWithForm"]?.contains("a=b") == true,
                       "the handler got \(received["createPetWithForm"] ?? "nothing")")
            return "204"
        },
        PetstoreRequest(operation: "getStats") { client, received in
            try expect(try await client.getStats().ok.body.json.count == 3, "JSON stats")
            let text = try await String(collecting: try await client.getStats(headers: .init(accept: [.init(contentType: .plainText)])).ok.body.plainText, upTo: 1024)
            try expect(text == "count: 3", "text stats \(text)")
            return "200 as JSON and as text"
        },
        PetstoreRequest(operation: "postStats") { client, received in
            _ = try await client.postStats(body: .json(.init(count: 4))).accepted
            try expect(received["postStats"] == "json 4", "the handler got \(received["postStats"] ?? "nothing")")
            _ = try await client.postStats(body: .binary(HTTPBody([1, 2, 3]))).accepted
            try expect(received["postStats"] == "binary [1, 2, 3]", "the handler got \(received["postStats"] ?? "nothing")")
            return "202 as JSON and as bytes"
        },
        PetstoreRequest(operation: "probe") { client, _ in
            _ = try await client.probe().noContent
            return "204"
        },
        PetstoreRequest(operation: "updatePet") { client, received in
            _ = try await client.updatePet(path: .init(petId: 42), body: .json(.init(name: "Max", kind: .elephant))).noContent
            try expect(received["updatePet"]?.hasPrefix("42 ") == true && received["updatePet"]?.contains("Max") == true, "the handler got \(received["updatePet"] ?? "nothing")")
            _ = try await client.updatePet(path: .init(petId: 43)).noContent
            try expect(received["updatePet"] == "43 nil", "without a body, the handler got \(received["updatePet"] ?? "nothing")")
            return "204 with and without its optional body"
        },
        PetstoreRequest(operation: "uploadAvatarForPet") { client, received in
            let response = try await client.uploadAvatarForPet(path: .init(petId: 7), body: .binary(HTTPBody(Fixture.avatar)))
            let echoed = try await [UInt8](collecting: try response.ok.body.binary, upTo: 1 << 20)
            try expect(echoed == Fixture.avatar, "the echo differs (\(echoed.count) bytes)")
            return "200, \(echoed.count) bytes echoed byte for byte"
        },
        PetstoreRequest(operation: "multipartDownloadTyped") { client, _ in
            var seen: [String] = []
            for try await part in try await client.multipartDownloadTyped().ok.body.multipartForm {
                switch part {
                case .log(let log): seen.append("log \(log.payload.headers.xLogType?.rawValue ?? "-") \(log.filename ?? "-") \(try await String(collecting: log.payload.body, upTo: 1024))")
                case .metadata(let metadata): seen.append("metadata \(metadata.payload.body.createdAt.timeIntervalSince1970)")
                case .keyword(let keyword): seen.append("keyword \(try await String(collecting: keyword.payload.body, upTo: 1024))")
                case .undocumented(let raw): seen.append("undocumented \(try await [UInt8](collecting: raw.body, upTo: 1024).count)")
                }
            }
            let expected = ["log structured log.txt a log line\n", "metadata 1700000000.0", "keyword fast", "keyword furry"]
            try expect(seen == expected, "parts \(seen)")
            return "200, 4 typed parts"
        },
        PetstoreRequest(operation: "multipartUploadTyped") { client, received in
            _ = try await client.multipartUploadTyped(body: .multipartForm([
                .log(.init(payload: .init(headers: .init(xLogType: .unstructured), body: "line 1\nline 2"), filename: "app.log")),
                .metadata(.init(payload: .init(body: .init(createdAt: Fixture.date)))),
                .keyword(.init(payload: .init(body: "x"))),
            ])).accepted
            let expected = String(describing: ["log unstructured app.log line 1\nline 2", "metadata 1700000000.0", "keyword x"])
            try expect(received["multipartUploadTyped"] == expected, "the handler got \(received["multipartUploadTyped"] ?? "nothing")")
            return "202, 3 typed parts as sent"
        },
    ]
}
