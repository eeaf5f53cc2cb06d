// whisker-mock: serves any OpenAPI document with no code (WhiskerMock's DocumentMock): each
// operation answers from the document's examples (Prefer: example=NAME, Prefer: code=404) or with a
// value its schema allows, requests validated as Whisker's transport validates them, the document
// and its docs page beside them. SIGTERM and SIGINT shut it down gracefully.
//
//     whisker-mock openapi.yaml [--host 127.0.0.1] [--port 4010] [--server-url URL] [--credential SECRET]
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import struct Foundation.URL
import Whisker
import WhiskerMock

let usage = """
    usage: whisker-mock DOCUMENT [--host HOST] [--port PORT] [--server-url URL] [--credential SECRET]...
      DOCUMENT      an OpenAPI document, YAML or JSON (3.0, 3.1 or 3.2)
      --host        the address to listen on (default 127.0.0.1)
      --port        the port (default 4010; 0 for any free port)
      --server-url  where the operations are (default: the document's first server URL);
                    only its path is used (/api)
      --credential  a credential the security schemes accept (a bearer token, an API key,
                    user:password); repeatable; without one, any credential is accepted
    """

/// Ends the process with `message` on standard error and exit status 2 (a usage error) or 1.
func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("whisker-mock: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// The whole file at `path`, or `nil` with `errno` set.
func contents(of path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        bytes += chunk[..<count]
        if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
    }
}

var arguments = CommandLine.arguments.dropFirst()
var path: String?
var host = "127.0.0.1"
var port = 4010
var serverURL: URL?
var credentials: Set<String>?
while let argument = arguments.popFirst() {
    if argument == "-h" || argument == "--help" {
        print(usage)
        exit(0)
    }
    guard argument.hasPrefix("--") else {
        guard path == nil else { fail("one document only, not also \(argument)\n\(usage)", status: 2) }
        path = argument
        continue
    }
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value\n\(usage)", status: 2) }
    switch argument {
    case "--host": host = value
    case "--port":
        guard let number = Int(value), (0...65535).contains(number) else { fail("--port is a number from 0 to 65535", status: 2) }
        port = number
    case "--server-url":
        guard let url = URL(string: value) else { fail("--server-url \(value) is not a URL", status: 2) }
        serverURL = url
    case "--credential": credentials = (credentials ?? []).union([value])
    default: fail("unknown option \(argument)\n\(usage)", status: 2)
    }
}
guard let path else { fail("which document?\n\(usage)", status: 2) }
guard let bytes = contents(of: path) else { fail("cannot read \(path): \(String(cString: strerror(errno)))") }
let isJSON = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "{")
let document = isJSON ? OpenAPIDocument(json: bytes) : OpenAPIDocument(yaml: bytes)

let mock: DocumentMock
do {
    mock = try DocumentMock(document, credentials: credentials)
} catch {
    fail("\(path): \(error)")
}
var configuration = WhiskerServer.Configuration(host: host, port: port)
#if HTTP2
configuration.http2 = HTTP2Settings()  // h2c beside HTTP/1.1
#endif
let server = WhiskerServer(configuration: configuration)
let base = serverURL ?? mock.serverURL
do {
    try mock.register(on: server, serverURL: base)
} catch {
    fail("\(path): \(error)")
}

let signals = shutdownOnSignals(server)
let prefix = String(base.path.reversed().drop { $0 == "/" }.reversed())
try await server.run { addresses in
    let root = "http://\(addresses[0])\(prefix)"
    print("whisker-mock: \(mock.operationCount) operations of \(path) on \(root) (docs: \(root)/docs)")
    fflush(nil)
}
withExtendedLifetime(signals) {}
