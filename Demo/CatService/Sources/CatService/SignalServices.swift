#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import ServiceLifecycle
import UnixSignals
import Whisker

// The services that run next to the server in cat-service's ServiceGroup, one per signal it acts on.

/// On SIGHUP (`systemctl reload`): reads the configuration file again and applies what can change
/// while serving, the log level; warns, naming them, about the keys that changed but take effect
/// only at the next start; and reloads the HTTPS certificate and key from their files for new
/// connections (open ones keep the certificate they started with). A file that no longer reads, or
/// a certificate that does not load, is logged and everything stays as it was.
struct ReloadOnHangup: Service {
    let server: WhiskerServer
    let command: CatServiceCommand
    let environment: [String: String]
    /// The sources the server started with; each SIGHUP that reads the file replaces them.
    let sources: WhiskerServer.ConfigurationSources
    /// The sockets systemd passed at start, which a re-read configuration serves too.
    let activation: SystemdSocketActivation?
    let levels: LogLevelSwitch
    let logger: Logger

    func run() async throws {
        var sources = sources
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            if let file = SettingsSources.configFile(command, environment: environment) {
                do {
                    let reread = try await SettingsSources.load(environment: environment, file: file)
                    let settings = try Settings(command, sources: reread, activation: activation)
                    apply(settings, changing: Self.changedKeys(from: sources, to: reread), from: file)
                    sources = reread
                } catch {
                    logger.error("SIGHUP received, but the configuration file was not applied; keeping the current settings", metadata: ["file": "\(file)", "error": "\(error)"])
                }
            }
            guard server.configuration.listeners.contains(where: \.isTLS) else {
                logger.notice("SIGHUP received: no TLS certificate to reload")
                continue
            }
            do {
                try await server.reloadTLS()
            } catch {
                logger.error("SIGHUP received, but the TLS certificate was not reloaded; keeping the current one", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The settings read again: the log level now, a warning for the rest.
    private func apply(_ settings: Settings, changing keys: [String], from file: String) {
        if settings.logLevel != levels.level {
            levels.level = settings.logLevel
            logger.notice("SIGHUP: log level is now \(settings.logLevel)", metadata: ["file": "\(file)"])
        }
        let needRestart = keys.filter { $0 != "logLevel" }
        if !needRestart.isEmpty {
            logger.warning("SIGHUP: these settings changed but take effect only when cat-service restarts: \(needRestart.joined(separator: ", "))", metadata: ["file": "\(file)"])
        }
    }

    /// The keys whose value differs between two readings of the sources.
    private static func changedKeys(from old: WhiskerServer.ConfigurationSources, to new: WhiskerServer.ConfigurationSources) -> [String] {
        SettingsSources.variableNames.map(\.key).filter { key in
            ((try? old.value(key)) ?? nil)?.text != ((try? new.value(key)) ?? nil)?.text
        }
    }
}

// The service group logs each service at debug level: by name only, never the command's flags
// nor the environment it keeps, which hold the report tokens.
extension ReloadOnHangup: CustomStringConvertible {
    var description: String { "ReloadOnHangup" }
}

/// Exits at once, without draining, when a second SIGINT or SIGTERM arrives during a graceful
/// shutdown (an operator pressing Ctrl-C twice). The first one is the service group's. It ends
/// when its own graceful shutdown comes, after the server's.
struct SecondSignalExit: Service {
    let logger: Logger

    func run() async throws {
        var count = 0
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint).cancelOnGracefulShutdown() {
            count += 1
            guard count > 1 else {
                logger.notice("\(signal) received, shutting down gracefully")
                continue
            }
            logger.warning("second \(signal) received, exiting without draining")
            exit(1)
        }
    }
}
