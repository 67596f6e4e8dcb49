import SwitchyardCore
import Foundation

/// A value bound into, or read out of, a SQL statement. Both back ends store only these.
package enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case text(String)

    package var int: Int64? { if case .int(let v) = self { return v } else { return nil } }
    package var text: String? { if case .text(let v) = self { return v } else { return nil } }

    package init(_ text: String?) { self = text.map { .text($0) } ?? .null }
    package init(_ int: Int64?) { self = int.map { .int($0) } ?? .null }
}

/// The columns a query selects, as an enum whose cases are the columns in SELECT order: the
/// select list (``list``) and every read of a row (``SQLRow``) come from it, so no value is read
/// by its position.
package protocol SQLColumns: CaseIterable, Equatable, RawRepresentable where RawValue == String, AllCases == [Self] {}

extension SQLColumns {
    /// The select list: every column, in order.
    package static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
    /// `?` for each column, for an INSERT of all of them.
    package static var placeholders: String { allCases.map { _ in "?" }.joined(separator: ", ") }
}

/// A row read through the enum of the columns its query selected.
package struct SQLRow<Column: SQLColumns> {
    private let values: [SQLValue]

    /// The row of a query whose select list is `Column.list`.
    package init(_ values: [SQLValue]) { self.values = values }

    package subscript(_ column: Column) -> SQLValue {
        guard let index = Column.allCases.firstIndex(of: column), index < values.count else { return .null }
        return values[index]
    }

    package func text(_ column: Column) -> String? { self[column].text }
    package func int(_ column: Column) -> Int64? { self[column].int }
}

/// Runs statements. SQL is written once with `?` placeholders; each back end adapts it.
package protocol SQLExecutor: Sendable {
    /// Runs one statement and returns its rows, each a list of column values in SELECT order.
    @discardableResult
    func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]]
}

/// A database the link service stores into: SQLite (embedded) or PostgreSQL.
package protocol SQLDatabase: SQLExecutor {
    /// `sqlite` or `postgres`, for messages and metrics.
    var kind: String { get }
    /// Runs a read-only statement; may use a separate reader connection.
    func read(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]]
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws(StoreError) -> T) async throws(StoreError) -> T
    /// Closes every connection.
    func close() async
}

/// A storage failure: `duplicate` (a row with the same key exists: a code collision, a
/// duplicate token), `unavailable` (the database could not be reached or opened), `bad-url`
/// (a malformed database URL or unknown back end), `failed` (a statement failed) or
/// `schema-too-new` (the database was migrated by a newer build).
/// The driver's own error (SQLiteNIO's, PostgresNIO's) is its cause.
public typealias StoreError = DomainError<StoreErrors>

/// The domain of ``StoreError``.
public enum StoreErrors: ErrorDomain {}

/// The cause of a store error from a statement the database refused: the statement (its first
/// 80 characters, for logs) and the driver's error.
package struct FailedStatement: Error {
    package let sql: String
    package let underlying: any Error
}

extension DomainError where Domain == StoreErrors {
    /// The statement that failed (its start), when the database refused one.
    package var statement: String? { (cause as? FailedStatement)?.sql }
}

