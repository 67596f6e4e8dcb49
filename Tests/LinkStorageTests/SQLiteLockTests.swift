import Foundation
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The embedded database while another process holds its lock (a second `switchyard` writing
/// to the same file, a long `sqlite3` transaction): the write at the head of the queue waits out
/// SQLite's busy timeout, and the writes queued behind it are refused as soon as it fails, so no
/// request waits for several timeouts in a row; a write queued after that tries for real.
@Suite struct SQLiteLockTests {
    @Test func writesBehindALockedDatabaseAreRefusedWithinABound() async throws {
        let path = Backend.temporaryPath("locked") + "/links.sqlite"
        let store = try await LinkStore.open(.sqlite(path: path))
        let other = try await LinkStore.open(.sqlite(path: path))
        // The other connection takes the database's write lock and keeps it for 15 s; the writes
        // start once it holds it.
        let held = Locked(false)
        let holding = Task {
            try await other.db.transaction { _ async throws(StoreError) in
                held.withLock { $0 = true }
                try? await Task.sleep(for: .seconds(15))
            }
        }
        while !held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        let start = ContinuousClock.now
        let outcomes: [(stored: Bool, after: Duration)] = await withTaskGroup(of: (stored: Bool, after: Duration).self) { group in
            for i in 0..<4 {
                group.addTask {
                    do {
                        try await store.insert(StoredLink(code: "locked\(i)x", createdAt: Date()))
                        return (true, ContinuousClock.now - start)
                    } catch {
                        return (false, ContinuousClock.now - start)
                    }
                }
            }
            // Three writes queue behind the first, however slowly a loaded machine starts them.
            guard let sqlite = store.db as? SQLiteStore else { Issue.record("not the SQLite store"); return [] }
            while await sqlite.queuedWrites < 3, ContinuousClock.now - start < .seconds(9) { try? await Task.sleep(for: .milliseconds(5)) }
            #expect(await sqlite.queuedWrites == 3, "the writes were not queued before the first one's busy timeout")
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { !$0.stored }, "\(outcomes)")
        let slowest = outcomes.map(\.after).max() ?? .zero
        // The head waits SQLite's 10 s; the others are refused right after it, while the lock is
        // still held (not after 20, 30 and 40 s, nor once it is let go).
        #expect(slowest < .seconds(14), "\(outcomes)")
        try await holding.value
        try await store.insert(StoredLink(code: "unlocked1", createdAt: Date()))
        #expect(try await store.link(code: "unlocked1") != nil)
        await store.close()
        await other.close()
    }
}
