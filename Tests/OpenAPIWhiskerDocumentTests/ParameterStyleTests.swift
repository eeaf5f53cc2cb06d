import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
@testable import OpenAPIWhiskerDocument
import Testing
import WhiskerCore

/// Parameters of every style read as they are serialized (issue 40): for the styles the generator
/// supports, the request is made by swift-openapi-runtime's `Converter` with the calls the
/// generated client makes (`setQueryItemAsURI`, `setHeaderFieldAsURI`, `renderedPath`), its exact
/// form checked too, and admitted; for the others (`spaceDelimited`, `pipeDelimited`, `label`,
/// `matrix`, cookies) the request is the OpenAPI specification's own style example. Each has a
/// violation that names the parameter (and the member or item) and says what is wrong.
@Suite struct ParameterStyleTests {
    let converter = Converter(configuration: .init())

    /// A person as an exploded or deep object: a name it requires, an age, tags.
    struct Person: Codable {
        var age: Int?
        var name: String?
    }

    static let person = #"{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":8},"age":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}"#

    /// The violations of a request for an operation `/op/{id}` with the one parameter `parameter`
    /// (JSON), as `in name: detail`.
    func violations(
        _ parameter: String, target: String = "/op/1", headers: [(String, String)] = [], pathValue: Substring? = nil
    ) throws -> [String] {
        let document = #"{"openapi":"3.1.0","info":{"title":"T","version":"1"},"paths":{"/op/{id}":{"get":{"operationId":"op","parameters":["#
            + parameter + #"],"responses":{"200":{"description":"OK"}}}}}}"#
        let operations = try DocumentOperations(OpenAPIDocument(json: Array(document.utf8)))
        let validator = try RequestValidation(operations: operations, status: .badRequest, authenticators: [:]).validator(method: .get, path: "/op/{id}")
        var head = HTTPRequest(method: .get, scheme: nil, authority: "example.com", path: target)
        for (name, value) in headers { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        var path = PathParameters()
        if let pathValue { path.append(name: "id", value: pathValue) }
        return validator.parameterViolations(of: head, pathParameters: path).map { "\($0.location) \($0.name): \($0.detail)" }
    }

    /// The target the generated client makes for `/op/1` with `set` applied.
    func clientTarget(_ set: (inout HTTPRequest) throws -> Void) throws -> String {
        var request = HTTPRequest(soar_path: "/op/1", method: .get)
        try set(&request)
        return request.path!
    }

    // MARK: query, form

    @Test func query_FormExploded_PrimitiveAndArray() throws {
        let count = #"{"name":"count","in":"query","required":true,"schema":{"type":"integer","format":"int32","maximum":100}}"#
        let target = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: true, name: "count", value: 3) }
        #expect(target == "/op/1?count=3")
        #expect(try violations(count, target: target) == [])
        #expect(try violations(count, target: "/op/1?count=101") == ["query count: must be at most 100, got 101"])
        #expect(try violations(count, target: "/op/1?other=1") == ["query count: is required"])

