import Atomics
import SwitchyardCore
import Foundation
import NIOCore
import NIOPosix
import SQLiteNIO

/// The embedded back end: one SQLite file in WAL mode with durable commits
/// (`synchronous=FULL`). Writes go through one connection, one at a time; reads rotate over a
/// few reader connections, which WAL lets run beside the writer. Every SQLite call runs on a
/// thread pool of the store's own, one thread per connection, so no other blocking work (QR
/// drawing, file I/O on the shared pool) can hold up a query.
final class SQLiteStore: SQLDatabase {
    let kind = "sqlite"
    private let writer: SQLiteConnection
    private let readers: [SQLiteConnection]
    private let threads: NIOThreadPool
    private let writeLock = AsyncLock()
    /// When a write last met the database locked by another process (uptime seconds); nil once
    /// a write got through. Writes that were already queued then are refused without trying.
    private let lockedSince = Locked<Double?>(nil)
    /// SQLite's busy timeout on every connection: how long a statement waits for another
    /// process's lock before it fails with SQLITE_BUSY.
    static let busyTimeoutSeconds = 10
    private let next = ManagedAtomic<Int>(0)

    /// Why the database file is not its owner's alone, or nil; see ``exposure(of:)``.
    let exposure: String?

    private init(writer: SQLiteConnection, readers: [SQLiteConnection], threads: NIOThreadPool, exposure: String?) {
        self.writer = writer
        self.readers = readers
        self.threads = threads
        self.exposure = exposure
    }

    /// Why other users may read or write the database at `path` (its mode lets its group or
    /// others in), in words with the command that mends it; nil when only its owner may. A new
    /// database is made owner-only, so this is said of one made before that, or changed since.
    /// The file SQLite opens is judged: a symbolic link's target.
    static func exposure(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        // The command as a shell takes it: a path with a space or a quote in single quotes.
        let plain = path.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-+,:@%".unicodeScalars.contains($0)) }
        let argument = plain ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        return "sqlite:\(path) may be read by other users (mode \(mode)): it holds the claim-token signing key and the API tokens' hashes; run chmod 600 \(argument) (SQLite gives its -wal and -shm files the database's mode when it makes them)"
    }

    /// Why this user cannot open `path` read-write (SQLite also writes its -wal and -shm files
    /// beside it), in words; nil when permissions are not the reason.
    static func accessProblem(_ path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        if FileManager.default.fileExists(atPath: path) {
            if access(path, R_OK | W_OK) != 0 { return "permission denied: this user cannot read and write the file" }
        } else if access(folder, W_OK | X_OK) != 0 {
            return "permission denied: this user cannot make a file in \(folder)"
        }
        if access(folder, W_OK | X_OK) != 0 { return "permission denied: this user cannot write in \(folder) (SQLite keeps its -wal and -shm files beside the database)" }
        return nil
    }

