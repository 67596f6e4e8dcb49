import Foundation
import ServiceLifecycle
import SwitchyardCore

/// What a stored link is, as its `kind` column and the API say it.
package enum LinkKind: String, Sendable, CaseIterable {
    /// Made through the links API (or imported from Switchyard's own export); its page is `/i/{code}`.
    case link
    /// Made through the Plur-compatible invite API.
    case invite
    /// Imported from Firebase Dynamic Links: its page keeps the short link's path, `/{code}`.
    case fdl
    /// Imported from another shortener (Shlink, Kutt, YOURLS): its page keeps the short link's
    /// path, `/{code}`, on its domain's public URL.
    case imported

    /// Whether the link is served at the path it had before (`/{code}`), not `/i/{code}`.
    package var keepsItsPath: Bool { self == .fdl || self == .imported }
}

/// A stored invite or short link.
package struct StoredLink: Sendable, Equatable {
    package var kind: LinkKind = .link
    /// The short code, unique among links; the link's page is `/i/{code}`.
    package var code: String
    /// The custom-scheme URL the link stands for, if given directly.
    package var deepLink: String?
    /// Or a route of the configuration and its parameters; the deep link is built from them.
    package var route: String?
    /// The route's parameters as name–value pairs, in order (empty with `deepLink`).
    package var parameters: [(String, String)] = []
    /// Where desktop visitors go instead of the app; nil: the configured default.
    package var webURL: String?
    /// The App Store page for iOS visitors without the app; nil: the configured app's page.
    package var appStoreURL: String?
    /// The Play Store page for Android visitors without the app; nil: the configured app's page.
    package var playStoreURL: String?
    /// The preview title; nil: `landing.title`.
    package var title: String?
    /// The preview description; nil: `landing.description`.
    package var description: String?
    /// The preview image's URL; nil: `landing.image`.
    package var imageURL: String?
    /// When the link stops opening; nil: never.
    package var expiresAt: Date?
    /// How many clicks the link allows before it stops opening; nil: no limit.
    package var maxUses: Int64?
    /// When the link was created; with the code, the order of listings.
    package var createdAt: Date
    /// Clicks counted so far (previews and bots excluded).
    package var clicks: Int64 = 0
    /// The id of the token that created it.
    package var createdBy: String?
    /// When it was last edited; nil until the first edit.
    package var updatedAt: Date?
    /// The campaign its visits count under when the visited URL names none.
    package var campaign = LinkCampaign()
    /// The operator's labels, to find and report links by (lowercase, in the order given).
    package var tags: [String] = []
    /// Where the link sends visitors once it has expired or been used up (a 302); nil: the
    /// domain's `landing.expiredURL`, else a 410 page with the way on the link had.
    package var expiredURL: String?
    /// The scrypt hash of the password its page asks for (``LinkPassword``); nil: none. Never
    /// in an answer, a list, an export or an event.
    package var passwordHash: String?

    /// A `link` with this code and creation time, no target yet, and nothing else set.
    package init(code: String, createdAt: Date) {
        self.code = code
        self.createdAt = createdAt
    }

    /// The value of the first route parameter with this name, or nil.
    package func parameter(_ name: String) -> String? { parameters.first(where: { $0.0 == name })?.1 }

    /// Equal when every stored field is, parameters compared in order.
    package static func == (a: StoredLink, b: StoredLink) -> Bool {
        a.kind == b.kind && a.code == b.code && a.deepLink == b.deepLink && a.route == b.route
            && a.parameters.elementsEqual(b.parameters, by: { $0 == $1 }) && a.webURL == b.webURL
            && a.appStoreURL == b.appStoreURL && a.playStoreURL == b.playStoreURL && a.title == b.title
            && a.description == b.description && a.imageURL == b.imageURL && a.expiresAt == b.expiresAt
            && a.maxUses == b.maxUses && a.createdAt == b.createdAt && a.clicks == b.clicks && a.createdBy == b.createdBy && a.updatedAt == b.updatedAt
            && a.campaign == b.campaign && a.tags == b.tags && a.expiredURL == b.expiredURL && a.passwordHash == b.passwordHash
    }
}

