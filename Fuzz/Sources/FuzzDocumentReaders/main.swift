// Request validation's readers, fed what a client (a JSON body) or a document's author (YAML)
// can write: the strict JSON reader, the schema check, and the YAML reader.
//
// Input: the first byte chooses. Even: the rest is a request body; if the JSON reader takes it,
// its value written back as JSON must read as the same value, and checking it against a fixed
// schema (every keyword validation covers, a recursive $ref among them) must end with at most
// 32 violations, each at a JSON pointer that starts with "/" or is empty. Odd: the rest is a YAML
// document; reading it must end, with a value or a YAMLSyntaxError.

import FuzzSupport
@testable import OpenAPIWhiskerDocument

private let schemas: (set: SchemaSet, root: Int) = {
    let document = #"""
        {"components":{"schemas":{"Node":{"type":"object","required":["name"],"additionalProperties":false,
        "properties":{"name":{"type":"string","minLength":1,"maxLength":8,"pattern":"^[a-z]+$"},
        "age":{"type":"integer","minimum":0,"exclusiveMaximum":150,"multipleOf":1},
        "ratio":{"type":["number","null"],"exclusiveMinimum":0,"maximum":1},
        "kind":{"enum":["cat","dog",1,null]},"tags":{"type":"array","items":{"type":"string"},"maxItems":4,"uniqueItems":true},
        "next":{"$ref":"#/components/schemas/Node"},
        "any":{"anyOf":[{"type":"string"},{"type":"integer"}]},"one":{"oneOf":[{"minimum":0},{"maximum":10}]},
        "not":{"not":{"type":"null"}},"map":{"type":"object","additionalProperties":{"type":"boolean"},"maxProperties":3}}}}}}
        """#
    let root = try! JSONReader.read(Array(document.utf8))
    var set = SchemaSet(document: root)
    let index = try! set.compile(.object([("$ref", .string("#/components/schemas/Node"))]), at: "#")
    return (set, index)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocumentReaders(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let selector = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    if selector % 2 == 0 {
        guard let value = try? JSONReader.read(rest) else { return 0 }
        guard let again = try? JSONReader.read(Array(value.jsonText.utf8)), again == value else {
            fuzzFailure("\(value.jsonText) does not read back as itself")
        }
        var violations: [(pointer: String, detail: String)] = []
        schemas.set.check(value, against: schemas.root, pointer: "", into: &violations)
        guard violations.count <= 32 else { fuzzFailure("\(violations.count) violations") }
        for violation in violations where !(violation.pointer.isEmpty || violation.pointer.hasPrefix("/")) {
            fuzzFailure("a violation at \(violation.pointer)")
        }
    } else {
        _ = try? YAMLReader.read(Array(rest))
    }
    return 0
}
