import SwitchyardCore
import Foundation

/// One row of `click_days`: a link's counted visits on one UTC day from one platform.
package struct ClickDay: Sendable, Hashable {
    /// The short code of the link visited.
    package var code: String
    /// Days since 1970-01-01, UTC.
    package var day: Int64
    /// The landing page's audience, `unknown` when not given, or `bot` for link previews,
    /// crawlers and prefetches (never counted as clicks).
    package var platform: VisitPlatform

    /// A row key for this link, UTC day number (see ``day(of:)``) and platform.
    package init(code: String, day: Int64, platform: VisitPlatform) {
        self.code = code
        self.day = day
        self.platform = platform
    }

    /// The UTC day number of a date.
    package static func day(of date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 86_400).rounded(.down)) }
}

/// A dashboard sign-in as stored: the token it was made with and its form token.
package struct AdminSession: Sendable, Equatable {
    /// The id of the API token the user signed in with; the session ends when it is revoked.
    package var tokenID: String
    /// The value every form of this session carries (compared in constant time).
    package var csrf: String
    /// When the user signed in.
    package var createdAt: Date
    /// When the session stops being accepted.
    package var expiresAt: Date

    /// A session record with these fields.
    package init(tokenID: String, csrf: String, createdAt: Date, expiresAt: Date) {
        self.tokenID = tokenID
        self.csrf = csrf
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

extension LinkStore {
    // MARK: Visits per day

    /// Adds to the day rows, creating them as needed.
    static func addDays(_ days: [ClickDay: Int64], in tx: any SQLExecutor) async throws(StoreError) {
        // In a stable order, so two transactions touching the same rows cannot deadlock.
        for (key, n) in days.sorted(by: { ($0.key.code, $0.key.day, $0.key.platform.rawValue) < ($1.key.code, $1.key.day, $1.key.platform.rawValue) }) {
            try await tx.run(
                "INSERT INTO click_days (code, day, platform, clicks) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT (code, day, platform) DO UPDATE SET clicks = click_days.clicks + excluded.clicks",
                [.text(key.code), .int(key.day), .text(key.platform.rawValue), .int(n)])
        }
    }

    /// A link's day rows from `firstDay` on, by day then platform.
    package func clickDays(code: String, from firstDay: Int64) async throws(StoreError) -> [(day: Int64, platform: VisitPlatform, clicks: Int64)] {
        try await db.read("SELECT \(ClickDayColumn.list) FROM click_days WHERE code = ? AND day >= ? ORDER BY day, platform",
                          [.text(code), .int(firstDay)])
            .map { SQLRow<ClickDayColumn>($0) }.map { (day: $0.int(.day) ?? 0, platform: VisitPlatform(stored: $0.text(.platform)), clicks: $0.int(.clicks) ?? 0) }
    }

    /// The columns of `click_days` a link's day rows are read from.
    enum ClickDayColumn: String, SQLColumns {
        case day, platform, clicks
    }

    /// A platform and its visits over every day (PostgreSQL sums BIGINT as NUMERIC: cast back).
    enum PlatformColumn: String, SQLColumns {
        case platform, total = "CAST(SUM(clicks) AS BIGINT) AS total"
    }

    /// A link's visits by platform over every day recorded, most first.
    package func clicksByPlatform(code: String) async throws(StoreError) -> [(platform: VisitPlatform, clicks: Int64)] {
        try await db.read(// PostgreSQL sums BIGINT as NUMERIC: cast back.
            "SELECT \(PlatformColumn.list) FROM click_days WHERE code = ? GROUP BY platform ORDER BY total DESC, platform",
                          [.text(code)])
            .map { SQLRow<PlatformColumn>($0) }.map { (platform: VisitPlatform(stored: $0.text(.platform)), clicks: $0.int(.total) ?? 0) }
    }

    // MARK: Search

    /// The newest links first; with `query`, those whose code, title, deep link, route or route
    /// parameters contain it (ignoring ASCII case); with `domains`, of those domains only (nil
    /// in it: the first domain; see ``LinkKey``).
    package func searchLinks(_ query: String, limit: Int, domains: [String?]? = nil) async throws(StoreError) -> [StoredLink] {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        let (domainFilter, domainValues) = domains.map(Self.domainCondition) ?? ("1 = 1", [])
        guard !trimmed.isEmpty else {
            return try await db.read("SELECT \(Self.columns) FROM links WHERE \(domainFilter) ORDER BY created_at DESC, code DESC LIMIT ?",
                                     domainValues + [.int(Int64(limit))]).map(Self.link)
        }
        // LIKE with its wildcards escaped; LOWER on both sides, as PostgreSQL's LIKE is case-sensitive.
        var pattern = "%"
        for c in trimmed.lowercased() {
            if c == "%" || c == "_" || c == "\\" { pattern.append("\\") }
            pattern.append(c)
        }
        pattern += "%"
        let columns = ["code", "title", "deep_link", "route", "parameters"]
        let condition = columns.map { "LOWER(COALESCE(\($0), '')) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ")
        return try await db.read("SELECT \(Self.columns) FROM links WHERE (\(condition)) AND \(domainFilter) ORDER BY created_at DESC, code DESC LIMIT ?",
                                 Array(repeating: SQLValue.text(pattern), count: columns.count) + domainValues + [.int(Int64(limit))]).map(Self.link)
    }

    // MARK: Dashboard sessions

    /// Stores a new sign-in under the hex SHA-256 of its cookie value, first deleting every session already expired.
    package func insertSession(idHash: String, _ session: AdminSession) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) in
                // Sign-ins clear out what has expired.
                try await tx.run("DELETE FROM admin_sessions WHERE expires_at <= ?", [.int(Self.millis(session.createdAt))])
                try await tx.run("INSERT INTO admin_sessions (id_hash, token_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
                    .text(idHash), .text(session.tokenID), .text(session.csrf), .int(Self.millis(session.createdAt)), .int(Self.millis(session.expiresAt)),
                ])
            }
        }
    }

    /// The session with this hash, expired or not.
    package func session(idHash: String) async throws(StoreError) -> AdminSession? {
        try await db.read("SELECT \(SessionColumn.list) FROM admin_sessions WHERE id_hash = ?", [.text(idHash)]).first.map(SQLRow<SessionColumn>.init).map {
            AdminSession(tokenID: $0.text(.tokenID) ?? "", csrf: $0.text(.csrf) ?? "", createdAt: Self.date($0.int(.createdAt) ?? 0), expiresAt: Self.date($0.int(.expiresAt) ?? 0))
        }
    }

    /// The columns of `admin_sessions` a session is read from.
    enum SessionColumn: String, SQLColumns {
        case tokenID = "token_id", csrf, createdAt = "created_at", expiresAt = "expires_at"
    }

    /// Deletes the session with this hash (signing out); nothing happens when there is none.
    package func deleteSession(idHash: String) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.run("DELETE FROM admin_sessions WHERE id_hash = ?", [.text(idHash)])
        }
    }
}
