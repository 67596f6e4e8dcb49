import Foundation
import ArgumentParser
import LinkConfiguration
import LinkService
import LinkStorage
import Logging
import SwitchyardCore

/// The `--database` option every command that touches the service's database shares.
struct DatabaseOption: ParsableArguments {
    @Option(help: "sqlite:PATH or postgres://user:password@host:port/database (default: sqlite:.switchyard/switchyard.sqlite).")
    var database: String?

    /// The database as a person needs to see it (the text given when it cannot be read).
    var shown: String { (try? DatabaseLocation(argument: database).shown) ?? database ?? "" }

    /// Runs `body` with the database open (exit status 2 when it cannot be), and closes it
    /// after. An error `body` throws is said as `error: ` and `describe(error)`, and exits with 1,
    /// or 2 when the database itself failed (read-only, full, gone).
    func withStore<T>(existing: Bool = false, describe: (any Error) -> String = { "\($0)" }, _ body: (LinkStore) async throws -> T) async throws -> T {
        let store = try await open(existing: existing)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            Output.error("error: \(describe(error))")
            throw ExitCode((error as? StoreError).map { $0.code == .failed || $0.code == .unavailable } == true ? 2 : 1)
        }
    }

    /// Opens the database, or exits with status 2 and the reason; `existing`: see `LinkStore.open(_:pool:existing:)`.
    func open(pool: ConnectionPoolRunner = .store, existing: Bool = false) async throws -> LinkStore {
        let location = try Output.orExit { try DatabaseLocation(argument: database) }
        var made: String?
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            made = URL(fileURLWithPath: path).standardizedFileURL.path
        }
        let store = try await Output.orExit { try await LinkStore.open(location, pool: pool, existing: existing) }
        if let made {
            // A command run from another directory than `serve` would otherwise fill a database
            // the running service never reads, and its token would be "invalid" there.
            Output.error("note: made a new, empty database at \(made): none was there\(database == nil ? " (the default is ./.switchyard/switchyard.sqlite in the directory you run from; serve reads the one where it runs, so run this command there, or give --database)" : "")".terminalEscaped)
        }
        return store
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
        let (path, configuration) = try Output.orExit { try ServiceConfiguration.located(config) }
        if config == nil, path == ServiceConfiguration.examplePath {
            // The README's first command serves the example; say so plainly, not only in a log field.
            Output.error("note: no ./switchyard.yaml here, so this serves Switchyard's built-in example configuration (the Plur app, rabble.community); run `switchyard init` for your own app's, or give --config FILE")
        }
        let database = try Output.orExit { try DatabaseLocation(argument: databaseOption.database) }
        let run = ServiceRun(configuration: configuration, configurationPath: path, database: database, host: host, port: port,
                             jsonLogs: logFormat == "json", logLevel: Logger.Level(rawValue: logLevel)!, scriptWorker: ScriptWorkerCommand.isolation)
        // A refusal (an address it cannot listen on, a database it cannot use) is status 2.
        do { try await run.run() } catch let refusal as ServiceRun.Refusal { try Output.orExit { throw refusal } }
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
    @Option(help: "links:read, links:write, transactions, fdl:create (Firebase's REST API only) or admin (repeatable; default links:write and links:read).") var scope: [String] = []
    @Option(help: "Limit links:read and links:write to the domain of this name (a domains list's name; repeatable; default: every domain).") var domain: [String] = []
    @Option(help: "The service's configuration, whose domains --domain names (default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @OptionGroup var databaseOption: DatabaseOption

    func validate() throws {
        for s in scope where TokenScope(rawValue: s) == nil {
            let known = TokenScope.allCases.map(\.rawValue)
            let meant = DocumentShape.suggestion(for: s, among: known).map { "; did you mean \($0)?" } ?? ""
            throw ValidationError("unknown scope '\(s)'\(meant) (known: \(known.joined(separator: ", ")))")
        }
        if let problem = APIToken.nameProblem(name) { throw ValidationError("--name \(problem)") }
        for d in domain {
            if let problem = ServiceConfiguration.domainNameProblem(d) { throw ValidationError("--domain \(JSONWriter.quote(d)) \(problem)") }
        }
        if !domain.isEmpty, let other = scopes.first(where: { !APIToken.domainScopes.contains($0) }) {
            throw ValidationError("--domain limits links:read and links:write; a token with \(other.rawValue) acts on every domain, so make it a token of its own without --domain")
        }
    }

    /// The scopes asked for (links:write and links:read when none is).
    var scopes: [TokenScope] { scope.isEmpty ? [.linksWrite, .linksRead] : scope.compactMap(TokenScope.init(rawValue:)) }

    func run() async throws {
        if !domain.isEmpty {
            // A name no domain has would make a token nothing accepts.
            let located = try Output.orExit { try ServiceConfiguration.located(config) }
            let names = located.configuration.servedDomains.map(\.domainName)
            if let unknown = domain.first(where: { !names.contains($0) }) {
                Output.error("error: --domain \(JSONWriter.quote(unknown)): no domain of \(located.path) is named so (domains: \(names.joined(separator: ", "))); give --config the configuration that lists it")
                throw ExitCode(2)
            }
        }
        let issued = APIToken.issue(name: name, scopes: scopes, domains: domain)
        try await databaseOption.withStore { try await $0.insert(issued.record) }
        Output.error("created token \(issued.record.id) (\(name); scopes: \(issued.record.scopes.joined(separator: " "))) in \(databaseOption.shown). It is shown once:")
        Output.line(issued.token)
    }
}

struct TokenList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List tokens (ids, names, scopes; never secrets).")
    @OptionGroup var databaseOption: DatabaseOption
    @Flag(help: "One JSON object per token.") var json = false

    func run() async throws {
        let tokens = try await databaseOption.withStore(existing: true) { try await $0.tokens() }
        for t in tokens.map(APIToken.Listing.init) {
            Output.line(json ? JSONWriter.compact(try JSONValueEncoder().encode(t)) : t.line.terminalEscaped)
        }
    }
}

struct TokenRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a token by id, or by a name that one active token has; it stops working at once.")
    @Argument(help: "Token id, or the name of one active token.") var token: String
    @OptionGroup var databaseOption: DatabaseOption

    func run() async throws {
        let n = try await databaseOption.withStore(existing: true) { try await $0.revokeToken(token) }
        guard n > 0 else {
            Output.error("error: no active token with id or name '\(token)'")
            throw ExitCode(1)
        }
        Output.line("revoked \(n) token\(n == 1 ? "" : "s")")
    }
}
