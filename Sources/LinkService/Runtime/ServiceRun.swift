#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird
import LinkConfiguration
import LinkRequests
import LinkRouting
import ServiceTransport
import LinkRules
import LinkStorage
import Logging
import SwitchyardNetwork
import UnixSignals

/// The service as `switchyard serve` runs it: logging set up for the process, the rule manifest
/// loaded (a configuration naming one that cannot be used is refused before the database is
/// touched), the store opened and migrated, and the server run until SIGTERM, SIGINT or SIGHUP
/// stops it gracefully (batched clicks written first). SIGHUP stops it too: the configuration
/// and templates are read at start, so a restart applies an edit.
package struct ServiceRun {
    /// The configuration, and the file it came from (named in messages and in the log).
    package var configuration: ServiceConfiguration
    package var configurationPath: String
    /// Where the data is.
    package var database: DatabaseLocation
    /// The address to listen on; port 0 picks a free one.
    package var host: String
    package var port: Int
    /// One JSON object per log line, or text.
    package var jsonLogs: Bool
    package var logLevel: Logger.Level
    /// How to start a script worker process.
    package var scriptWorker: ScriptIsolation?

    /// Makes the run; nothing happens until ``run()``.
    package init(configuration: ServiceConfiguration, configurationPath: String, database: DatabaseLocation, host: String, port: Int,
                 jsonLogs: Bool, logLevel: Logger.Level, scriptWorker: ScriptIsolation?) {
        (self.configuration, self.configurationPath, self.database) = (configuration, configurationPath, database)
        (self.host, self.port, self.jsonLogs, self.logLevel, self.scriptWorker) = (host, port, jsonLogs, logLevel, scriptWorker)
    }

    /// Why the service could not start or listen: a configuration it cannot serve, a database it
    /// cannot reach or migrate, an address it cannot listen on. Bad input, said in words.
    package struct Refusal: Error, CustomStringConvertible {
        /// Where it was refused: the configuration file, when the refusal is about it.
        package var path: String?
        /// What refused it: the configuration's own problem as text, or the error behind it.
        package var cause: any Error

        package var description: String { (path.map { "\($0): " } ?? "") + "\(cause)" }
    }

    /// A refusal with no error behind it (the configuration's own problem, a port in use), as stated.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the service until a signal stops it. Throws ``Refusal`` for what stops it before it
    /// serves; any other error as it came.
    package func run() async throws {
        // Past a file-size limit (`ulimit -f`) a write must fail with EFBIG, answered 503 with
        // the reason, instead of SIGXFSZ ending the service (an embedding server gets this too).
        signal(SIGXFSZ, SIG_IGN)
        let path = configurationPath
        if let problem = configuration.servingProblem { throw Refusal(path: path, cause: Problem(description: "\(problem)")) }
        let (json, level) = (jsonLogs, logLevel)
        LoggingSystem.bootstrap { label in
            if json { return JSONLogHandler(label: label, level: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "switchyard")
        for warning in configuration.servingWarnings { logger.warning("\(warning)", metadata: ["config": "\(path)"]) }
        let manifest: Manifest
        do { manifest = try LinkService.manifest(configuration) } catch { throw Refusal(path: path, cause: error) }
        // The PostgreSQL pool runs in the service's ServiceGroup (connected and migrated before
        // the server listens); SQLite is opened and migrated here.
        let store: LinkStore
        do { store = try await LinkStore.open(database, pool: .serviceGroup) } catch { throw Refusal(path: nil, cause: error) }
        if let exposure = store.exposure { logger.warning("\(exposure)") }
        let service: LinkService
        do { service = try LinkService(configuration: configuration, store: store, logger: logger, scriptWorker: scriptWorker, manifest: manifest) } catch {
            await store.close()
            throw Refusal(path: path, cause: error)
        }
        let (host, port, shown) = (host, port, database.shown)
        let limits = service.connectionLimits()
        if limits.maximumConnections < 1024 {
            logger.warning("the open-file limit allows only \(limits.maximumConnections) connections; raise it (ulimit -n, LimitNOFILE=) for a public service")
        }
        // With a domains list, each domain's name and hosts.
        let domains = configuration.domains.map { "\($0.domainName) (\($0.router.hosts.joined(separator: ", ")))" }.joined(separator: "; ")
        let app = service.application(host: host, port: port, connectionLimits: limits) { channel in
            var metadata: Logger.Metadata = [
                "url": "http://\(host.contains(":") ? "[\(host)]" : host):\(channel.localAddress?.port ?? port)", "config": "\(path)", "database": "\(shown)",
                "connections": "\(limits.maximumConnections)", "perAddress": "\(limits.maximumPerAddress.map(String.init) ?? "no limit")",
            ]
            if !domains.isEmpty { metadata["domains"] = "\(domains)" }
            logger.notice("listening", metadata: metadata)
        }
        do { try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint, .sighup]) } catch {
            await store.close()
            if let error = error as? StoreError { throw Refusal(path: nil, cause: error) }  // not reached or not migrated
            if let failure = ListenFailure(error) {
                throw Refusal(path: nil, cause: Problem(description: failure.message(address: "\(host):\(port)", hint: "stop the other server or choose another --port (0 picks a free one)")))
            }
            throw error
        }
        await store.close()
    }
}
