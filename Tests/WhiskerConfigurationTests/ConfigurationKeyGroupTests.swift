#if Configuration
import Configuration
import Testing
import Whisker
import WhiskerCORS
import WhiskerConfiguration
import WhiskerCore
import WhiskerHealth

/// Each module reads its own keys, as a value (`WhiskerServer.ConfigurationKeys`); a configuration
/// reads the groups it is given, in order, and `whisker` is every group of the build.
@Suite struct ConfigurationKeyGroupTests {
    /// The server's table, every key read by exactly one group: none lost, none read twice.
    @Test func theBuildsGroups_ReadEveryKeyOfTheTable_Once() {
        let names = WhiskerServer.ConfigurationKeys.whisker.flatMap(\.names)
        #expect(names.count == Set(names).count)
        #expect(Set(names) == Set([
            "host", "port", "cleartext", "workers", "requestIDs", "unixSocket.path", "unixSocket.mode",
            "tls.certificate", "tls.privateKey", "tls.port", "tls.clientCA", "tls.clientCertificate",
            "http2.enabled", "http2.cleartextOnly", "http2.upgrade",
            "limits.maxConnections", "limits.maxHeaderBytes", "limits.maxRequestBodySize", "limits.minRequestBodyRate", "limits.minResponseRate",
            "timeouts.tlsHandshake", "timeouts.requestHeader", "timeouts.requestBody", "timeouts.idle", "timeouts.write", "timeouts.shutdownGracePeriod",
            "cors.origins", "cors.pathPrefix", "cors.credentials", "cors.exposedHeaders",
            "proxies.trusted", "proxies.proxyProtocol", "proxies.proxyProtocolSockets", "proxies.headerTimeout", "proxies.forwardedFields", "proxies.forwardingField",
            "health.enabled", "health.port", "health.drainDelay",
            "compression.enabled", "compression.requestDecompression",
        ]))
        // The Unix domain socket joins the listeners the others imply: it is read last.
        #expect(WhiskerServer.ConfigurationKeys.whisker.last?.names == ["unixSocket.path", "unixSocket.mode"])
    }

    /// A group reads its keys and nothing else: the CORS module's group leaves the port alone,
    /// and its bad value is named as the whole table names it.
    @Test func aModulesGroup_ReadsOnlyItsOwnKeys() throws {
        let sources = fileSources(["port": "not a port", "cors.origins": "https://a.example", "health.enabled": true])
        let read = try WhiskerServer.Configuration(sources, reading: [.cors])
        #expect(read.cors.first?.allowedOrigins == ["https://a.example"])
        #expect(read.listeners.map(\.address) == WhiskerServer.Configuration().listeners.map(\.address) && read.healthChecks == nil)
        #expect(throws: WhiskerServer.ConfigurationError(key: "cors.credentials", "cors.credentials in cats.yaml needs cors.origins")) {
            try WhiskerServer.Configuration(fileSources(["cors.credentials": true]), reading: [.cors])
        }
    }

    /// The groups are read in their order: a later group sees what an earlier one set.
    @Test func groups_EditTheListenersByRole_SoTheirOrderDoesNotReorderThem() throws {
        let sources = fileSources(["health.port": 9000, "unixSocket.path": "/tmp/cats.sock"])
        for groups: [WhiskerServer.ConfigurationKeys] in [[.health, .unixSocket], [.unixSocket, .health]] {
            let read = try WhiskerServer.Configuration(sources, reading: groups)
            #expect(read.listeners.map(\.address) == [
                .tcp(host: "127.0.0.1", port: 8080), .unixDomainSocket(path: "/tmp/cats.sock", permissions: 0o660), .tcp(host: "127.0.0.1", port: 9000),
            ])
        }
    }

    /// A program's own feature offers its keys the same way, with the same errors.
    @Test func aGroupOfOnesOwn_ComposesWithTheServers() throws {
        let replicas = WhiskerServer.ConfigurationKeys(["replicas"]) { configuration, sources in
            if let count = try sources.integer("replicas", in: 1...16) { configuration.io.workers = count }
        }
        let read = try WhiskerServer.Configuration(fileSources(["replicas": 3, "port": 9090]), reading: WhiskerServer.ConfigurationKeys.whisker + [replicas])
        #expect(read.io.workers == 3 && read.listeners.map(\.address) == [.tcp(host: "127.0.0.1", port: 9090)])
        #expect(throws: WhiskerServer.ConfigurationError(key: "replicas", #"replicas in cats.yaml must be a whole number between 1 and 16, got "20""#)) {
            try WhiskerServer.Configuration(fileSources(["replicas": 20]), reading: [replicas])
        }
    }

    /// An error of a group's own stops the read as a ConfigurationError naming the group's first
    /// key and its source; a source that gives the group nothing to refuse reads as before.
    @Test func aGroupsOwnError_IsNamedByItsKey() throws {
        struct Refusal: Error, CustomStringConvertible { var description: String { "no replicas today" } }
        let refusing = WhiskerServer.ConfigurationKeys(["replicas"]) { _, sources in
            if try sources.value("replicas") != nil { throw Refusal() }
        }
        #expect(throws: WhiskerServer.ConfigurationError(key: "replicas", "replicas in cats.yaml: no replicas today")) {
            try WhiskerServer.Configuration(fileSources(["replicas": 2]), reading: [refusing])
        }
        #expect(try WhiskerServer.Configuration(fileSources(["port": 9090]), reading: [.listeners, refusing]).listeners.first?.address == .tcp(host: "127.0.0.1", port: 9090))
    }

    /// A feature the build leaves out refuses its keys, naming the trait; a source that sets none
    /// of them reads as before.
    @Test func aLeftOutFeaturesKeys_AreRefused_NamingTheTrait() throws {
        let leftOut = WhiskerServer.ConfigurationKeys.leftOut(["gopher.enabled"], trait: "Gopher")
        #expect(throws: WhiskerServer.ConfigurationError(key: "gopher.enabled", "gopher.enabled in cats.yaml needs Whisker's Gopher trait, which this build leaves out")) {
            try WhiskerServer.Configuration(fileSources(["gopher.enabled": true]), reading: [leftOut])
        }
        #expect(try WhiskerServer.Configuration(fileSources(["port": 9090]), reading: [.listeners, leftOut]).listeners.first?.address == .tcp(host: "127.0.0.1", port: 9090))
    }
}
#endif
