import ArgumentParser
import Foundation
import Hummingbird
import LinkConfiguration
import LinkRules
import LinkService
import LinkStorage
import Logging
import SwitchyardCore
import UnixSignals

/// Options every command that touches the service's database shares.
extension ServiceConfiguration {
    /// The configuration at `path`; when nil, `./switchyard.yaml` if there is one (what `init`
    /// writes), else the built-in example. Returns it with the path it came from; a configuration
    /// that cannot be used is reported and exits 2.
    static func forCommandLine(_ path: String?) throws -> (path: String, configuration: ServiceConfiguration) {
        if let problem = ServiceResources.problem {
            Output.error("error: \(problem)")
            throw ExitCode(2)
        }
        guard let path = path ?? (FileManager.default.fileExists(atPath: "switchyard.yaml") ? "switchyard.yaml" : examplePath) else {
            Output.error("error: the example configuration is missing from the installation")
            throw ExitCode(2)
        }
        do { return (path, try ServiceConfiguration(contentsOf: path)) } catch {
            Output.error("error: \(error)")
            throw ExitCode(2)
        }
    }
}

struct DatabaseOption: ParsableArguments {
    @Option(help: "sqlite:PATH or postgres://user:password@host:port/database (default: sqlite:.switchyard/switchyard.sqlite).")
    var database: String?

    /// The database as a person needs to see it: a SQLite file by its absolute path (a command
    /// run from another directory opens another file), PostgreSQL without its password.
    var shown: String {
        guard let location = try? database.map({ try DatabaseLocation(parsing: $0) }) ?? .defaultSQLite else { return database ?? "" }
        if case .sqlite(let path) = location {
            return "sqlite:" + URL(fileURLWithPath: path).standardizedFileURL.path
        }
        return location.description
    }

    /// `existing`: a command that only reads (or removes) does not make a database where there
    /// is none, so a mistyped path is an error that names it, not a new empty database.
    func open(pool: ConnectionPoolRunner = .store, existing: Bool = false) async throws -> LinkStore {
        let location: DatabaseLocation
        do { location = try database.map { try DatabaseLocation(parsing: $0) } ?? .defaultSQLite } catch {
            Output.error("error: \(error)")
            throw ExitCode(2)
        }
        if existing, case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            Output.error("error: no database at \(path) (--database sqlite:\(path)); this command reads one and makes none — `switchyard serve` or `switchyard token create` make it")
            throw ExitCode(2)
        }
        do {
            return try await LinkStore.open(location, pool: pool)
        } catch {
            Output.error("error: \(error)")
            throw ExitCode(2)
        }
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the link service: association files, links and invites API, landing pages, resolve API.",
        discussion: """
            With no --config it reads ./switchyard.yaml (what `switchyard init` writes), or when there is none serves \
            Switchyard's example configuration (the Plur app). Data goes to a SQLite file \
            under ./.switchyard/ unless --database says otherwise; migrations run at start. /healthz answers 200 once \
            the server is ready and 503 {"status":"degraded",…} while writes to the database fail. SIGTERM or SIGINT stops it gracefully (pending click counts are written first). \
            Create an API token with `switchyard token create`.
            """
    )

    @Option(help: "Configuration file (YAML or JSON): apps, hosts, routes, landing pages, invites, limits (default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(parsing: .unconditional, help: "Port to listen on (0: any free port).") var port = 8080
    @OptionGroup var databaseOption: DatabaseOption
    @Option(help: "Log format: json (one object per line) or text.") var logFormat = "json"
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (0 picks a free port)") }
        guard ["json", "text"].contains(logFormat) else { throw ValidationError("--log-format must be json or text") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
    }

    func run() async throws {
        // Past a file-size limit (`ulimit -f`) a write must fail with EFBIG, answered 503 with
        // the reason, instead of SIGXFSZ ending the service.
        signal(SIGXFSZ, SIG_IGN)
        let (path, configuration) = try ServiceConfiguration.forCommandLine(config)
        if let problem = configuration.servingProblem {
            Output.error("error: \(path): \(problem)")
            throw ExitCode(2)
        }
        let level = Logger.Level(rawValue: logLevel)!
        let json = logFormat == "json"
        LoggingSystem.bootstrap { label in
            if json { return JSONLogHandler(label: label, level: level) }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "switchyard")
        for warning in configuration.servingWarnings { logger.warning("\(warning)", metadata: ["config": "\(path)"]) }
        // The rule manifest first: a configuration naming one that cannot be used is refused
        // before the database is made or migrated.
        let manifest: Manifest
        do { manifest = try LinkService.manifest(configuration) } catch {
            Output.error("error: \(path): \(error)")
            throw ExitCode(2)
        }
        // The PostgreSQL pool runs in the service's ServiceGroup (connected and migrated before
        // the server listens); SQLite is opened and migrated here.
        let store = try await databaseOption.open(pool: .serviceGroup)
        let service: LinkService
        do {
            service = try LinkService(configuration: configuration, store: store, logger: logger, scriptWorker: ScriptWorkerCommand.isolation, manifest: manifest)
        } catch {
            await store.close()
            Output.error("error: \(path): \(error)")
            throw ExitCode(2)
        }
        let host = self.host
        let port = self.port
        let app = service.application(host: host, port: port) { channel in
            logger.notice("listening", metadata: [
                "url": "http://\(host.contains(":") ? "[\(host)]" : host):\(channel.localAddress?.port ?? port)", "config": "\(path)", "database": "\(databaseOption.shown)",
            ])
        }
        // SIGHUP stops it as SIGTERM does (a graceful stop, batched clicks flushed): the
        // configuration and templates are read at start, so a restart applies an edit.
        do { try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint, .sighup]) } catch {
            await store.close()
            if let error = error as? StoreError {  // the database could not be reached or migrated
                Output.error("error: \(error)")
                throw ExitCode(2)
            }
            Output.failIfCannotListen(error, address: "\(host):\(port)", hint: "stop the other server or choose another --port (0 picks a free one)")
            throw error
        }
        await store.close()
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage API tokens (only a hash of each token is stored).",
        subcommands: [TokenCreate.self, TokenList.self, TokenRevoke.self]
    )
}