/// A stored API token: only the hash of its secret is kept.
public struct StoredToken: Sendable, Equatable {
    /// The 12-character id, the part of the token between `sy_` and the secret.
    package var id: String
    /// A label chosen when the token was issued; `revokeToken` accepts it in place of the id.
    package var name: String
    /// Hex SHA-256 of the secret part.
    package var secretHash: String
    /// The scopes granted, as their raw values (`links:read`, `links:write`, `transactions`, `admin`).
    package var scopes: [String]
    /// When the token was issued.
    package var createdAt: Date
    /// When the token was revoked; nil while it is valid.
    package var revokedAt: Date?

    /// A token record with these fields.
    package init(id: String, name: String, secretHash: String, scopes: [String], createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.secretHash = secretHash
        self.scopes = scopes
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// What a click did.
package enum ClickOutcome: Sendable, Equatable {
    case counted(clicks: Int64)
    /// The link reached its maximum uses.
    case exhausted
    case missing
}

/// The link service's storage: links, clicks and tokens, on any `SQLDatabase`.
///
/// ```swift
/// let store = try await LinkStore.open(.sqlite(path: ".switchyard/switchyard.sqlite"))
/// try await store.insert(link)            // StoreError(.duplicate) when the code exists
/// let page = try await store.links(after: nil, limit: 50)
/// ```
public struct LinkStore: Sendable {
    package let db: any SQLDatabase
    /// The outcome of this store's most recent write (every write method records it).
    package let health: StorageHealth
    /// Where link changes and clicks write their webhook events (nil: no endpoints configured).
    package var outbox: WebhookOutbox?
    /// Secrets of `service_keys` this store has read, by name (they never change once made).
    let sharedSecrets = Locked<[String: String]>([:])

    package init(db: any SQLDatabase, health: StorageHealth = StorageHealth()) {
        self.db = db
        self.health = health
    }

    /// Opens the database, applying pending migrations (see ``ConnectionPoolRunner`` for
    /// `pool`: the default runs PostgreSQL's pool inside the store).
    public static func open(_ location: DatabaseLocation, pool: ConnectionPoolRunner = .store) async throws(StoreError) -> LinkStore {
        LinkStore(db: try await location.open(pool: pool))
    }

    /// What the caller's ServiceGroup must run for this store to work: PostgreSQL's connection
    /// pool when opened with `pool: .serviceGroup`, nothing otherwise.
    package var services: [any Service] { (db as? PostgresStore)?.services ?? [] }

    /// Checks the connection and applies pending migrations (a no-op for a store that `open`
    /// already migrated); for a pool run by the caller's ServiceGroup, call it once that runs.
    package func prepare() async throws(StoreError) {
        if let postgres = db as? PostgresStore { try await postgres.checkReachable() }
        _ = try await Migrations.apply(to: db)
    }

    /// Why other users may read the database's file (SQLite, a mode that lets them in), for the
    /// service to warn of when it starts; nil otherwise.
    package var exposure: String? { (db as? SQLiteStore)?.exposure }

    /// Whether changes to links are announced to every node (PostgreSQL); SQLite has one node.
    package var announcesChanges: Bool { db is PostgresStore }

    /// Until cancelled, on PostgreSQL: the code of every link that changes what it serves
    /// (created, edited, deleted, used up), on any node, handed to `changed` once its change
    /// commits; `listening` says whether announcements arrive now. Returns at once on SQLite.
    package func listenForChanges(listening: @escaping @Sendable (Bool) -> Void, changed: @escaping @Sendable (String) -> Void) async {
        guard let postgres = db as? PostgresStore else { return }
        await postgres.listen("switchyard_links", listening: listening, received: changed)
    }

    /// The database in use: `sqlite` or `postgres`.
    package var kind: String { db.kind }

    /// Closes the database's connections; the store is not used afterwards.
    public func close() async { await db.close() }

    // MARK: Links

    /// The columns of `links`, in the order every query selects them.
    enum LinkColumn: String, SQLColumns {
        case code, kind, deepLink = "deep_link", route, parameters, webURL = "web_url", appStoreURL = "app_store_url"
        case playStoreURL = "play_store_url", title, description, imageURL = "image_url", expiresAt = "expires_at"
        case maxUses = "max_uses", createdAt = "created_at", clicks, createdBy = "created_by", updatedAt = "updated_at"
        case utm, tags, expiredURL = "expired_url", passwordHash = "password_hash"
    }

    static let columns = LinkColumn.list

    /// The statement that inserts a link, and its values (``insertBinds(_:)``).
    static let insertSQL = "INSERT INTO links (\(columns)) VALUES (\(LinkColumn.placeholders))"

    /// A link's values in ``columns`` order.
    static func insertBinds(_ link: StoredLink) -> [SQLValue] {
        [
            .text(link.code), .text(link.kind.rawValue), SQLValue(link.deepLink), SQLValue(link.route), .text(parametersText(link)),
            SQLValue(link.webURL), SQLValue(link.appStoreURL), SQLValue(link.playStoreURL), SQLValue(link.title),
            SQLValue(link.description), SQLValue(link.imageURL), SQLValue(link.expiresAt.map(Self.millis)),
            SQLValue(link.maxUses), .int(Self.millis(link.createdAt)), .int(link.clicks), SQLValue(link.createdBy),
            SQLValue(link.updatedAt.map(Self.millis)), SQLValue(campaignText(link)), SQLValue(tagsText(link)), SQLValue(link.expiredURL),
            SQLValue(link.passwordHash),
        ]
    }

    /// The statement that replaces what an edit may change, returning the row; its values are
    /// ``updateBinds(_:updatedAt:)``.
    static let updateSQL = "UPDATE links SET deep_link = ?, route = ?, parameters = ?, web_url = ?, app_store_url = ?, play_store_url = ?, "
        + "title = ?, description = ?, image_url = ?, expires_at = ?, max_uses = ?, updated_at = ?, utm = ?, tags = ?, expired_url = ?, password_hash = ? WHERE code = ? RETURNING \(columns)"

    static func updateBinds(_ link: StoredLink, updatedAt: Date?) -> [SQLValue] {
        [
            SQLValue(link.deepLink), SQLValue(link.route), .text(parametersText(link)), SQLValue(link.webURL), SQLValue(link.appStoreURL),
            SQLValue(link.playStoreURL), SQLValue(link.title), SQLValue(link.description), SQLValue(link.imageURL),
            SQLValue(link.expiresAt.map(Self.millis)), SQLValue(link.maxUses), SQLValue(updatedAt.map(Self.millis)),
            SQLValue(campaignText(link)), SQLValue(tagsText(link)), SQLValue(link.expiredURL), SQLValue(link.passwordHash), .text(link.code),
        ]
    }

    static func parametersText(_ link: StoredLink) -> String { JSONWriter.compact(.object(link.parameters.map { ($0.0, .string($0.1)) })) }
    /// The campaign as stored: a JSON object, or NULL when it has no value.
    static func campaignText(_ link: StoredLink) -> String? { link.campaign.isEmpty ? nil : JSONWriter.compact(link.campaign.json) }
    /// The tags as stored: a JSON array, or NULL when there are none.
    static func tagsText(_ link: StoredLink) -> String? { link.tags.isEmpty ? nil : JSONWriter.compact(.array(link.tags.map { .string($0) })) }

    /// Inserts a new link; `.duplicate` when its code is taken.
    package func insert(_ link: StoredLink) async throws(StoreError) {
        let binds = Self.insertBinds(link)
        let sql = Self.insertSQL
        try await write { () async throws(StoreError) in
            try await changing("link.created") { tx throws(StoreError) in
                try await tx.run(sql, binds)
                return [("link.created", link)]
            }
        }
    }

    /// Runs a change in one transaction, with the events it returns (each with the link it
    /// reports) when an endpoint wants `event`.
    private func changing<T: Sendable>(_ event: String, _ body: @escaping @Sendable (any SQLExecutor) async throws(StoreError) -> T) async throws(StoreError) -> T
    where T: Collection, T.Element == (String, StoredLink) {
        let outbox = self.outbox.flatMap { $0.wants(event) ? $0 : nil }
        let now = Date()
        return try await db.transaction { tx throws(StoreError) in
            let events = try await body(tx)
            if let outbox {
                for (name, link) in events { try await outbox.enqueue(name, data: outbox.render(link), at: now, in: tx) }
            }
            return events
        }
    }

    /// Replaces what an edit may change — target, fallbacks, texts, expiry, use limit — and sets
    /// `updatedAt`; the code, kind, creation, creator and click count stay. The link as stored
    /// after the edit, or nil when there is no link with that code.
    package func update(_ link: StoredLink) async throws(StoreError) -> StoredLink? {
        let sql = Self.updateSQL
        let binds = Self.updateBinds(link, updatedAt: link.updatedAt)
        let changed = try await write { () async throws(StoreError) in
            try await changing("link.updated") { tx throws(StoreError) in
                try await tx.run(sql, binds).first.map { [("link.updated", Self.link($0))] } ?? []
            }
        }
        return changed.first?.1
    }

    /// The link with this code, or nil when there is none.
    package func link(code: String) async throws(StoreError) -> StoredLink? {
        try await db.read("SELECT \(Self.columns) FROM links WHERE code = ?", [.text(code)]).first.map(Self.link)
    }

    /// Links in creation order, after the (created, code) cursor of the previous page; with
    /// `tag`, only those carrying it; with `domains`, only those of the domains named (nil in
    /// it: the first domain; see ``LinkKey``).
    package func links(after cursor: (createdAt: Int64, code: String)?, limit: Int, tag: String? = nil,
                       domains: [String?]? = nil) async throws(StoreError) -> [StoredLink] {
        var conditions: [String] = [], binds: [SQLValue] = []
        if let cursor {
            conditions.append("(created_at > ? OR (created_at = ? AND code > ?))")
            binds += [.int(cursor.createdAt), .int(cursor.createdAt), .text(cursor.code)]
        }
        if let tag {
            conditions.append(Self.tagCondition)
            binds.append(Self.tagPattern(tag))
        }
        if let domains {
            let (condition, values) = Self.domainCondition(domains)
            conditions.append(condition)
            binds += values
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try await db.read("SELECT \(Self.columns) FROM links\(filter) ORDER BY created_at, code LIMIT ?", binds + [.int(Int64(limit))]).map(Self.link)
    }

    /// The condition on a table's `code` that a link is of one of `domains` (nil: the first
    /// domain, whose keys hold no `/`), with its values. Domain names hold no LIKE wildcard.
    static func domainCondition(_ domains: [String?]) -> (String, [SQLValue]) {
        guard !domains.isEmpty else { return ("1 = 0", []) }
        var parts: [String] = [], values: [SQLValue] = []
        for domain in domains {
            if let domain {
                parts.append("code LIKE ?")
                values.append(.text(domain + "/%"))
            } else {
                parts.append("code NOT LIKE '%/%'")
            }
        }
        return ("(" + parts.joined(separator: " OR ") + ")", values)
    }

    /// The condition on `links` that a row carries a tag, bound to ``tagPattern(_:)``.
    static let tagCondition = "tags LIKE ? ESCAPE '\\'"

    /// What ``tagCondition`` compares with: the stored array holds the tag quoted, and LIKE's own
    /// characters are escaped (`_` is a tag character, not a wildcard).
    static func tagPattern(_ tag: String) -> SQLValue {
        let quoted = JSONWriter.compact(.string(tag))
        return .text("%" + quoted.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%")
    }

    /// Deletes a link; false when there was none.
    package func delete(code: String) async throws(StoreError) -> Bool {
        !(try await write { () async throws(StoreError) in
            try await changing("link.deleted") { tx throws(StoreError) in
                try await tx.run("DELETE FROM click_days WHERE code = ?", [.text(code)])
                try await tx.run("DELETE FROM app_open_days WHERE code = ?", [.text(code)])
                try await tx.run("DELETE FROM visits WHERE code = ?", [.text(code)])
                try await tx.run("DELETE FROM visit_rollups WHERE code = ?", [.text(code)])
                // Its claims go with it: a code used again later is another link.
                // Claims not yet redeemed go with the link; redeemed ones stay until they are
                // pruned, so a token used before the link was deleted (and restored by an import
                // with its creation time) is not redeemable again.
                try await tx.run("DELETE FROM deferred_claims WHERE code = ? AND claimed_at IS NULL", [.text(code)])
                return try await tx.run("DELETE FROM links WHERE code = ? RETURNING \(Self.columns)", [.text(code)]).map { ("link.deleted", Self.link($0)) }
            }
        }.isEmpty)
    }

    /// Counts one use now, atomically refusing it once `max_uses` is reached, with its day row
    /// (`click_days`) in the same transaction. With webhooks, the use writes `link.clicked` (and
    /// `link.exhausted` when it was the last one) in its transaction too.
    /// - Parameters:
    ///   - platform: the visitor's (nil: `unknown`).
    ///   - visit: the visit's record, written in the same transaction (nil: not recorded).
    /// `clickEvent: false` writes no `link.clicked` event (a client past its budget); the
    /// `link.exhausted` event of the last use is written whatever it says.
    package func click(code: String, platform: VisitPlatform? = nil, at date: Date = Date(), visit: Visit? = nil, clickEvent: Bool = true) async throws(StoreError) -> ClickOutcome {
        let sql = "UPDATE links SET clicks = clicks + 1 WHERE code = ? AND (max_uses IS NULL OR clicks < max_uses) RETURNING \(Self.columns)"
        let outbox = self.outbox.flatMap { $0.wants("link.clicked") || $0.wants("link.exhausted") ? $0 : nil }
        let day = ClickDay(code: code, day: ClickDay.day(of: date), platform: platform ?? .unknown)
        let counted = try await write { () async throws(StoreError) -> StoredLink? in
            try await db.transaction { tx throws(StoreError) -> StoredLink? in
                guard let link = try await tx.run(sql, [.text(code)]).first.map(Self.link) else { return nil }
                try await Self.addDays([day: 1], in: tx)
                if let visit { try await Self.addVisits([visit: 1], in: tx) }
                if let outbox {
                    if clickEvent { try await outbox.enqueue("link.clicked", data: outbox.clickData(code: code, kind: link.kind, platform: platform), at: date, in: tx) }
                    if let max = link.maxUses, link.clicks >= max { try await outbox.enqueue("link.exhausted", data: outbox.render(link), at: date, in: tx) }
                }
                return link
            }
        }
        if let counted { return .counted(clicks: counted.clicks) }
        return try await link(code: code) == nil ? .missing : .exhausted
    }

    /// A click counted in memory, kept for its `link.clicked` event.
    package struct Click: Sendable, Equatable {
        /// The code of the link clicked.
        package var code: String
        /// The visitor's platform, or nil when not known.
        package var platform: VisitPlatform?
        /// When the click happened; the time its event reports.
        package var at: Date

        /// A click of `code` from `platform` at `at`.
        package init(code: String, platform: VisitPlatform?, at: Date) {
            self.code = code
            self.platform = platform
            self.at = at
        }
    }

    /// Adds batched click counts (links without a use limit), their day rows and visit records
    /// in one transaction, with the `link.clicked` events of `clicks`; what belongs to links that
    /// no longer exist is dropped.
    package func addClicks(_ counts: [String: Int64], days: [ClickDay: Int64] = [:], clicks: [Click] = [],
                          visits: [Visit: Int64] = [:]) async throws(StoreError) {
        guard !counts.isEmpty || !days.isEmpty || !visits.isEmpty else { return }
        let sorted = counts.sorted { $0.key < $1.key }
        let outbox = clicks.isEmpty ? nil : self.outbox
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) in
                var kinds: [String: LinkKind] = [:]  // code → kind, for the links that still exist
                for (code, n) in sorted {
                    if let row = try await tx.run("UPDATE links SET clicks = clicks + ? WHERE code = ? RETURNING kind", [.int(n), .text(code)]).first {
                        kinds[code] = row.first?.text.flatMap(LinkKind.init(rawValue:)) ?? .link
                    }
                }
                // Links with only preview visits (a bot row, no click).
                for code in Set(days.keys.map(\.code)).union(visits.keys.map(\.code)).subtracting(counts.keys).sorted() {
                    if let row = try await tx.run("SELECT kind FROM links WHERE code = ?", [.text(code)]).first {
                        kinds[code] = row.first?.text.flatMap(LinkKind.init(rawValue:)) ?? .link
                    }
                }
                let existing = Set(kinds.keys)
                try await Self.addDays(days.filter { existing.contains($0.key.code) }, in: tx)
                try await Self.addVisits(visits.filter { existing.contains($0.key.code) }, in: tx)
                guard let outbox else { return }
                for click in clicks {
                    guard let kind = kinds[click.code] else { continue }
                    try await outbox.enqueue("link.clicked", data: outbox.clickData(code: click.code, kind: kind, platform: click.platform), at: click.at, in: tx)
                }
            }
        }
    }

    /// A link from a row of `links` selected as ``columns``. A kind this build does not know (a
    /// newer build's, during an upgrade) is read as a plain link.
    static func link(_ values: [SQLValue]) -> StoredLink {
        let row = SQLRow<LinkColumn>(values)
        var link = StoredLink(code: row.text(.code) ?? "", createdAt: date(row.int(.createdAt) ?? 0))
        link.kind = row.text(.kind).flatMap(LinkKind.init(rawValue:)) ?? .link
        link.deepLink = row.text(.deepLink)
        link.route = row.text(.route)
        if let text = row.text(.parameters), case .object(let pairs)? = try? JSONParser.parse(text) {
            link.parameters = pairs.compactMap { k, v in v.stringValue.map { (k, $0) } }
        }
        link.webURL = row.text(.webURL)
        link.appStoreURL = row.text(.appStoreURL)
        link.playStoreURL = row.text(.playStoreURL)
        link.title = row.text(.title)
        link.description = row.text(.description)
        link.imageURL = row.text(.imageURL)
        link.expiresAt = row.int(.expiresAt).map(date)
        link.maxUses = row.int(.maxUses)
        link.clicks = row.int(.clicks) ?? 0
        link.createdBy = row.text(.createdBy)
        link.updatedAt = row.int(.updatedAt).map(date)
        link.campaign = LinkCampaign(json: row.text(.utm).flatMap { try? JSONParser.parse($0) })
        if let text = row.text(.tags), case .array(let items)? = try? JSONParser.parse(text) { link.tags = items.compactMap(\.stringValue) }
        link.expiredURL = row.text(.expiredURL)
        link.passwordHash = row.text(.passwordHash)
        return link
    }

    // MARK: Verification transactions

    /// A transaction id issued for a callback round trip (the ThereAndBack design's third party).
    package struct Transaction: Sendable, Equatable {
        /// The transaction's random id (43 characters, 256 bits), used once to verify it.
        package var id: String
        /// What the transaction is for, as its creator said (up to 200 characters); nil when not given.
        package var purpose: String?
        /// The id of the API token that created the transaction.
        package var createdBy: String?
        /// When the transaction was issued.
        package var createdAt: Date
        /// When the transaction can no longer be verified (issue time plus its `ttl`, 300 s by default).
        package var expiresAt: Date
        /// When it was verified; nil until then.
        package var verifiedAt: Date?

        /// A transaction record with these fields.
        package init(id: String, purpose: String?, createdBy: String?, createdAt: Date, expiresAt: Date, verifiedAt: Date? = nil) {
            self.id = id
            self.purpose = purpose
            self.createdBy = createdBy
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.verifiedAt = verifiedAt
        }
    }

    /// What verifying a transaction found: verified now (with the record), unknown, expired, or verified before.
    package enum VerifyOutcome: Sendable, Equatable {
        case verified(Transaction)
        case unknown
        case expired
        case alreadyVerified
    }

    /// Stores a newly issued transaction.
    package func insert(_ t: Transaction) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.run("INSERT INTO transactions (\(TransactionColumn.list)) VALUES (\(TransactionColumn.placeholders))", [
                .text(t.id), SQLValue(t.purpose), SQLValue(t.createdBy), .int(Self.millis(t.createdAt)), .int(Self.millis(t.expiresAt)),
                SQLValue(t.verifiedAt.map(Self.millis)),
            ])
        }
    }

    /// Marks a transaction verified, once: atomically refused when unknown, expired or used.
    package func verifyTransaction(id: String, at now: Date) async throws(StoreError) -> VerifyOutcome {
        let rows = try await write { () async throws(StoreError) in
            try await db.run(
                "UPDATE transactions SET verified_at = ? WHERE id = ? AND verified_at IS NULL AND expires_at > ? RETURNING \(TransactionColumn.list)",
                [.int(Self.millis(now)), .text(id), .int(Self.millis(now))])
        }
        if let row = rows.first { return .verified(Self.transaction(row)) }
        guard let row = try await db.run("SELECT \(TransactionColumn.list) FROM transactions WHERE id = ?", [.text(id)]).first else {
            return .unknown
        }
        let t = Self.transaction(row)
        return t.verifiedAt != nil ? .alreadyVerified : .expired
    }

    /// The columns of `transactions`, in the order every query selects them.
    enum TransactionColumn: String, SQLColumns {
        case id, purpose, createdBy = "created_by", createdAt = "created_at", expiresAt = "expires_at", verifiedAt = "verified_at"
    }

    static func transaction(_ values: [SQLValue]) -> Transaction {
        let row = SQLRow<TransactionColumn>(values)
        return Transaction(id: row.text(.id) ?? "", purpose: row.text(.purpose), createdBy: row.text(.createdBy), createdAt: date(row.int(.createdAt) ?? 0),
                           expiresAt: date(row.int(.expiresAt) ?? 0), verifiedAt: row.int(.verifiedAt).map(date))
    }

    // MARK: Tokens

    /// Stores a newly issued token record; `.duplicate` when its id exists, or when an active
    /// token already has its name (names say which token to revoke, so each names one).
    public func insert(_ token: StoredToken) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) in
                if token.revokedAt == nil,
                   let other = try await tx.run("SELECT id FROM tokens WHERE name = ? AND revoked_at IS NULL", [.text(token.name)]).first?.first?.text {
                    throw StoreError(.duplicate, "an active token is already named \(JSONWriter.quote(token.name)) (id \(other)); choose another name, or revoke that one first")
                }
                // `token revoke` takes an id before a name: a name that is another token's id
                // would revoke that token instead.
                if !(try await tx.run("SELECT id FROM tokens WHERE id = ?", [.text(token.name)]).isEmpty) {
                    throw StoreError(.duplicate, "\(JSONWriter.quote(token.name)) is another token's id; choose another name")
                }
                _ = try await tx.run("INSERT INTO tokens (\(TokenColumn.list)) VALUES (\(TokenColumn.placeholders))", [
                    .text(token.id), .text(token.name), .text(token.secretHash), .text(token.scopes.joined(separator: " ")),
                    .int(Self.millis(token.createdAt)), SQLValue(token.revokedAt.map(Self.millis)),
                ])
            }
        }
    }

    /// The token with this id, revoked or not, or nil.
    package func token(id: String) async throws(StoreError) -> StoredToken? {
        try await db.read("SELECT \(TokenColumn.list) FROM tokens WHERE id = ?", [.text(id)]).first.map(Self.token)
    }

    /// Every token, revoked ones included, oldest first.
    package func tokens() async throws(StoreError) -> [StoredToken] {
        try await db.read("SELECT \(TokenColumn.list) FROM tokens ORDER BY created_at, id", []).map(Self.token)
    }

    /// Revokes the active token with id `idOrName`, or else the one active token with that
    /// name; returns how many were revoked (0 or 1). When several active tokens share the name,
    /// none is revoked: `.ambiguous`, naming their ids.
    package func revokeToken(_ idOrName: String, at now: Date = Date()) async throws(StoreError) -> Int {
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) -> Int in
                let byID = try await tx.run("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING id",
                                            [.int(Self.millis(now)), .text(idOrName)])
                if !byID.isEmpty { return byID.count }
                let named = try await tx.run("SELECT id FROM tokens WHERE name = ? AND revoked_at IS NULL ORDER BY id", [.text(idOrName)]).compactMap { $0.first?.text }
                guard named.count <= 1 else {
                    throw StoreError(.ambiguous, "\(named.count) active tokens are named \(JSONWriter.quote(idOrName)) (ids \(named.joined(separator: ", "))); revoke one by its id")
                }
                guard let id = named.first else { return 0 }
                return try await tx.run("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING id", [.int(Self.millis(now)), .text(id)]).count
            }
        }
    }

    /// The columns of `tokens`, in the order every query selects them.
    enum TokenColumn: String, SQLColumns {
        case id, name, secretHash = "secret_hash", scopes, createdAt = "created_at", revokedAt = "revoked_at"
    }

    static func token(_ values: [SQLValue]) -> StoredToken {
        let row = SQLRow<TokenColumn>(values)
        return StoredToken(id: row.text(.id) ?? "", name: row.text(.name) ?? "", secretHash: row.text(.secretHash) ?? "",
                           scopes: (row.text(.scopes) ?? "").split(separator: " ").map(String.init),
                           createdAt: date(row.int(.createdAt) ?? 0), revokedAt: row.int(.revokedAt).map(date))
    }

    // MARK: Health

    /// Writes one row (`health_probes`, id 1: the time) and commits it: the health check's way
    /// of asking whether a write gets through now, recorded like any other write.
    package func probeWrite(at now: Date = Date()) async throws(StoreError) {
        try await write(source: "probe") { () async throws(StoreError) in
            try await db.run("INSERT INTO health_probes (id, probed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at",
                             [.int(Self.millis(now))])
        }
    }

    /// Runs one write and records its outcome in `health`. A duplicate key is a committed
    /// answer from the database, not a failure to write.
    @discardableResult
    func write<T>(source: String = "write", _ body: () async throws(StoreError) -> T) async throws(StoreError) -> T {
        do {
            let result = try await body()
            health.record(failure: nil, source: source)
            return result
        } catch {
            health.record(failure: error.code == .duplicate ? nil : error.message, source: source)
            throw error
        }
    }

    package static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    package static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
