// Ours: where a client example sends its requests (copied into each client target). The authors'
// `URL(string: "http://localhost:8080/api")!` becomes `URL(string: exampleServerURL)!`, the one
// change extract.py makes to a client's file (it checks that nothing else differs).
import Foundation

/// `EXAMPLE_SERVER_URL` from the environment (`http://127.0.0.1:PORT/api`), else the authors' URL.
let exampleServerURL: String = ProcessInfo.processInfo.environment["EXAMPLE_SERVER_URL"] ?? "http://localhost:8080/api"
