#if Configuration
import Configuration
import Testing
import Whisker
import WhiskerCORS
import WhiskerCompression
import WhiskerConfiguration
import WhiskerCore
import WhiskerHTTP2
import WhiskerHealth
import WhiskerProxies
import WhiskerTLS

/// Every key group of WhiskerServer.Configuration(sources), read from an in-memory provider.
@Suite struct ConfigurationKeyTests {
    @Test func noKeys_GiveTheConfigurationsDefaults() throws {
        let read = try configuration([:])
        let plain = WhiskerServer.Configuration()
        #expect(read.listeners.map(\.address) == plain.listeners.map(\.address) && !read.listeners.contains(where: \.isTLS))
        #expect(read.io == plain.io && !read.requestIDs)
        #expect(read.limits == plain.limits && read.timeouts == plain.timeouts)
        #expect(read.http2 == nil && !read.cleartextHTTP2Only)
        #expect(read.cors.isEmpty && read.reverseProxies == nil && read.healthChecks == nil)
        #expect(read.compression == nil && read.requestDecompression == nil)
    }

    @Test func listenerKeys_SetHostPortCleartextWorkersRequestIDsAndTheUnixSocket() throws {
        let read = try configuration([
            "host": "0.0.0.0", "port": 9090, "cleartext": "yes", "workers": 3, "requestIDs": true,
            "unixSocket.path": "/tmp/cats.sock", "unixSocket.mode": "600",
        ])
        #expect(read.io.workers == 3 && read.requestIDs)
        #expect(read.listeners.map(\.address) == [.tcp(host: "0.0.0.0", port: 9090), .unixDomainSocket(path: "/tmp/cats.sock", permissions: 0o600)])
        // Cleartext off leaves only what else is configured; on again brings the listener back.
        #expect(try configuration(["cleartext": false, "unixSocket.path": "/tmp/cats.sock"]).listeners.map(\.address)
            == [.unixDomainSocket(path: "/tmp/cats.sock", permissions: 0o660)])
        var off = WhiskerServer.Configuration(listeners: [])
        try off.apply(fileSources(["cleartext": true, "port": 8081]))
        #expect(off.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 8081)])
        // Sockets systemd passed: cleartext off refuses one not named for TLS, and keeps the rest.
        var activated = WhiskerServer.Configuration(listeners: [.inherited(.init(fd: 4, name: "https"))])
        try activated.apply(fileSources(["cleartext": false, "port": 9000]))
        #expect(activated.listeners.map(\.address) == [.inherited(.init(fd: 4, name: "https"))], "no TCP listener added")
        activated.listeners.insert(.inherited(.init(fd: 3, name: "web")), at: 0)
        #expect(throws: WhiskerServer.ConfigurationError(key: "cleartext", #"cleartext in cats.yaml: the inherited socket fd 3 ("web") would serve cleartext HTTP, but cleartext is off; name it "https" or "tls" (FileDescriptorName=) to serve HTTPS on it"#)) {
            try activated.apply(fileSources(["cleartext": false]))
        }
    }

    @Test func tlsKeys_ServeHTTPSWithMutualTLS() throws {
        let read = try configuration([
            "tls.certificate": "/c.pem", "tls.privateKey": "/k.pem", "tls.port": 9443,
            "tls.clientCA": "/ca.pem", "tls.clientCertificate": "optional",
        ])
        #expect(read.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 8080), .tcp(host: "127.0.0.1", port: 9443)])
        let tls = try #require(read.listeners.last?.tls)
        #expect(tls.certificateChainPath == "/c.pem" && tls.privateKeyPath == "/k.pem")
        #expect(tls.clientCertificates == .init(trustedCAPath: "/ca.pem", isRequired: false))
        let https = try configuration(["host": "0.0.0.0", "cleartext": false, "tls.certificate": "/c.pem", "tls.privateKey": "/k.pem"])
        #expect(https.listeners.map(\.address) == [.tcp(host: "0.0.0.0", port: 8443)] && https.listeners.map(\.isTLS) == [true])
        // Over an HTTPS listener already there, the keys change it rather than add one.
        var existing = https
        try existing.apply(fileSources(["tls.port": 9443, "tls.privateKey": "/k2.pem"]))
        #expect(existing.listeners.map(\.address) == [.tcp(host: "0.0.0.0", port: 9443)] && existing.listeners.first?.tls?.privateKeyPath == "/k2.pem")
    }

    @Test func tlsKeys_ThatDoNotFitTogether_AreRefusedNamingThem() {
        #expect(failure(["tls.certificate": "/c.pem"]) == "tls.certificate in cats.yaml is set alone: tls.certificate and tls.privateKey go together, give both or neither")
        #expect(failure(["tls.clientCA": "/ca.pem"]) == "tls.clientCA in cats.yaml needs HTTPS: set tls.certificate and tls.privateKey")
        #expect(failure(["tls.certificate": "/c", "tls.privateKey": "/k", "tls.clientCertificate": "maybe"])
            == #"tls.clientCertificate in cats.yaml must be required or optional, got "maybe""#)
    }

    @Test func http2Keys_TurnHTTP2AndH2COnlyOn() throws {
        let read = try configuration(["http2.enabled": true, "http2.cleartextOnly": "on"])
        #expect(read.http2 != nil && read.cleartextHTTP2Only)
        #expect(try configuration(["http2.enabled": false]).http2 == nil)
        #expect(failure(["http2.cleartextOnly": true]) == "http2.cleartextOnly in cats.yaml needs HTTP/2: set http2.enabled")
    }

    /// `Upgrade: h2c` is off unless the key asks for it, and needs HTTP/2.
    @Test func http2UpgradeKey_IsOffByDefault_AndNeedsHTTP2() throws {
        #expect(try configuration(["http2.enabled": true]).acceptsH2CUpgrade == false)
        let read = try configuration(["http2.enabled": true, "http2.upgrade": "on"])
        #expect(read.http2 != nil && read.acceptsH2CUpgrade && !read.cleartextHTTP2Only)
        #expect(failure(["http2.upgrade": true]) == "http2.upgrade in cats.yaml needs HTTP/2: set http2.enabled")
    }

    @Test func limitKeys_SetEveryLimit_AndZeroRatesMeanNone() throws {
        let read = try configuration([
            "limits.maxConnections": 12, "limits.maxHeaderBytes": 2048, "limits.maxRequestBodySize": 0,
            "limits.minRequestBodyRate": 0, "limits.minResponseRate": "1000",
        ])
        #expect(read.limits.maxConnections == 12 && read.limits.maxHeaderBytes == 2048 && read.limits.maxRequestBodySize == 0)
        #expect(read.limits.minRequestBodyRate == nil && read.limits.minResponseRate?.bytesPerSecond == 1000)
    }

    @Test func timeoutKeys_SetEveryTimeout_InSecondsWithFractions() throws {
        let read = try configuration([
            "timeouts.tlsHandshake": 1, "timeouts.requestHeader": 2.5, "timeouts.requestBody": "3",
            "timeouts.idle": 0.25, "timeouts.write": 5, "timeouts.shutdownGracePeriod": 6,
        ])
        #expect(read.timeouts.tlsHandshake == .seconds(1) && read.timeouts.requestHeader == .milliseconds(2500))
        #expect(read.timeouts.requestBody == .seconds(3) && read.timeouts.idle == .milliseconds(250))
        #expect(read.timeouts.write == .seconds(5) && read.timeouts.shutdownGracePeriod == .seconds(6))
    }

    @Test func corsKeys_MakeOnePolicy_FromAListOrCommaSeparatedText() throws {
        let read = try configuration([
            "cors.origins": .init(.stringArray(["https://a.example", "https://b.example"]), isSecret: false),
            "cors.pathPrefix": "/api/", "cors.credentials": true, "cors.exposedHeaders": "X-Request-ID, ETag",
        ])
        #expect(read.cors.count == 1)
        #expect(read.cors.first?.allowedOrigins == ["https://a.example", "https://b.example"] && read.cors.first?.pathPrefix == "/api/")
        #expect(read.cors.first?.allowsCredentials == true && read.cors.first?.exposedHeaders == ["X-Request-ID", "ETag"])
        #expect(try configuration(["cors.origins": "https://a.example,https://b.example"]).cors.first?.allowedOrigins.count == 2)
        #expect(failure(["cors.credentials": true]) == "cors.credentials in cats.yaml needs cors.origins")
        #expect(failure(["cors.origins": "*", "cors.credentials": true])?.hasPrefix("cors.origins in cats.yaml: ") == true)
    }

    @Test func proxyKeys_TrustProxies_AndSetTheirProtocolAndFields() throws {
        let read = try configuration([
            "proxies.trusted": "10.0.0.0/8, 127.0.0.1", "proxies.proxyProtocol": "http,https",
            "proxies.headerTimeout": 2, "proxies.forwardedFields": false,
        ])
        let proxies = try #require(read.reverseProxies)
        #expect(proxies.trusted.count == 2 && read.listeners.map(\.expectsProxyProtocol) == [true])
        #expect(proxies.proxyHeaderTimeout == .seconds(2) && !proxies.readsForwardedFields)
        #expect(failure(["proxies.trusted": "cats"]) == #"proxies.trusted in cats.yaml: invalid address range "cats": not a numeric IPv4 or IPv6 address"#)
        #expect(failure(["proxies.trusted": "10.0.0.0/8", "proxies.proxyProtocol": "ftp"])
            == #"proxies.proxyProtocol in cats.yaml must be http, https or http,https, got "ftp""#)
        #expect(failure(["proxies.proxyProtocol": "http"])?.hasPrefix("proxies.proxyProtocol in cats.yaml needs proxies.trusted") == true)
        #expect(failure(["proxies.trusted": "127.0.0.1", "proxies.proxyProtocolSockets": "lb"])
            == #"proxies.proxyProtocolSockets in cats.yaml: no inherited socket is named "lb" (no socket activation)"#)
        var activated = WhiskerServer.Configuration(listeners: [.inherited(.init(fd: 3, name: "web")), .inherited(.init(fd: 4, name: "lb"))])
        try activated.apply(fileSources(["proxies.trusted": "127.0.0.1", "proxies.proxyProtocolSockets": "lb", "port": 9000]))
        #expect(activated.listeners.map(\.expectsProxyProtocol) == [false, true] && activated.listeners.count == 2, "no TCP listener added")
    }

    /// The field the proxies set: X-Forwarded-For unless a key says otherwise, per range with `=`.
    @Test func proxyKeys_NameTheForwardingField_ForAllOrPerRange() throws {
        #expect(try configuration(["proxies.trusted": "127.0.0.1"]).reverseProxies?.forwardingField == .xForwardedFor)
        let read = try #require(try configuration([
            "proxies.trusted": "10.0.0.0/8, 192.0.2.0/24=Forwarded", "proxies.forwardingField": "none",
        ]).reverseProxies)
        #expect(read.forwardingField == WhiskerServer.ForwardingField.none && read.trusted.count == 1)
        #expect(read.forwardingFields.map(\.field) == [.forwarded] && "\(read.forwardingFields[0].range)" == "192.0.2.0/24")
        #expect(failure(["proxies.trusted": "127.0.0.1", "proxies.forwardingField": "X-Real-IP"])
            == #"proxies.forwardingField in cats.yaml must be X-Forwarded-For, Forwarded or none, got "X-Real-IP""#)
        #expect(failure(["proxies.trusted": "127.0.0.1=Via"])
            == #"proxies.trusted in cats.yaml: "127.0.0.1=Via": the field after = must be X-Forwarded-For, Forwarded or none"#)
        #expect(failure(["proxies.forwardingField": "Forwarded"])?.hasPrefix("proxies.forwardingField in cats.yaml needs proxies.trusted") == true)
    }

    @Test func healthKeys_TurnTheChecksOn_WithAPortAndDrainDelay() throws {
        #expect(try configuration(["health.enabled": true]).healthChecks == WhiskerServer.HealthChecks())
        let read = try configuration(["health.port": 9000, "health.drainDelay": 1.5])
        #expect(read.healthChecks?.drainDelay == .milliseconds(1500))
        #expect(read.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 8080), .tcp(host: "127.0.0.1", port: 9000)])
        #expect(read.listeners.map(\.servesOnlyHealthChecks) == [false, true])
        // The Unix domain socket comes before the checks' own listener, which stays last.
        #expect(try configuration(["health.port": 9000, "unixSocket.path": "/tmp/c.sock"]).listeners.map(\.servesOnlyHealthChecks) == [false, false, true])
        #expect(try configuration(["health.port": 9000, "health.enabled": true]).listeners.count == 2)
        #expect(failure(["health.enabled": false, "health.drainDelay": 1])
            == "health.drainDelay in cats.yaml needs the health checks, which health.enabled in cats.yaml turns off")
    }

    @Test func compressionKeys_TurnCompressionAndRequestDecompressionOn() throws {
        let read = try configuration(["compression.enabled": "true", "compression.requestDecompression": 1])
        #expect(read.compression != nil && read.requestDecompression != nil)
        var existing = WhiskerServer.Configuration()
        existing.compression = CompressionSettings()
        try existing.apply(fileSources(["compression.enabled": "off"]))
        #expect(existing.compression == nil)
    }

    @Test func apply_LeavesWhatNoSourceSets() throws {
        var configuration = WhiskerServer.Configuration(host: "127.0.0.1", port: 1234)
        configuration.http2 = HTTP2Settings()
        configuration.limits.maxConnections = 7
        try configuration.apply(fileSources(["limits.maxHeaderBytes": 4096]))
        #expect(configuration.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 1234)] && configuration.http2 != nil)
        #expect(configuration.limits.maxConnections == 7 && configuration.limits.maxHeaderBytes == 4096)
    }
}
#endif