        let ids = #"{"name":"ids","in":"query","schema":{"type":"array","items":{"type":"integer"}}}"#
        let idsTarget = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: true, name: "ids", value: [1, 2]) }
        #expect(idsTarget == "/op/1?ids=1&ids=2")
        #expect(try violations(ids, target: idsTarget) == [])
        #expect(try violations(ids, target: "/op/1?ids=1&ids=y") == ["query ids/1: must be an integer, got a string (\"y\")"])
    }

    @Test func query_FormExploded_Object_ReadFromTheItemsNamedAfterItsMembers() throws {
        let parameter = #"{"name":"person","in":"query","required":true,"schema":"# + Self.person + "}"
        let target = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: true, name: "person", value: Person(age: 3, name: "Tom Cat")) }
        #expect(target == "/op/1?age=3&name=Tom%20Cat")
        #expect(try violations(parameter, target: target) == [])
        #expect(try violations(parameter, target: "/op/1?name=Tom&tags=a&tags=b&unrelated=x") == [], "an array member repeats; other items are not members")
        #expect(try violations(parameter, target: "/op/1?age=x&name=Thomas%20Cat") == [
            "query person/age: must be an integer, got a string (\"x\")",
            "query person/name: must be at most 8 characters long, got 10",
        ])
        #expect(try violations(parameter, target: "/op/1?age=3") == ["query person/name: is required"])
        #expect(try violations(parameter, target: "/op/1?unrelated=x") == ["query person: is required"])

        // A required object that requires no member, empty: the generated client sends nothing for it.
        let options = #"{"name":"options","in":"query","required":true,"schema":{"type":"object","properties":{"age":{"type":"integer"}}}}"#
        let empty = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: true, name: "options", value: Person()) }
        #expect(empty == "/op/1?")
        #expect(try violations(options, target: empty) == [])
        #expect(try violations(options, target: "/op/1?age=x") == ["query options/age: must be an integer, got a string (\"x\")"])
    }

    @Test func query_FormUnexploded_SplitAtCommasAsSent_ThenDecoded() throws {
        let tags = #"{"name":"tags","in":"query","explode":false,"schema":{"type":"array","maxItems":2,"items":{"type":"string","pattern":"^[a-c,]+$"}}}"#
        let target = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: false, name: "tags", value: ["a,b", "c"]) }
        #expect(target == "/op/1?tags=a%2Cb,c", "the runtime escapes a comma inside an item")
        #expect(try violations(tags, target: target) == [], "two items, `a,b` and `c`, as the runtime's decoder reads them")
        #expect(try violations(tags, target: "/op/1?tags=a,b,c") == ["query tags: must have at most 2 items, got 3"])
        #expect(try violations(tags, target: "/op/1?tags=") == [], "an empty value is the empty array")

        let parameter = #"{"name":"person","in":"query","explode":false,"schema":"# + Self.person + "}"
        let objectTarget = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .form, explode: false, name: "person", value: Person(age: 3, name: "Tom")) }
        #expect(objectTarget == "/op/1?person=age,3,name,Tom")
        #expect(try violations(parameter, target: objectTarget) == [])
        #expect(try violations(parameter, target: "/op/1?person=age,-1,name,Tom") == ["query person/age: must be at least 0, got -1"])
        #expect(try violations(parameter, target: "/op/1?person=age,3,name") == ["query person: must be names and values in turn (style form, explode false), got 3 parts"])
    }

    // MARK: query, spaceDelimited and pipeDelimited (OpenAPI's examples: the runtime has neither)

    @Test(arguments: [
        ("spaceDelimited", "/op/1?ids=1%202%203", "/op/1?ids=1+2+3", "/op/1?ids=1%20x%203"),
        ("pipeDelimited", "/op/1?ids=1|2|3", "/op/1?ids=1%7C2%7C3", "/op/1?ids=1|x|3"),
    ])
    func query_DelimitedArrays(style: String, example: String, escaped: String, bad: String) throws {
        let ids = #"{"name":"ids","in":"query","style":"\#(style)","explode":false,"schema":{"type":"array","items":{"type":"integer"}}}"#
        #expect(try violations(ids, target: example) == [])
        #expect(try violations(ids, target: escaped) == [])
        #expect(try violations(ids, target: bad) == ["query ids/1: must be an integer, got a string (\"x\")"])
        let person = #"{"name":"person","in":"query","style":"\#(style)","explode":false,"schema":"# + Self.person + "}"
        let separator = style == "spaceDelimited" ? "%20" : "|"
        #expect(try violations(person, target: "/op/1?person=name\(separator)Tom\(separator)age\(separator)3") == [])
        #expect(try violations(person, target: "/op/1?person=name\(separator)Tom\(separator)age") == [
            "query person: must be names and values in turn (style \(style), explode false), got 3 parts",
        ])
    }

    // MARK: query, deepObject

    @Test func query_DeepObject_AsTheRuntimeEscapesIt_AndAsTyped() throws {
        let parameter = #"{"name":"filter","in":"query","required":true,"style":"deepObject","explode":true,"schema":"# + Self.person + "}"
        let target = try clientTarget { try converter.setQueryItemAsURI(in: &$0, style: .deepObject, explode: true, name: "filter", value: Person(age: 3, name: "Tom")) }
        #expect(target == "/op/1?filter%5Bage%5D=3&filter%5Bname%5D=Tom")
        #expect(try violations(parameter, target: target) == [])
        #expect(try violations(parameter, target: "/op/1?filter[name]=Tom&filter[tags]=a&filter[tags]=b&sort[name]=x") == [], "typed as a browser sends it")
        #expect(try violations(parameter, target: "/op/1?filter[name]=Tom&filter[tags]=c") == ["query filter/tags/0: must be one of \"a\", \"b\", got \"c\""])
        #expect(try violations(parameter, target: "/op/1?filter%5Bage%5D=x") == [
            "query filter/name: is required", "query filter/age: must be an integer, got a string (\"x\")",
        ])
        #expect(try violations(parameter, target: "/op/1?filter=Tom") == ["query filter: is required"], "the literal name is not the deep object")
        let bracketed = #"{"name":"a]b","in":"query","required":true,"style":"deepObject","schema":"# + Self.person + "}"
        #expect(try violations(bracketed, target: "/op/1?a%5Db%5Bname%5D=Tom") == [], "a name with a bracket of its own: the key starts after it")
        // What the generated server decodes from the same target: the request admitted is the one it reads.
        let request = HTTPRequest(soar_path: target, method: .get)
        let decoded = try converter.getRequiredQueryItemAsURI(in: request.soar_query, style: .deepObject, explode: true, name: "filter", as: Person.self)
        #expect(decoded.name == "Tom" && decoded.age == 3)
    }

    @Test func query_DeepObject_AThousandMembers_AtMost32Violations() throws {
        // The attack: a request line (8 KiB by default) full of members the object does not have.
        let closed = #"{"name":"f","in":"query","style":"deepObject","schema":{"type":"object","additionalProperties":false}}"#
        let hostile = "/op/1?" + (0..<1000).map { "f[\($0)]=" }.joined(separator: "&")
        let found = try violations(closed, target: hostile)
        #expect(found.count == 32, "a hostile query does not make a thousand-line answer")
        #expect(found.first == "query f/0: is not a property this object has")
        // The legitimate shape: as many members, each one the object takes.
        let open = #"{"name":"f","in":"query","style":"deepObject","schema":{"type":"object","additionalProperties":{"type":"integer"}}}"#
        #expect(try violations(open, target: "/op/1?" + (0..<1000).map { "f[\($0)]=\($0)" }.joined(separator: "&")) == [])
    }

    // MARK: query, allowReserved and allowEmptyValue

    @Test func query_AllowReserved_ReadsReservedCharactersAsSent() throws {
        let parameter = #"{"name":"next","in":"query","allowReserved":true,"schema":{"type":"string","format":"uri"}}"#
        #expect(try violations(parameter, target: "/op/1?next=https://example.com/a?b") == [])
        #expect(try violations(parameter, target: "/op/1?next=https%3A%2F%2Fexample.com%2Fa") == [])
        #expect(try violations(parameter, target: "/op/1?next=example%20com") == ["query next: must be an absolute URI (RFC 3986), got \"example com\""])
    }

    @Test func query_AllowEmptyValue_AdmitsTheEmptyValue_OnlyWhereSaid() throws {
        let allowed = #"{"name":"debug","in":"query","allowEmptyValue":true,"schema":{"type":"boolean"}}"#
        #expect(try violations(allowed, target: "/op/1?debug") == [])
        #expect(try violations(allowed, target: "/op/1?debug=") == [])
        #expect(try violations(allowed, target: "/op/1?debug=maybe") == ["query debug: must be a boolean, got a string (\"maybe\")"])
        let strict = #"{"name":"debug","in":"query","schema":{"type":"boolean"}}"#
        #expect(try violations(strict, target: "/op/1?debug=") == ["query debug: must be a boolean, got a string (\"\")"])
    }

    // MARK: path

    @Test func path_Simple_AsTheRuntimeRendersIt() throws {
        let id = #"{"name":"id","in":"path","required":true,"schema":{"type":"integer","format":"int64","minimum":1}}"#
        #expect(try converter.renderedPath(template: "/op/{}", parameters: [7]) == "/op/7")
        #expect(try violations(id, pathValue: "7") == [])
        #expect(try violations(id, pathValue: "0") == ["path id: must be at least 1, got 0"])

        let ids = #"{"name":"id","in":"path","required":true,"schema":{"type":"array","items":{"type":"string","maxLength":3}}}"#
        let rendered = try converter.renderedPath(template: "/op/{}", parameters: [["a b", "c,d"]])
        #expect(rendered == "/op/a%20b,c%2Cd")
        #expect(try violations(ids, pathValue: rendered.dropFirst(4)) == [], "`a b` and `c,d`")
        #expect(try violations(ids, pathValue: "abcd,e") == ["path id/0: must be at most 3 characters long, got 4"])

        for explode in [false, true] {
            let person = #"{"name":"id","in":"path","required":true,"explode":\#(explode),"schema":"# + Self.person + "}"
            let object = try converter.renderedPath(template: "/op/{}", parameters: [Person(age: 3, name: "Tom")])
            #expect(object == "/op/age,3,name,Tom", "the runtime does not explode a path object")
            #expect(try violations(person, pathValue: object.dropFirst(4)) == [], "explode \(explode)")
            #expect(try violations(person, pathValue: "age,3") == ["path id/name: is required"])
        }
        let exploded = #"{"name":"id","in":"path","required":true,"explode":true,"schema":"# + Self.person + "}"
        #expect(try violations(exploded, pathValue: "age=3,name=Tom") == [])
        #expect(try violations(exploded, pathValue: "age=x,name=Tom") == ["path id/age: must be an integer, got a string (\"x\")"])
    }

    @Test func path_LabelAndMatrix_AsTheSpecificationWritesThem() throws {
        let label = #"{"name":"id","in":"path","required":true,"style":"label","schema":{"type":"integer"}}"#
        #expect(try violations(label, pathValue: ".5") == [])
        #expect(try violations(label, pathValue: "5") == ["path id: must start with \".\" (style label)"])
        let labels = #"{"name":"id","in":"path","required":true,"style":"label","explode":true,"schema":{"type":"array","items":{"type":"integer"}}}"#
        #expect(try violations(labels, pathValue: ".3.4.5") == [])
        #expect(try violations(labels, pathValue: ".3.x") == ["path id/1: must be an integer, got a string (\"x\")"])

        let matrix = #"{"name":"id","in":"path","required":true,"style":"matrix","schema":{"type":"array","items":{"type":"integer"}}}"#
        #expect(try violations(matrix, pathValue: ";id=3,4,5") == [])
        #expect(try violations(matrix, pathValue: "3,4,5") == ["path id: must start with \";id\" (style matrix)"])
        #expect(try violations(matrix, pathValue: ";other=3") == ["path id: must be written ;id=... (style matrix)"])
        let exploded = #"{"name":"id","in":"path","required":true,"style":"matrix","explode":true,"schema":"# + Self.person + "}"
        #expect(try violations(exploded, pathValue: ";age=3;name=Tom") == [])
        #expect(try violations(exploded, pathValue: ";age=3") == ["path id/name: is required"])
    }

    // MARK: header

    @Test func header_Simple_PercentDecodedAsTheRuntimeReadsIt() throws {
        let since = #"{"name":"X-Since","in":"header","required":true,"schema":{"type":"string","format":"date-time"}}"#
        var fields = HTTPFields()
        try converter.setHeaderFieldAsURI(in: &fields, name: "X-Since", value: Date(timeIntervalSince1970: 1_674_036_251))
        #expect(fields[HTTPField.Name("X-Since")!] == "2023-01-18T10%3A04%3A11Z")
        #expect(try violations(since, headers: [("X-Since", fields[HTTPField.Name("X-Since")!]!)]) == [])
        #expect(try violations(since, headers: [("X-Since", "2023-01-18T10:04:11Z")]) == [], "unescaped, from another client")
        #expect(try violations(since, headers: [("X-Since", "2023-02-30T10:04:11Z")]) == [
            "header X-Since: must be a date-time (RFC 3339, as 2024-05-01T12:00:00Z), got \"2023-02-30T10:04:11Z\"",
        ])

        let ids = #"{"name":"X-Ids","in":"header","schema":{"type":"array","items":{"type":"integer"}}}"#
        var idFields = HTTPFields()
        try converter.setHeaderFieldAsURI(in: &idFields, name: "X-Ids", value: [1, 2])
        #expect(idFields[HTTPField.Name("X-Ids")!] == "1,2")
        #expect(try violations(ids, headers: [("X-Ids", "1,2")]) == [])
        #expect(try violations(ids, headers: [("X-Ids", "1, 2"), ("X-Ids", "3")]) == [], "a list over two fields, with spaces")
        #expect(try violations(ids, headers: [("X-Ids", "1,x")]) == ["header X-Ids/1: must be an integer, got a string (\"x\")"])

        let person = #"{"name":"X-Person","in":"header","explode":true,"schema":"# + Self.person + "}"
        var personFields = HTTPFields()
        try converter.setHeaderFieldAsURI(in: &personFields, name: "X-Person", value: Person(age: 3, name: "Tom"))
        #expect(personFields[HTTPField.Name("X-Person")!] == "age,3,name,Tom")
        #expect(try violations(person, headers: [("X-Person", "age,3,name,Tom")]) == [])
        #expect(try violations(person, headers: [("X-Person", "age=3,name=Tom")]) == [])
        #expect(try violations(person, headers: [("X-Person", "age=3")]) == ["header X-Person/name: is required"])
    }

    // MARK: cookie (the generator leaves cookie parameters out; OpenAPI's form style)

    @Test func cookie_FormPrimitivesArraysAndObjects() throws {
        let session = #"{"name":"session","in":"cookie","required":true,"schema":{"type":"string","format":"uuid"}}"#
        #expect(try violations(session, headers: [("Cookie", "a=b; session=123e4567-e89b-12d3-a456-426614174000")]) == [])
        #expect(try violations(session, headers: [("Cookie", "session=42")]) == ["cookie session: must be a UUID (as 123e4567-e89b-12d3-a456-426614174000), got \"42\""])
        #expect(try violations(session, headers: [("Cookie", "a=b")]) == ["cookie session: is required"])

        let ids = #"{"name":"ids","in":"cookie","schema":{"type":"array","items":{"type":"integer"}}}"#
        #expect(try violations(ids, headers: [("Cookie", "ids=3,4")]) == [])
        #expect(try violations(ids, headers: [("Cookie", "ids=3; ids=4")]) == [])
        #expect(try violations(ids, headers: [("Cookie", "ids=3,x")]) == ["cookie ids/1: must be an integer, got a string (\"x\")"])

        let unexploded = #"{"name":"person","in":"cookie","explode":false,"schema":"# + Self.person + "}"
        #expect(try violations(unexploded, headers: [("Cookie", "person=name,Tom,age,3")]) == [])
        #expect(try violations(unexploded, headers: [("Cookie", "person=name,Tom,age")]) == ["cookie person: must be names and values in turn (style form, explode false), got 3 parts"])
        let exploded = #"{"name":"person","in":"cookie","required":true,"schema":"# + Self.person + "}"
        #expect(try violations(exploded, headers: [("Cookie", "name=Tom; age=3; theme=dark")]) == [])
        #expect(try violations(exploded, headers: [("Cookie", "age=3")]) == ["cookie person/name: is required"])
    }

    // MARK: any input

    /// Targets, fields and path values made of the delimiters every style reads (`[`, `]`, `,`,
    /// `=`, `;`, `.`, `|`, `%`, `+`, spaces, multi-byte characters), against a parameter of each
    /// style: every one is read, admitted or named, never a crash.
    @Test func arbitraryInput_IsReadOrNamed_NeverACrash() throws {
        let parameters = [
            #"{"name":"f","in":"query","style":"deepObject","schema":"# + Self.person + "}",
            #"{"name":"f]x","in":"query","style":"deepObject","schema":"# + Self.person + "}",
            #"{"name":"f","in":"query","explode":false,"schema":"# + Self.person + "}",
            #"{"name":"f","in":"query","schema":"# + Self.person + "}",
            #"{"name":"f","in":"query","style":"pipeDelimited","explode":false,"schema":{"type":"array","items":{"type":"integer"}}}"#,
            #"{"name":"f","in":"query","content":{"application/json":{"schema":{"type":"array"}}}}"#,
            #"{"name":"id","in":"path","required":true,"style":"matrix","explode":true,"schema":"# + Self.person + "}",
            #"{"name":"id","in":"path","required":true,"style":"label","schema":{"type":"array","items":{"type":"integer"}}}"#,
            #"{"name":"X-F","in":"header","explode":true,"schema":"# + Self.person + "}",
            #"{"name":"f","in":"cookie","explode":false,"schema":"# + Self.person + "}",
        ]
        let alphabet: [String] = ["f", "f]x[", "[", "]", ",", "=", ";", ".", "|", "%", "%5B", "%5D", "%2C", "%zz", "+", " ", "&", "name", "age", "3", "é", "😺", "\u{301}"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func text() -> String { (0..<next(24)).map { _ in alphabet[next(alphabet.count)] }.joined() }
        for parameter in parameters {
            for _ in 0..<300 {
                let value = text()
                let found = try violations(
                    parameter, target: "/op/1?" + value.replacingOccurrences(of: " ", with: "%20"),
                    headers: [("X-F", value.trimmingCharacters(in: .whitespaces)), ("Cookie", value)], pathValue: value[...]
                )
                #expect(found.count <= 32)
            }
        }
    }

    // MARK: content (JSON in a parameter)

    @Test func content_JSONInTheQueryAndInAHeader() throws {
        let filters = #"{"name":"filters","in":"query","content":{"application/json":{"schema":{"type":"array","items":"# + Self.person + "}}}}"
        let target = try clientTarget { try converter.setQueryItemAsJSON(in: &$0, style: .form, explode: true, name: "filters", value: [Person(age: 3, name: "Tom")]) }
        #expect(target == "/op/1?filters=%5B%7B%22age%22%3A3%2C%22name%22%3A%22Tom%22%7D%5D")
        #expect(try violations(filters, target: target) == [])
        #expect(try violations(filters, target: "/op/1?filters=%5B%7B%7D%5D") == ["query filters/0/name: is required"])
        #expect(try violations(filters, target: "/op/1?filters=%5B1") == ["query filters: is not valid JSON at byte 2: the text ends inside an array (content application/json)"])

        let extra = #"{"name":"X-Extra","in":"header","content":{"application/json":{"schema":"# + Self.person + "}}}"
        var fields = HTTPFields()
        try converter.setHeaderFieldAsJSON(in: &fields, name: "X-Extra", value: Person(age: 3, name: "Tom"))
        let sent = try #require(fields[HTTPField.Name("X-Extra")!])
        #expect(try violations(extra, headers: [("X-Extra", sent)]) == [])
        #expect(try violations(extra, headers: [("X-Extra", #"{"age":"3"}"#)]) == [
            "header X-Extra/name: is required", "header X-Extra/age: must be an integer, got a string (\"3\")",
        ])
    }
}
