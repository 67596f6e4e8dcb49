@testable import LinkStorage
import SwitchyardCore
import Foundation
import SwitchyardTestSupport
import Testing

/// The same storage suite on SQLite and on PostgreSQL.
@Suite struct StorageTests {
    static func link(_ code: String, created: Double, _ fill: (inout StoredLink) -> Void = { _ in }) -> StoredLink {
        var l = StoredLink(code: code, createdAt: Date(timeIntervalSince1970: created))
        fill(&l)
        return l
    }

    /// Each table's column enum names every column the migrations made, no more: a row is read
    /// whole, by name, never by its position.
    @Test(arguments: Backend.available)
    func theColumnEnumsNameEveryColumnOfTheirTables(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        func columns(_ table: String) async throws -> Set<String> {
            let sql = backend == .sqlite ? "SELECT name FROM pragma_table_info('\(table)')"
                : "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '\(table)'"
            return Set(try await store.db.read(sql, []).compactMap { $0.first?.text })
        }
        #expect(try await columns("links") == Set(LinkStore.LinkColumn.allCases.map(\.rawValue)))
        #expect(try await columns("tokens") == Set(LinkStore.TokenColumn.allCases.map(\.rawValue)))
        #expect(try await columns("transactions") == Set(LinkStore.TransactionColumn.allCases.map(\.rawValue)))
    }

    @Test(arguments: Backend.available)
    func roundTripsEveryField(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        let full = Self.link("Abc234xy", created: 1_790_000_000.123) {
            $0.kind = .invite; $0.route = "appGroup"; $0.parameters = [("groupId", "g-1"), ("relay", "wss://r.example/ü")]
            $0.webURL = "https://rabble.community/g/g-1"; $0.appStoreURL = "https://apps.apple.com/app/id1"
            $0.playStoreURL = "https://play.google.com/store/apps/details?id=x"; $0.title = "T \"quoted\""; $0.description = "D"
            $0.imageURL = "https://rabble.community/i.png"; $0.expiresAt = Date(timeIntervalSince1970: 1_800_000_000.5)
            $0.maxUses = 3; $0.createdBy = "tokenid"
        }
        try await store.insert(full)
        #expect(try await store.link(code: "Abc234xy") == full)
        let minimal = Self.link("min23456", created: 1_790_000_001) { $0.deepLink = "plur://group/x" }
        try await store.insert(minimal)
        #expect(try await store.link(code: "min23456") == minimal)
        #expect(try await store.link(code: "nothere1") == nil)
    }

    @Test(arguments: Backend.available)
    func duplicateCodesAreRefusedAndNothingIsLost(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        let first = Self.link("same2345", created: 1) { $0.deepLink = "plur://a" }
        try await store.insert(first)
        await #expect(throws: StoreError.self) {
            try await store.insert(Self.link("same2345", created: 2) { $0.deepLink = "plur://b" })
        }
        do { try await store.insert(Self.link("same2345", created: 2)) } catch { #expect(error.code == .duplicate) }
        #expect(try await store.link(code: "same2345") == first)
    }

    @Test(arguments: Backend.available)
    func paginatesInCreationOrderWithoutGapsOrRepeats(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        var expected: [String] = []
        // Pairs share a creation time, so the code breaks ties.
        for i in 0..<25 {
            let code = String(format: "c%03dzz", 24 - i)
            try await store.insert(Self.link(code, created: Double(1000 + i / 2)))
            expected.append(code)
        }
        expected.sort { a, b in
            let ia = 24 - Int(a.dropFirst().prefix(3))!, ib = 24 - Int(b.dropFirst().prefix(3))!
            return (ia / 2, a) < (ib / 2, b)
        }
        var seen: [String] = []
        var cursor: (Int64, String)?
        while true {
            let page = try await store.links(after: cursor, limit: 10)
            seen += page.map(\.code)
            guard page.count == 10, let last = page.last else { break }
            cursor = (LinkStore.millis(last.createdAt), last.code)
        }
        #expect(seen == expected)
    }