    static func open(path: String, readerCount: Int = 3) async throws(StoreError) -> SQLiteStore {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            // Owner-only, whatever the umask: another user who may write there could rename the
            // database away and put one of theirs in its place.
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
                throw StoreError(.unavailable, "sqlite:\(path): cannot create the directory \(directory): \(error.localizedDescription)")
            }
        }
        // A new database is readable by this user only: it holds the claim-token signing key and
        // the token hashes. SQLite gives its -wal and -shm files the database file's permissions.
        // (An existing file is left as it is: creating fails.)
        try? DurableFile.create(path, [], mode: 0o600)
        var opened: [SQLiteConnection] = []
        let threads = NIOThreadPool(numberOfThreads: readerCount + 1)
        threads.start()
        do {
            for i in 0...readerCount {
                let c = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threads, on: MultiThreadedEventLoopGroup.singleton.any()).get()
                opened.append(c)
                _ = try await c.query("PRAGMA busy_timeout = \(busyTimeoutSeconds * 1000)", [])
                if i == 0 {
                    let mode = try await c.query("PRAGMA journal_mode = WAL", []).first?.column("journal_mode")?.string
                    guard mode == "wal" else { throw StoreError(.unavailable, "sqlite:\(path): could not switch to WAL (journal_mode is \(mode ?? "unknown"))") }
                }
                _ = try await c.query("PRAGMA synchronous = FULL", [])
            }
        } catch {
            for c in opened { try? await c.close() }
            try? await threads.shutdownGracefully()
            if let e = error as? StoreError { throw e }
            throw StoreError(.unavailable, "sqlite:\(path): \(accessProblem(path) ?? "\(error)")", cause: error)
        }
        return SQLiteStore(writer: opened[0], readers: Array(opened.dropFirst()), threads: threads, exposure: exposure(of: path))
    }

    /// Takes the writer. When a write met the database locked by another process (SQLITE_BUSY
    /// once the busy timeout ran out) while this one was queued behind it, refuses at once (and
    /// frees the writer) instead of waiting out the busy timeout again; a write queued after that
    /// failure tries for real. So no write waits for more than about one busy timeout, however
    /// long the queue and however slowly its tasks are scheduled.
    private func takeWriter() async throws(StoreError) {
        let queuedAt = ProcessInfo.processInfo.systemUptime
        await writeLock.lock()
        if let since = lockedSince.withLock({ $0 }), queuedAt <= since {
            await writeLock.unlock()
            throw StoreError(.unavailable, "sqlite: the database is locked by another process (a write ahead of this one waited \(Self.busyTimeoutSeconds) s for it); nothing was stored")
        }
    }

    /// Notes how a write on the writer ended: locked by another process, or not.
    private func noteWrite(_ error: StoreError?) {
        let locked = (error?.cause as? FailedStatement).map { ($0.underlying as? SQLiteError)?.reason == .busy } ?? false
        lockedSince.withLock { $0 = locked ? ProcessInfo.processInfo.systemUptime : nil }
    }

    func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        try await takeWriter()
        do {
            let rows = try await Self.query(writer, sql, binds)
            noteWrite(nil)
            await writeLock.unlock()
            return rows
        } catch {
            noteWrite(error)
            await writeLock.unlock()
            throw error
        }
    }

    /// How many writes wait for the writer (for tests).
    var queuedWrites: Int { get async { await writeLock.waiting } }

    func read(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        let i = next.loadThenWrappingIncrement(ordering: .relaxed)
        return try await Self.query(readers[abs(i % readers.count)], sql, binds)
    }

    /// BEGIN IMMEDIATE … COMMIT by hand: sqlite-nio (1.x) has no transaction API like
    /// PostgresClient's `withTransaction` (which `PostgresStore` uses), and IMMEDIATE takes the
    /// write lock at BEGIN, so a transaction never fails halfway for a lock another one holds.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws(StoreError) -> T) async throws(StoreError) -> T {
        try await takeWriter()
        let connection = Connection(connection: writer)
        do {
            _ = try await connection.run("BEGIN IMMEDIATE", [])
            let result = try await body(connection)
            _ = try await connection.run("COMMIT", [])
            noteWrite(nil)
            await writeLock.unlock()
            return result
        } catch {
            _ = try? await connection.run("ROLLBACK", [])
            noteWrite(error)
            await writeLock.unlock()
            throw error
        }
    }

    private let closed = ManagedAtomic<Bool>(false)

    func close() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        for c in [writer] + readers { try? await c.close() }
        try? await threads.shutdownGracefully()
    }

    deinit {
        // Dropped without close(): close in the background (each close keeps its connection alive).
        if !closed.load(ordering: .relaxed) {
            let threads = self.threads
            let closing = ([writer] + readers).map { $0.close() }
            EventLoopFuture.andAllComplete(closing, on: MultiThreadedEventLoopGroup.singleton.any()).whenComplete { _ in
                threads.shutdownGracefully { _ in }
            }
        }
    }

    /// The writer connection inside a transaction (the lock is already held).
    private struct Connection: SQLExecutor {
        let connection: SQLiteConnection
        func run(_ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
            try await SQLiteStore.query(connection, sql, binds)
        }
    }

    private static func query(_ connection: SQLiteConnection, _ sql: String, _ binds: [SQLValue]) async throws(StoreError) -> [[SQLValue]] {
        let data: [SQLiteData] = binds.map {
            switch $0 {
            case .null: return .null
            case .int(let v): return .integer(Int(v))
            case .text(let s): return .text(s)
            }
        }
        do {
            return try await connection.query(sql, data).map { row in
                row.columns.map { column in
                    switch column.data {
                    case .integer(let v): return .int(Int64(v))
                    case .text(let s): return .text(s)
                    // A real where an integer was (SQLite turns an integer sum past Int64 into one):
                    // clamped to the integers, never a trap.
                    case .float(let d): return .int(d.isNaN ? 0 : d >= 9.2e18 ? .max : d <= -9.2e18 ? .min : Int64(d))
                    case .blob(let b): return .text(String(buffer: b))
                    case .null: return .null
                    }
                }
            }
        } catch let error as SQLiteError {
            if [.constraintPrimaryKeyFailed, .constraintUniqueFailed].contains(error.reason) {
                throw StoreError(.duplicate, "sqlite: \(error.message)", cause: error)
            }
            throw StoreError(.failed, "sqlite: \(error.message)", cause: FailedStatement(sql: String(sql.prefix(80)), underlying: error))
        } catch {
            throw StoreError(.failed, "sqlite: \(error)", cause: error)
        }
    }
}