/// Where the service stores its data: `sqlite:PATH` or `postgres://user:password@host:port/database`.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(host: String, port: Int, user: String, password: String?, database: String, tls: PostgresTLS)

    /// The default: a SQLite file under `./.switchyard/`.
    public static let defaultSQLite = DatabaseLocation.sqlite(path: ".switchyard/switchyard.sqlite")

    /// Parses `sqlite:PATH`, `sqlite://PATH`, `postgres://…` or `postgresql://…`, with
    /// `?sslmode=` and `?sslrootcert=` as libpq reads them (see ``PostgresTLS``).
    public init(parsing text: String) throws(StoreError) {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else { throw StoreError(.badURL, "\(text): sqlite: needs a file path, e.g. sqlite:.switchyard/links.sqlite") }
            self = .sqlite(path: path)
            return
        }
        // The text as errors show it: never its password.
        let shown = Self.withoutPassword(text)
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let c = URLComponents(string: text) else {
            throw StoreError(.badURL, "\(shown): expected sqlite:PATH or postgres://user:password@host:port/database")
        }
        guard let host = c.host, !host.isEmpty else { throw StoreError(.badURL, "\(shown): the postgres URL has no host") }
        guard let user = c.user, !user.isEmpty else { throw StoreError(.badURL, "\(shown): the postgres URL has no user") }
        let database = String(c.path.drop(while: { $0 == "/" }))
        // libpq's other parameters are not read: refused rather than silently ignored (a
        // misspelt ssl_mode would otherwise connect as prefer).
        if let other = (c.queryItems ?? []).first(where: { !["sslmode", "sslrootcert"].contains($0.name) }) {
            let meant = DocumentShape.suggestion(for: other.name, among: ["sslmode", "sslrootcert"]).map { "; did you mean \($0)?" } ?? ""
            throw StoreError(.badURL, "\(shown): the parameter \(other.name) is not supported\(meant) (a postgres URL takes sslmode and sslrootcert; the user and password go before the @)")
        }
        let tls = try PostgresTLS(queryItems: c.queryItems ?? [], shown: shown)
        self = .postgres(host: host, port: c.port ?? 5432, user: user, password: c.password?.removingPercentEncoding,
                         database: database.isEmpty ? user : database, tls: tls)
    }

    /// `text` with the password of its user info (between "user:" and the last "@" before the
    /// path) replaced by `***`, and every query value but `sslmode`'s and `sslrootcert`'s by `…` (libpq also reads
    /// `?password=`), parsed or not: what an error may show of a database URL. Text with an "@"
    /// but no "//" (`postgres:user:pw@host`) has everything between its first ":" and the "@" hidden.
    static func withoutPassword(_ text: String) -> String {
        guard let start = text.range(of: "://")?.upperBound else {
            guard let at = text.lastIndex(of: "@"), let colon = text[..<at].firstIndex(of: ":") else { return text }
            return String(text[...colon]) + "***" + String(text[at...])
        }
        var head = String(text[..<start])
        var rest = text[start...]
        // The last "@" ends the user info, even when the password holds a raw "/", "?" or "#".
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            head += userInfo.firstIndex(of: ":").map { String(userInfo[...$0]) + "***" } ?? String(userInfo)
            rest = rest[at...]
        } else if let colon = rest.firstIndex(of: ":"),
                  !rest[rest.index(after: colon)...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" }).allSatisfy(\.isNumber) {
            // No host after it ("postgres://u:PASS"): what follows a colon that is no port may be
            // a password, and nothing after it is shown.
            return head + rest[...colon] + "***"
        }
        guard let q = rest.firstIndex(of: "?") else { return head + rest }
        let items = rest[rest.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let name = item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return ["sslmode", "sslrootcert"].contains(name.lowercased()) ? String(item) : name + "=…"
        }
        return head + rest[...q] + items.joined(separator: "&")
    }

    /// The location with any password hidden.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let host, let port, let user, _, let database, _): return "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }

    /// Opens the database and applies pending migrations (PostgreSQL with `pool: .serviceGroup`:
    /// only once its pool runs, in `LinkStore.prepare()`).
    package func open(pool: ConnectionPoolRunner = .store) async throws(StoreError) -> any SQLDatabase {
        let db: any SQLDatabase
        switch self {
        case .sqlite(let path): db = try await SQLiteStore.open(path: path)
        case .postgres(let host, let port, let user, let password, let database, let tls):
            let postgres = try await PostgresStore.open(host: host, port: port, user: user, password: password, database: database, tls: tls, pool: pool)
            if pool == .serviceGroup { return postgres }
            db = postgres
        }
        do { try await Migrations.apply(to: db) } catch {
            await db.close()
            throw error
        }
        return db
    }
}