    @Test(arguments: Backend.available)
    func deleteAndClicks(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        try await store.insert(Self.link("limited2", created: 1) { $0.maxUses = 5 })
        try await store.insert(Self.link("open2345", created: 2))
        // 20 concurrent clicks on a 5-use link: exactly 5 are counted.
        let outcomes = try await withThrowingTaskGroup(of: ClickOutcome.self) { group in
            for _ in 0..<20 { group.addTask { try await store.click(code: "limited2") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .counted = $0 { true } else { false } }.count == 5)
        #expect(outcomes.filter { $0 == .exhausted }.count == 15)
        #expect(try await store.link(code: "limited2")?.clicks == 5)
        #expect(try await store.click(code: "missing2") == .missing)
        try await store.addClicks(["open2345": 7, "missing2": 3])
        try await store.addClicks(["open2345": 2])
        #expect(try await store.link(code: "open2345")?.clicks == 9)
        #expect(try await store.delete(code: "open2345"))
        #expect(try await !store.delete(code: "open2345"))
        #expect(try await store.link(code: "open2345") == nil)
    }

    @Test(arguments: Backend.available)
    func tokensStoreOnlyHashesAndRevoke(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        let issued = APIToken.issue(name: "ci", scopes: [.linksWrite])
        try await store.insert(issued.record)
        let stored = try #require(try await store.token(id: issued.record.id))
        let (_, secret) = try #require(APIToken.parse(issued.token))
        #expect(stored.secretHash == APIToken.hash(secret))
        #expect(!stored.secretHash.contains(secret))
        #expect(stored.scopes == ["links:write"])
        #expect(try await store.revokeToken("ci") == 1)
        #expect(try await store.revokeToken("ci") == 0)
        #expect(try await store.token(id: issued.record.id)?.revokedAt != nil)
    }

    /// A new SQLite database, which holds the claim-token signing key, is readable by its owner
    /// only, and so are the -wal and -shm files SQLite makes beside it.
    @Test func aNewSQLiteDatabaseIsTheOwnersOnly() async throws {
        let directory = TestTemporary.root.path + "/sy-mode-" + UUID().uuidString
        let path = directory + "/links.sqlite"
        let store = try await LinkStore.open(DatabaseLocation(argument: "sqlite:" + path))
        try await store.insert(APIToken.issue(name: "ci", scopes: [.linksRead]).record)
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = (try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? -1
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
        #expect(store.exposure == nil)
        await store.close()

        // One made before that, or opened up since, is said with the mode and the mend.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let opened = try await LinkStore.open(DatabaseLocation(argument: "sqlite:" + path))
        #expect(opened.exposure == "sqlite:\(path) may be read by other users (mode 644): it holds the claim-token signing key and the API tokens' hashes; run chmod 600 \(path) (SQLite gives its -wal and -shm files the database's mode when it makes them)")
        await opened.close()

        // Through a symbolic link, the file SQLite opens is the one judged.
        let link = TestTemporary.root.path + "/sy-mode-link-" + UUID().uuidString + ".sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let linked = try await LinkStore.open(DatabaseLocation(argument: "sqlite:" + link))
        #expect(linked.exposure?.hasPrefix("sqlite:\(link) may be read by other users (mode 644)") == true, "\(linked.exposure ?? "nil")")
        await linked.close()

        // The mend is a command a shell runs as it reads: a path with a space or a quote is quoted.
        #expect(SQLiteStore.exposure(of: path).map { $0.contains("run chmod 600 \(path) (") } == true)
        let odd = TestTemporary.root.path + "/sy mode 'x'-" + UUID().uuidString + ".sqlite"
        FileManager.default.createFile(atPath: odd, contents: Data(), attributes: [.posixPermissions: 0o644])
        #expect(SQLiteStore.exposure(of: odd).map { $0.contains(#"run chmod 600 '"# + odd.replacingOccurrences(of: "'", with: #"'\''"#) + "' (") } == true,
                "\(SQLiteStore.exposure(of: odd) ?? "nil")")
    }

    /// A scope given twice is one scope, in the order first given; a listing's scopes are a list.
    @Test func aRepeatedScopeIsKeptOnce() {
        let issued = APIToken.issue(name: "ops", scopes: [.admin, .linksRead, .admin])
        #expect(issued.record.scopes == ["admin", "links:read"])
        #expect(APIToken.Listing(issued.record).scopes == ["admin", "links:read"])
        #expect(APIToken.Listing(issued.record).line.contains("[admin links:read]"))
    }

    /// A name names one active token: a second is refused until the first is revoked, and
    /// namesakes stored before names were unique are revoked by id only.
    @Test(arguments: Backend.available)
    func tokenNamesNameOneActiveToken(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        let first = APIToken.issue(name: "readme", scopes: [.linksRead])
        try await store.insert(first.record)
        do { try await store.insert(APIToken.issue(name: "readme", scopes: [.linksRead]).record); Issue.record("a second active readme") } catch {
            #expect(error.code == .duplicate && error.message.contains("an active token is already named \"readme\" (id \(first.record.id))"), "\(error)")
        }
        #expect(try await store.revokeToken("readme") == 1)
        let second = APIToken.issue(name: "readme", scopes: [.linksRead])
        try await store.insert(second.record)
        #expect(try await store.revokeToken("readme") == 1)
        #expect(try await store.token(id: second.record.id)?.revokedAt != nil)
        // Namesakes written before names were unique (straight into the table).
        let a = APIToken.issue(name: "old", scopes: [.linksRead]).record, b = APIToken.issue(name: "old", scopes: [.linksRead]).record
        for t in [a, b] {
            _ = try await store.db.run("INSERT INTO tokens (id, name, secret_hash, scopes, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)",
                                       [.text(t.id), .text(t.name), .text(t.secretHash), .text("links:read"), .int(0)])
        }
        do { _ = try await store.revokeToken("old"); Issue.record("revoked namesakes by name") } catch {
            #expect(error.code == .ambiguous && error.message.contains("2 active tokens are named \"old\""), "\(error)")
        }
        let stillA = try await store.token(id: a.id), stillB = try await store.token(id: b.id)
        #expect(stillA?.revokedAt == nil && stillB?.revokedAt == nil)
        #expect(try await store.revokeToken(a.id) == 1)
        #expect(try await store.revokeToken("old") == 1, "one namesake left: the name names it")
        // A name that is another token's id would make `revoke NAME` revoke that other token.
        do { try await store.insert(APIToken.issue(name: second.record.id, scopes: [.linksRead]).record); Issue.record("a name that is an id") } catch {
            #expect(error.code == .duplicate && error.message.contains("is another token's id"))
        }
    }

    @Test(arguments: Backend.available)
    func migrationsAreVersionedIdempotentAndGuardTheFuture(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        #expect(try await Migrations.apply(to: store.db) == [])
        let versions = try await store.db.read("SELECT version FROM schema_migrations ORDER BY version", []).compactMap { $0.first?.int }
        #expect(versions == Migrations.all.map(\.version))
        try await store.db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [.int(999), .text("future"), .int(0)])
        do {
            try await Migrations.apply(to: store.db)
            Issue.record("a newer schema was accepted")
        } catch {
            #expect(error.code == .schemaTooNew)
        }
    }

