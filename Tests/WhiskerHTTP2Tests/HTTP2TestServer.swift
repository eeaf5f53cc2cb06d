import WhiskerCore
import WhiskerHTTP2
import WhiskerTesting

/// A test server (``makeTestServer(_:)``) with HTTP/2 on: prior knowledge on the cleartext port
/// (`Upgrade: h2c` only where a test turns it on), and `h2` in ALPN on an HTTPS one. `configure` runs after HTTP/2 is set, so
/// a test may turn it off again (`$0.http2 = nil`).
func makeHTTP2Server(_ configure: (inout WhiskerServer.Configuration) -> Void = { _ in }) -> WhiskerServer {
    makeTestServer {
        $0.http2 = HTTP2Settings()
        configure(&$0)
    }
}