/// How a PostgreSQL connection uses TLS: libpq's `sslmode` and `sslrootcert`, with libpq's
/// meanings.
///
/// | `sslmode` | encrypted | the server's certificate |
/// | --- | --- | --- |
/// | `disable` | never | — |
/// | `prefer` (the default) | when the server offers TLS, else not | not checked |
/// | `require` | always: a server without TLS is refused | not checked (checked as `verify-ca` when `sslrootcert` is given, as libpq does) |
/// | `verify-ca` | always | signed by a trusted authority |
/// | `verify-full` | always | signed by a trusted authority and naming the host of the URL |
///
/// The trusted authorities are those of the PEM file `sslrootcert` names, or with none (or
/// `sslrootcert=system`) the system's. libpq's `allow` is not supported (no connection is
/// tried without TLS first); any other value is refused when the URL is read.
public struct PostgresTLS: Sendable, Equatable {
    /// libpq's `sslmode` values that Switchyard supports.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The mode.
    public var mode: Mode
    /// The PEM file of the authorities to trust (`sslrootcert`); nil: the system's.
    public var rootCertificate: String?

    /// A mode, trusting `rootCertificate` (nil: the system's authorities).
    public init(_ mode: Mode, rootCertificate: String? = nil) {
        self.mode = mode
        self.rootCertificate = rootCertificate
    }

    /// Whether the server's certificate chain is checked.
    public var verifiesAuthority: Bool { mode == .verifyCA || mode == .verifyFull || (mode == .require && rootCertificate != nil) }

    /// Reads `sslmode` and `sslrootcert` from a database URL's query (`shown`: the URL as an
    /// error may show it).
    init(queryItems: [URLQueryItem], shown: String) throws(StoreError) {
        func one(_ name: String) throws(StoreError) -> String? {
            let items = queryItems.filter { $0.name == name }
            guard items.count <= 1 else { throw StoreError(.badURL, "\(shown): \(name) is given \(items.count) times; give it once") }
            return items.first.map { $0.value ?? "" }
        }
        let modeText = try one("sslmode")
        let root = try one("sslrootcert")
        switch modeText {
        case nil: mode = .prefer
        case "allow"?:
            throw StoreError(.badURL, "\(shown): sslmode=allow is not supported (it tries without TLS first); use prefer, require, verify-ca or verify-full")
        case let text?:
            guard let known = Mode(rawValue: text) else {
                let choices = Mode.allCases.map(\.rawValue).joined(separator: ", ")
                throw StoreError(.badURL, "\(shown): sslmode=\(text.isEmpty ? "(empty)" : text) is not a mode libpq knows; use one of \(choices) (lower case)")
            }
            mode = known
        }
        switch root {
        case nil, "system"?: rootCertificate = nil
        case ""?: throw StoreError(.badURL, "\(shown): sslrootcert is empty; name a PEM file of the authorities to trust, or system")
        case let path?:
            guard mode != .disable, mode != .prefer else {
                throw StoreError(.badURL, "\(shown): sslrootcert is only read with sslmode=require, verify-ca or verify-full (sslmode=\(mode.rawValue) checks no certificate)")
            }
            rootCertificate = path
        }
    }
}

/// Who runs a PostgreSQL store's connection pool (SQLite has none).
public enum ConnectionPoolRunner: Sendable {
    /// The store, from `open` to `close`: for one-shot commands and tests.
    case store
    /// The caller's ServiceGroup, which runs `LinkStore.services` (the pool) beside the server
    /// and stops it after the services that write on shutdown; `LinkStore.prepare()` checks the
    /// connection and migrates once it runs. `LinkService.application` does both.
    case serviceGroup
}

/// Serialises async work (one SQLite writer at a time, transactions included).
package actor AsyncLock {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A lock, free.
    package init() {}

    /// Waits until the lock is free and takes it.
    package func lock() async {
        if !locked { locked = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// How many wait for the lock.
    package var waiting: Int { waiters.count }

    /// Frees the lock, handing it to the next waiter.
    package func unlock() {
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }
}