    @Test(arguments: Backend.available)
    func aFailedTransactionLeavesNothing(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        defer { Task { await store.close() } }
        try await store.insert(Self.link("keep2345", created: 1))
        do {
            try await store.db.transaction { tx throws(StoreError) in
                try await tx.run("INSERT INTO tokens (id, name, secret_hash, scopes, created_at) VALUES ('t1', 'n', 'h', 's', 0)", [])
                try await tx.run("INSERT INTO links (code, kind, parameters, created_at) VALUES ('keep2345', 'link', '{}', 0)", [])
            }
            Issue.record("the duplicate insert succeeded")
        } catch {
            #expect(error.code == .duplicate)
        }
        #expect(try await store.token(id: "t1") == nil)
        #expect(try await store.link(code: "keep2345")?.createdAt == Date(timeIntervalSince1970: 1))
    }

    @Test func databaseURLsParseAndHidePasswords() throws {
        #expect(try DatabaseLocation(parsing: "sqlite:data/x.sqlite") == .sqlite(path: "data/x.sqlite"))
        let pg = try DatabaseLocation(parsing: "postgres://u:p%40ss@db.local:6543/links?sslmode=disable")
        #expect(pg == .postgres(host: "db.local", port: 6543, user: "u", password: "p@ss", database: "links", tls: PostgresTLS(.disable)))
        #expect(pg.description == "postgres://u@db.local:6543/links")
        for bad in ["mysql://x", "sqlite:", "postgres:///db", "postgres://host/db"] {
            #expect(throws: StoreError.self) { try DatabaseLocation(parsing: bad) }
        }
        // A URL that cannot be used never shows its password in the error.
        for bad in ["postgres://user:PW_SEKRIT@host:abc/db", "postgres://user:PW_SEKRIT@/db", "postgres://user:PW_SEKRIT@[::1/db", "postgres://user:PW_SEKRIT@ho st/db"] {
            do { _ = try DatabaseLocation(parsing: bad); Issue.record("\(bad) parsed") } catch {
                #expect(!error.description.contains("PW_SEKRIT") && error.description.contains("postgres://user:***@"), "\(error)")
            }
        }
    }

    @Test func sqliteFileIsInWALModeWithDurableCommits() async throws {
        let path = Backend.temporaryPath("wal") + "/x.sqlite"
        let store = try await LinkStore.open(.sqlite(path: path))
        #expect(try await store.db.read("PRAGMA journal_mode", []).first?.first?.text == "wal")
        #expect(try await store.db.read("PRAGMA synchronous", []).first?.first?.int == 2)  // FULL
        await store.close()
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
