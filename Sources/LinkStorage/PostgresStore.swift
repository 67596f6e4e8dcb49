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

    private init(client: PostgresClient, runner: Task<Void, Never>?, location: String, host: String, port: Int) {
        self.client = client
        self.runner = runner
        self.location = location
        self.host = host
        self.port = port
    }

    /// Connects. With `.store` the store runs its connection pool until `close()` and the
    /// connection is checked before this returns; with `.serviceGroup` the pool is in `services`
    /// for the caller's ServiceGroup to run, and `checkReachable` is for once it runs (a server
    /// with nothing listening is refused here already).
    package static func open(host: String, port: Int, user: String, password: String?, database: String, tls: Bool,
                     pool: ConnectionPoolRunner = .store) async throws(StoreError) -> PostgresStore {
        let tlsMode: PostgresClient.Configuration.TLS = tls ? .prefer(.makeClientConfiguration()) : .disable
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tlsMode)
        // Eight for queries, and one more held by the change listener (`listen`).
        configuration.options.maximumConnections = 9
        let client = PostgresClient(configuration: configuration)
        let location = "postgres://\(user)@\(host):\(port)/\(database)"
        if pool == .serviceGroup {
            // Nothing listening is said here, before a ServiceGroup starts only to be cancelled.
            if let problem = await connectionProblem(host: host, port: port) { throw StoreError(.unavailable, "\(location): \(problem)") }
            return PostgresStore(client: client, runner: nil, location: location, host: host, port: port)
        }
        let runner = Task { await client.run() }
        let store = PostgresStore(client: client, runner: runner, location: location, host: host, port: port)
        do { try await store.checkReachable() } catch {
            runner.cancel()
            throw error
        }
        return store
    }

    /// Why nothing can be reached at `host:port` (a TCP connection within 5 s), or nil when
    /// something listens there.
    static func connectionProblem(host: String, port: Int) async -> String? {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5)).connect(host: host, port: port).get()
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
            try? await Task.sleep(for: .seconds(wait))
            wait = min(wait * 2, 10)
        }
    }

    /// The connection pool, when the caller's ServiceGroup runs it.
    var services: [any Service] { runner == nil ? [client] : [] }

    /// Runs a first query within `timeout` (postgres-nio retries a wrong password forever, so
    /// the first query is bounded). A server that cannot be reached at all (connection refused,
    /// no such host) is said at once instead.
    func checkReachable(timeout: Duration = .seconds(15)) async throws(StoreError) {
        let location = self.location
        if let problem = await Self.connectionProblem(host: host, port: port) {
            throw StoreError(.unavailable, "\(location): \(problem)")
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await self.run("SELECT 1", []) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StoreError(.unavailable, "\(location): no connection within \(timeout) (a wrong user or password? the server is listening)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch let e as StoreError {
            throw StoreError(e.code == .failed ? .unavailable : e.code, e.code == .failed ? "\(location): \(e.message)" : e.message)
        } catch {
            throw StoreError(.unavailable, "\(location): \(error)", cause: error)
        }
    }

    package func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        let query = Self.query(sql, binds)
        do {
            return try await Self.rows(client.query(query))
        } catch {
            throw Self.storeError(error, sql)
        }
    }

    package func read(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        try await run(sql, binds)
    }

    package func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws(StoreError) -> T) async throws(StoreError) -> T {
        do {
            return try await client.withTransaction(logger: Self.logger) { connection in
                try await body(Connection(connection: connection))
            }
        } catch let error as PostgresTransactionError {
            // The body's own error (already a StoreError) is what callers act on; BEGIN, COMMIT
            // or ROLLBACK failing is a storage failure with the driver's error as its cause.
            if let own = error.closureError as? StoreError { throw own }
            throw Self.storeError(error.closureError ?? error.commitError ?? error.beginError ?? error, "BEGIN/COMMIT")
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.storeError(error, "BEGIN/COMMIT")
        }
    }

    package func close() async {
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
            return StoreError(.failed, "postgres: \(message)\(state.map { " (SQLSTATE \($0))" } ?? "") (in: \(sql.prefix(80)))", cause: e)
        }
        return StoreError(.failed, "postgres: \(error)", cause: error)
    }
}
