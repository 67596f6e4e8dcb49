import SwitchyardCore
import Foundation
import Logging
import NIOCore
import NIOSSL
import NIOPosix
import PostgresNIO
import SwitchyardNetwork
import ServiceLifecycle

/// The PostgreSQL back end, for more than one service node. Every node runs the same
/// migrations at start (serialised with an advisory lock) and shares the data.
package final class PostgresStore: SQLDatabase {
    package let kind = "postgres"
    private let client: PostgresClient
    /// The task that runs the pool when the store runs it itself (nil: a ServiceGroup does).
    private let runner: Task<Void, Never>?
    private let location: String
    /// Where the server is, for the first check's connection attempt.
    private let host: String
    private let port: Int
    /// One connection's settings, for the first check (a connection of its own, outside the
    /// pool, so a refusal is said at once and as what it is).
    private let check: PostgresConnection.Configuration

    private init(client: PostgresClient, runner: Task<Void, Never>?, location: String, host: String, port: Int, check: PostgresConnection.Configuration) {
        self.client = client
        self.runner = runner
        self.location = location
        self.host = host
        self.port = port
        self.check = check
    }

    /// Connects. With `.store` the store runs its connection pool until `close()` and the
    /// connection is checked before this returns; with `.serviceGroup` the pool is in `services`
    /// for the caller's ServiceGroup to run, and `checkReachable` is for once it runs (a server
    /// with nothing listening is refused here already).
    package static func open(host: String, port: Int, user: String, password: String?, database: String, tls: PostgresTLS,
                     pool: ConnectionPoolRunner = .store) async throws(StoreError) -> PostgresStore {
        let location = "postgres://\(user)@\(host):\(port)/\(database)"
        let settings = try tlsSettings(tls, location: location)
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database,
                                                         tls: settings.map { tls.mode == .prefer ? .prefer($0) : .require($0) } ?? .disable)
        var checkTLS = PostgresConnection.Configuration.TLS.disable
        if let settings {
            let context: NIOSSLContext
            do { context = try NIOSSLContext(configuration: settings) } catch {
                throw StoreError(.badURL, "\(location): TLS cannot be set up with these settings (\(error))", cause: error)
            }
            checkTLS = tls.mode == .prefer ? .prefer(context) : .require(context)
        }
        let check = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: checkTLS)
        // Eight for queries, and one more held by the change listener (`listen`).
        configuration.options.maximumConnections = 9
        let client = PostgresClient(configuration: configuration)
        if pool == .serviceGroup {
            // Nothing listening is said here, before a ServiceGroup starts only to be cancelled.
            if let problem = await connectionProblem(host: host, port: port) { throw StoreError(.unavailable, "\(location): \(problem)") }
            return PostgresStore(client: client, runner: nil, location: location, host: host, port: port, check: check)
        }
        let runner = Task { await client.run() }
        let store = PostgresStore(client: client, runner: runner, location: location, host: host, port: port, check: check)
        do { try await store.checkReachable() } catch {
            runner.cancel()
            throw error
        }
        return store
    }

    /// The driver's TLS settings for `tls` (nil: `disable`), as libpq's `sslmode` means them:
    /// `prefer` and `require` check no certificate (unless `require` has a root certificate);
    /// `verify-ca` checks the chain; `verify-full` the chain and the host name (an IP address
    /// host is matched against the certificate's IP addresses). A root certificate file that
    /// cannot be read is refused here, when the store opens.
    static func tlsSettings(_ tls: PostgresTLS, location: String) throws(StoreError) -> TLSConfiguration? {
        guard tls.mode != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let path = tls.rootCertificate {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(path)
                guard !certificates.isEmpty else { throw StoreError(.badURL, "\(location): sslrootcert=\(path) holds no PEM certificate") }
                configuration.trustRoots = .certificates(certificates)
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.badURL, "\(location): sslrootcert=\(path) cannot be read as PEM certificates (\(error))", cause: error)
            }
        }
        switch tls.mode {
        case .verifyFull: configuration.certificateVerification = .fullVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .require, .prefer, .disable: configuration.certificateVerification = tls.verifiesAuthority ? .noHostnameVerification : .none
        }
        return configuration
    }

    /// Why nothing can be reached at `host:port` (a TCP connection within 5 s), or nil when
    /// something listens there.
    static func connectionProblem(host: String, port: Int, within limit: TimeAmount = .seconds(5)) async -> String? {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(limit).connect(host: host, port: port).get()
            try? await channel.close()
            return nil
        } catch {
            return NetworkFailure.describe(error)
        }
    }

    /// Until cancelled: LISTENs on `channel` on a connection of its own and hands each
    /// notification's payload to `received`; after a failure (the database restarting) it
    /// connects again, waiting 0.5 s doubling to 10 s. `listening` says when it starts and stops
    /// listening.
    func listen(_ channel: String, listening: @escaping @Sendable (Bool) -> Void, received: @escaping @Sendable (String) -> Void) async {
        var wait = 0.5
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        listening(true)
                        wait = 0.5
                        for try await notification in notifications { received(notification.payload) }
                    }
                }
            } catch {}
            listening(false)
            guard !Task.isCancelled else { return }
            // A listening connection that dropped is the first sign of a database gone: health
            // says so at once rather than at its next probe.
            if let problem = await Self.connectionProblem(host: host, port: port, within: .seconds(1)) { markUnreachable(problem) }
            try? await Task.sleep(for: .seconds(wait))
            wait = min(wait * 2, 10)
        }
    }

    /// The connection pool, when the caller's ServiceGroup runs it.
    var services: [any Service] { runner == nil ? [client] : [] }

    /// Connects once on a connection of its own and runs a first query, within `timeout`
    /// (postgres-nio's pool retries a wrong password or a refused certificate forever, so the
    /// first check is made outside it). A server that cannot be reached at all (connection
    /// refused, no such host) is said at once; so are a refused password, a server without the
    /// TLS that `sslmode` asks for and a certificate that fails its check.
    func checkReachable(timeout: Duration = .seconds(15)) async throws(StoreError) {
        let location = self.location
        if let problem = await Self.connectionProblem(host: host, port: port) {
            throw StoreError(.unavailable, "\(location): \(problem)")
        }
        let check = self.check
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.any(), configuration: check,
                                                                          id: 0, logger: Self.logger).get()
                    do { _ = try await connection.query("SELECT 1", logger: Self.logger).get() } catch {
                        try? await connection.close()
                        throw error
                    }
                    try await connection.close()
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StoreError(.unavailable, "\(location): no connection within \(timeout) (a wrong user or password? the server is listening)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(.unavailable, "\(location): \(Self.connectionRefusal(error))", cause: error)
        }
        _ = try await run("SELECT 1", [])
    }

    /// Why a first connection failed, in words (the driver's own description hides its cause).
    static func connectionRefusal(_ error: any Error) -> String {
        guard let e = error as? PSQLError else { return NetworkFailure.describe(error) }
        switch e.code {
        case .sslUnsupported:
            return "the server does not offer TLS, and sslmode asks for it (sslmode=require, verify-ca or verify-full); turn ssl on at the server, or use sslmode=prefer"
        case .failedToAddSSLHandler:
            return "TLS could not be set up: \(e.underlying.map { String(describing: $0) } ?? "unknown")"
        case .server:
            let message = e.serverInfo?[.message] ?? "refused"
            return "the server refused the connection: \(message)\(e.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")"
        default:
            if let underlying = e.underlying {
                // Told by type, never by the error's text.
                if underlying is NIOSSLError || underlying is BoringSSLError {
                    return "the TLS handshake failed (the server's certificate was not accepted for sslmode and sslrootcert): \(underlying)"
                }
                return NetworkFailure.describe(underlying)
            }
            return "\(e.code)"
        }
    }

    package func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        let query = Self.query(sql, binds)
        let client = self.client
        // Nothing of the caller's runs inside: abandoning the query while it waits is safe.
        return try await failingFast(sql) { _ in try await Self.rows(client.query(query)) }
    }

    package func read(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        try await run(sql, binds)
    }

    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws(StoreError) -> T) async throws(StoreError) -> T {
        let client = self.client
        // `failingFast` may answer 503 while the transaction still waits for a connection: then
        // `begin` answers false when the connection comes, and `body` never runs.
        return try await failingFast("BEGIN/COMMIT") { begin in
            do {
                return try await client.withTransaction(logger: Self.logger) { connection in
                    guard begin() else { throw CancellationError() }
                    return try await body(Connection(connection: connection))
                }
            } catch let error as PostgresTransactionError {
                // The body's own error (already a StoreError) is what callers act on; BEGIN, COMMIT
                // or ROLLBACK failing is a storage failure with the driver's error as its cause.
                if let own = error.closureError as? StoreError { throw own }
                throw Self.storeError(error.closureError ?? error.commitError ?? error.beginError ?? error, "BEGIN/COMMIT")
            }
        }
    }

    /// Why the database cannot be reached now, while it cannot (nil while it answers): set when a
    /// statement waited a second and nothing listened at the server's address, cleared once it
    /// answers a query again. While set, statements are refused at once (503 at once, not after
    /// the pool's minute of retries) and `/healthz` says the database is down.
    package var unreachable: String? { circuit.withLock { $0.down } }

    private struct Circuit {
        var down: String?
        var recovering: Task<Void, Never>?
    }
    private let circuit = Locked(Circuit())

    /// How long a statement waits before the server's address is checked, and then how often.
    static let reachabilityCheck: Duration = .seconds(1)

    /// Runs `work` unless the database is known to be unreachable (refused at once then). While it
    /// runs longer than ``reachabilityCheck``, the server's address is checked each interval; when
    /// nothing listens there, the store is marked unreachable and, unless `work` has called its
    /// `begin` (a transaction's body has started on a connection: it ends soon, with the
    /// connection), the caller gets 503 `unavailable` at once while `work`, still waiting for a
    /// connection the pool would retry for about a minute, is cancelled and left to end.
    private func failingFast<T: Sendable>(_ sql: String, _ work: @escaping @Sendable (_ begin: @escaping @Sendable () -> Bool) async throws -> T) async throws(StoreError) -> T {
        if let down = unreachable { throw StoreError(.unavailable, "\(location): the database cannot be reached (\(down)); refused at once until it answers again") }
        let (host, port, location) = (self.host, self.port, self.location)
        let race = Locked(Race<T>())
        /// Hands `result` to the caller unless it has had its answer already.
        @Sendable func finish(_ result: Result<T, any Error>) {
            let (waiting, watcher) = race.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
                defer { state.continuation = nil; state.watcher = nil }
                return (state.continuation, state.watcher)
            }
            watcher?.cancel()
            waiting?.resume(with: result)
        }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                race.withLock { $0.continuation = continuation }
                let begin: @Sendable () -> Bool = {
                    race.withLock { state in
                        guard state.phase == .waiting else { return false }
                        state.phase = .begun
                        return true
                    }
                }
                let running = Task {
                    do { finish(.success(try await work(begin))) } catch { finish(.failure(error)) }
                }
                let watcher = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.reachabilityCheck)
                        guard !Task.isCancelled else { return }
                        guard let problem = await Self.connectionProblem(host: host, port: port, within: .seconds(1)) else { continue }
                        self.markUnreachable(problem)
                        let abandoned = race.withLock { state -> Bool in
                            guard state.phase == .waiting else { return false }
                            state.phase = .abandoned
                            return true
                        }
                        // A begun transaction ends with its connection; its own error will say why.
                        guard abandoned else { return }
                        running.cancel()
                        finish(.failure(StoreError(.unavailable, "\(location): the database cannot be reached (\(problem))")))
                        return
                    }
                }
                let done = race.withLock { state -> Bool in
                    if state.continuation == nil { return true }
                    state.watcher = watcher
                    return false
                }
                if done { watcher.cancel() }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.storeError(error, sql)
        }
    }

    /// Where a statement's race between its work and the reachability check stands.
    private enum RacePhase { case waiting, begun, abandoned }
    private struct Race<T: Sendable> {
        var phase = RacePhase.waiting
        var continuation: CheckedContinuation<T, any Error>?
        var watcher: Task<Void, Never>?
    }

    /// Marks the store unreachable and, once, starts checking every half second until the server
    /// answers a query again.
    private func markUnreachable(_ problem: String) {
        let (client, host, port) = (self.client, self.host, self.port)
        circuit.withLock { circuit in
            circuit.down = problem
            guard circuit.recovering == nil else { return }
            circuit.recovering = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    if await Self.connectionProblem(host: host, port: port, within: .seconds(1)) != nil { continue }
                    let answered = (try? await awaitingAtMost(.seconds(3)) { _ = try await Self.rows(client.query("SELECT 1")); return true }) ?? nil
                    if answered == true { break }
                }
                self.circuit.withLock { $0 = Circuit() }
            }
        }
    }

    package func close() async {
        circuit.withLock { $0.recovering?.cancel() }
        guard let runner else { return }  // the ServiceGroup stopped the pool
        runner.cancel()
        _ = await runner.value
    }

    private static let logger = Logger(label: "switchyard.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private struct Connection: SQLExecutor, @unchecked Sendable {
        let connection: PostgresConnection
        func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
            do {
                return try await PostgresStore.rows(connection.query(PostgresStore.query(sql, binds), logger: PostgresStore.logger))
            } catch {
                throw PostgresStore.storeError(error, sql)
            }
        }
    }

    /// Turns `?` placeholders into `$1`, `$2`, … (our SQL has no `?` inside literals).
    static func query(_ sql: String, _ binds: [SQLValue]) -> PostgresQuery {
        var text = ""
        var n = 0
        for ch in sql {
            if ch == "?" { n += 1; text += "$\(n)" } else { text.append(ch) }
        }
        var bindings = PostgresBindings(capacity: binds.count)
        for b in binds {
            switch b {
            case .null: bindings.appendNull()
            case .int(let v): bindings.append(v)
            case .text(let s): bindings.append(s)
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }

    static func rows(_ sequence: PostgresRowSequence) async throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        for try await row in sequence {
            var values: [SQLValue] = []
            for cell in row {
                if cell.bytes == nil { values.append(.null); continue }
                switch cell.dataType {
                case .int8, .int4, .int2: values.append(.int(try cell.decode(Int64.self)))
                case .bool: values.append(.int(try cell.decode(Bool.self) ? 1 : 0))
                default: values.append(.text(try cell.decode(String.self)))
                }
            }
            rows.append(values)
        }
        return rows
    }

    static func storeError(_ error: any Error, _ sql: String) -> StoreError {
        if let e = error as? StoreError { return e }
        if let e = error as? PSQLError {
            let state = e.serverInfo?[.sqlState]
            let message = e.serverInfo?[.message] ?? "\(e.code)"
            if state == "23505" { return StoreError(.duplicate, "postgres: \(message)", cause: e) }
            return StoreError(.failed, "postgres: \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")", cause: FailedStatement(sql: String(sql.prefix(80)), underlying: e))
        }
        return StoreError(.failed, "postgres: \(error)", cause: error)
    }
}