struct TokenCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a token; it is printed once, alone on the last line of stdout.")

    @Option(help: "A name to recognise the token by.") var name: String
    @Option(help: "links:read, links:write, transactions or admin (repeatable; default links:write and links:read).") var scope: [String] = []
    @OptionGroup var databaseOption: DatabaseOption

    func validate() throws {
        for s in scope where TokenScope(rawValue: s) == nil {
            throw ValidationError("unknown scope '\(s)' (known: \(TokenScope.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if let problem = APIToken.nameProblem(name) { throw ValidationError("--name \(problem)") }
    }

    func run() async throws {
        let scopes = scope.isEmpty ? [TokenScope.linksWrite, .linksRead] : scope.compactMap(TokenScope.init(rawValue:))
        let store = try await databaseOption.open()
        let issued = APIToken.issue(name: name, scopes: scopes)
        do { try await store.insert(issued.record) } catch {
            await store.close()
            Output.error("error: \(error.message)")
            throw ExitCode(1)
        }
        await store.close()
        Output.error("created token \(issued.record.id) (\(name); scopes: \(issued.record.scopes.joined(separator: " "))) in \(databaseOption.shown). It is shown once:")
        Output.line(issued.token)
    }
}

struct TokenList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List tokens (ids, names, scopes; never secrets).")
    @OptionGroup var databaseOption: DatabaseOption
    @Flag(help: "One JSON object per token.") var json = false

    func run() async throws {
        let store = try await databaseOption.open(existing: true)
        let tokens: [StoredToken]
        do { tokens = try await store.tokens() } catch {
            await store.close()
            Output.error("error: \(error)")
            throw ExitCode(1)
        }
        await store.close()
        for t in tokens.map(APIToken.Listing.init) {
            if json {
                Output.line(JSONWriter.compact(try JSONValueEncoder().encode(t)))
            } else {
                // A name is printable text when created, but the database may hold anything: escaped.
                Output.line("\(t.id)  \(Output.escaped(t.name))  [\(t.scopes)]  created \(t.created)\(t.revoked.map { "  REVOKED \($0)" } ?? "")")
            }
        }
    }
}

struct TokenRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token by id, or by a name that one active token has; it stops working at once.")
    @Argument(help: "Token id, or the name of one active token.") var token: String
    @OptionGroup var databaseOption: DatabaseOption

    func run() async throws {
        let store = try await databaseOption.open(existing: true)
        let n: Int
        do { n = try await store.revokeToken(token) } catch {
            await store.close()
            Output.error(Output.escaped("error: \(error.message)"))
            throw ExitCode(1)
        }
        await store.close()
        guard n > 0 else {
            Output.error("error: no active token with id or name '\(token)'")
            throw ExitCode(1)
        }
        Output.line("revoked \(n) token\(n == 1 ? "" : "s")")
    }
}
