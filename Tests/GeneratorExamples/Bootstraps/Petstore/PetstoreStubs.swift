// Ours: stub handlers for the generator's reference petstore.yaml. Each operation answers its
// documented success with fixed values and records what it received, so that the driver
// (PetstoreRequests.swift) can compare each request as the handler decoded it with what the
// generated Client sent.
import Foundation
import OpenAPIRuntime
import Synchronization

/// What each operation's handler received, by operationId.
final class Received: Sendable {
    private let values = Mutex<[String: String]>([:])
    func record(_ operation: String, _ value: some Any) { values.withLock { $0[operation] = String(describing: value) } }
    subscript(operation: String) -> String? { values.withLock { $0[operation] } }
}

/// The petstore's fixed data.
enum Fixture {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)
    static let pet = Components.Schemas.Pet(id: 1, name: "Tom", tag: "tabby", genome: Base64EncodedData(Array("ACGT".utf8)), kind: .cat)
    static let avatar: [UInt8] = Array(0...255) + Array("\r\n--boundary\r\n".utf8) + [0, 0, 255]
}

struct PetstoreStubs: APIProtocol {
    let received: Received

    func listPets(_ input: Operations.ListPets.Input) async throws -> Operations.ListPets.Output {
        received.record("listPets", input)
        return .ok(.init(headers: .init(myResponseUUID: "5f1e5cc2-1c4f-4e5a-9a1a-2b6f6e0f1a11", myTracingHeader: "trace-1"), body: .json([Fixture.pet])))
    }

    func createPet(_ input: Operations.CreatePet.Input) async throws -> Operations.CreatePet.Output {
        received.record("createPet", input)
        guard case .json(let request) = input.body else { return .undocumented(statusCode: 500, .init()) }
        return .created(.init(headers: .init(xExtraArguments: input.headers.xExtraArguments), body: .json(.init(id: 2, name: request.name, tag: request.tag, genome: request.genome, kind: request.kind))))
    }

    func createPetWithForm(_ input: Operations.CreatePetWithForm.Input) async throws -> Operations.CreatePetWithForm.Output {
        received.record("createPetWithForm", input)
        return .noContent(.init())
    }

    func getStats(_ input: Operations.GetStats.Input) async throws -> Operations.GetStats.Output {
        received.record("getStats", input.headers.accept.map(\.contentType.rawValue))
        switch input.headers.accept.sortedByQuality().first?.contentType ?? .json {
        case .plainText: return .ok(.init(body: .plainText("count: 3")))
        case .binary: return .ok(.init(body: .binary(HTTPBody([3]))))
        case .json, .other: return .ok(.init(body: .json(.init(count: 3))))
        }
    }

    func postStats(_ input: Operations.PostStats.Input) async throws -> Operations.PostStats.Output {
        switch input.body {
        case .json(let stats): received.record("postStats", "json \(stats.count)")
        case .plainText(let body): received.record("postStats", "text \(try await String(collecting: body, upTo: 1024))")
        case .binary(let body): received.record("postStats", "binary \(try await [UInt8](collecting: body, upTo: 1024))")
        }
        return .accepted(.init())
    }

    func probe(_ input: Operations.Probe.Input) async throws -> Operations.Probe.Output {
        received.record("probe", input)
        return .noContent(.init())
    }

    func updatePet(_ input: Operations.UpdatePet.Input) async throws -> Operations.UpdatePet.Output {
        received.record("updatePet", "\(input.path.petId) \(String(describing: input.body))")
        return .noContent(.init())
    }

    func uploadAvatarForPet(_ input: Operations.UploadAvatarForPet.Input) async throws -> Operations.UploadAvatarForPet.Output {
        guard case .binary(let body) = input.body else { return .undocumented(statusCode: 500, .init()) }
        let bytes = try await [UInt8](collecting: body, upTo: 1 << 20)
        received.record("uploadAvatarForPet", "\(input.path.petId) \(bytes.count) bytes")
        return .ok(.init(body: .binary(HTTPBody(bytes))))
    }

    func multipartDownloadTyped(_ input: Operations.MultipartDownloadTyped.Input) async throws -> Operations.MultipartDownloadTyped.Output {
        received.record("multipartDownloadTyped", input.headers.accept.map(\.contentType.rawValue))
        return .ok(.init(body: .multipartForm([
            .log(.init(payload: .init(headers: .init(xLogType: .structured), body: "a log line\n"), filename: "log.txt")),
            .metadata(.init(payload: .init(body: .init(createdAt: Fixture.date)))),
            .keyword(.init(payload: .init(body: "fast"))),
            .keyword(.init(payload: .init(body: "furry"))),
        ])))
    }

    func multipartUploadTyped(_ input: Operations.MultipartUploadTyped.Input) async throws -> Operations.MultipartUploadTyped.Output {
        guard case .multipartForm(let parts) = input.body else { return .undocumented(statusCode: 500, .init()) }
        var seen: [String] = []
        for try await part in parts {
            switch part {
            case .log(let log):
                seen.append("log \(log.payload.headers.xLogType?.rawValue ?? "-") \(log.filename ?? "-") \(try await String(collecting: log.payload.body, upTo: 1024))")
            case .metadata(let metadata): seen.append("metadata \(metadata.payload.body.createdAt.timeIntervalSince1970)")
            case .keyword(let keyword): seen.append("keyword \(try await String(collecting: keyword.payload.body, upTo: 1024))")
            case .undocumented(let raw): seen.append("undocumented \(try await [UInt8](collecting: raw.body, upTo: 1024).count)")
            }
        }
        received.record("multipartUploadTyped", seen)
        return .accepted(.init())
    }
}
