import Foundation
import SwitchyardCore

extension LinkStore {
    /// What redeeming a claim token came to.
    package enum ClaimOutcome: Sendable, Equatable {
        case claimed(DeferredClaim)
        /// No such token (never issued, or gone a week after it expired).
        case unknown
        /// Redeemed before.
        case used
        /// Past its lifetime.
        case expired
        /// The link it was issued for has expired since (a deleted link's claims are deleted
        /// with it, and answer as unknown).
        case linkGone
    }

    /// Stores a claim token's hash with what it stands for (and, with probabilistic matching,
    /// the visit's match key).
    package func insertClaim(tokenHash: String, _ claim: DeferredClaim, at date: Date, expiresAt: Date, matchKey: String? = nil) async throws(StoreError) {
        let parameters = Self.parametersText(claim)
        try await write { () async throws(StoreError) in
            try await db.run(
                "INSERT INTO deferred_claims (token_hash, code, deep_link, route, parameters, platform, created_at, expires_at, match_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(tokenHash), SQLValue(claim.code), SQLValue(claim.deepLink), SQLValue(claim.route), .text(parameters), .text(claim.platform.rawValue),
                 .int(Self.millis(date)), .int(Self.millis(expiresAt)), SQLValue(matchKey)])
        }
    }

    /// Probabilistic matching: redeems the most recent unredeemed, unexpired claim with this
    /// match key made since `since`; nil when there is none.
    package func redeemMatch(matchKey: String, since: Date, at date: Date) async throws(StoreError) -> DeferredClaim? {
        let outbox = self.outbox.flatMap { $0.wants("deferred.claimed") ? $0 : nil }
        return try await write { () async throws(StoreError) -> DeferredClaim? in
            try await db.transaction { tx throws(StoreError) -> DeferredClaim? in
                guard let hash = try await tx.run(
                    "SELECT token_hash FROM deferred_claims WHERE match_key = ? AND claimed_at IS NULL AND expires_at > ? AND created_at >= ? "
                        + "ORDER BY created_at DESC, token_hash LIMIT 1",
                    [.text(matchKey), .int(Self.millis(date)), .int(Self.millis(since))]).first?.first?.text else { return nil }
                guard let claim = try await tx.run(
                    "UPDATE deferred_claims SET claimed_at = ?, match_key = NULL WHERE token_hash = ? AND claimed_at IS NULL "
                        + "RETURNING " + ClaimColumn.list,
                    [.int(Self.millis(date)), .text(hash)]).first.map(Self.claim) else { return nil }
                try await Self.countAppOpen(claim, at: date, in: tx)
                if let outbox { try await outbox.enqueue("deferred.claimed", data: Self.json(claim), at: date, in: tx) }
                return claim
            }
        }
    }

    /// Redeems a claim token once, atomically; with webhooks, `deferred.claimed` is written in
    /// the same transaction.
    package func redeemClaim(tokenHash: String, at date: Date) async throws(StoreError) -> ClaimOutcome {
        let outbox = self.outbox.flatMap { $0.wants("deferred.claimed") ? $0 : nil }
        let claimed = try await write { () async throws(StoreError) -> DeferredClaim? in
            try await db.transaction { tx throws(StoreError) -> DeferredClaim? in
                guard let claim = try await tx.run(
                    "UPDATE deferred_claims SET claimed_at = ?, match_key = NULL WHERE token_hash = ? AND claimed_at IS NULL AND expires_at > ? "
                        + Self.linkAlive + " RETURNING " + ClaimColumn.list,
                    [.int(Self.millis(date)), .text(tokenHash), .int(Self.millis(date)), .int(Self.millis(date))]).first.map(Self.claim) else { return nil }
                try await Self.countAppOpen(claim, at: date, in: tx)
                if let outbox { try await outbox.enqueue("deferred.claimed", data: Self.json(claim), at: date, in: tx) }
                return claim
            }
        }
        if let claimed { return .claimed(claimed) }
        guard let values = try await db.run("SELECT \(ClaimStateColumn.list) FROM deferred_claims WHERE token_hash = ?", [.text(tokenHash)]).first else { return .unknown }
        let row = SQLRow<ClaimStateColumn>(values)
        if row.int(.claimedAt) != nil { return .used }
        if let expires = row.int(.expiresAt), expires <= Self.millis(date) { return .expired }
        return .linkGone
    }

    /// The secret that signs claim tokens for every node on this database: made by the first
    /// node that asks, read by the others.
    package func claimSigningSecret(at date: Date) async throws(StoreError) -> String {
        try await sharedSecret("claim-signing", at: date)
    }

    /// The claim-signing secret a node made in the database, if one ever did (nothing is made):
    /// a configuration that names its own keys still verifies the tokens it signed.
    package func existingClaimSigningSecret() async throws(StoreError) -> String? {
        try await db.read("SELECT secret FROM service_keys WHERE name = ?", [.text("claim-signing")]).first?.first?.text
    }

    /// The secret `name` of `service_keys`, which every node on this database shares: made by
    /// the first node that asks (32 random bytes), read by the others.
    func sharedSecret(_ name: String, at date: Date) async throws(StoreError) -> String {
        try await write { () async throws(StoreError) in
            try await db.run("INSERT INTO service_keys (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                             [.text(name), .text(Base64URL.random(bytes: 32)), .int(Self.millis(date))])
        }
        guard let secret = try await db.read("SELECT secret FROM service_keys WHERE name = ?", [.text(name)]).first?.first?.text else {
            throw StoreError(.failed, "the shared secret \(name) was written but cannot be read back")
        }
        return secret
    }

    /// Redeems a signed claim token once: its hash is recorded with what it stood for (unique
    /// across nodes), with `deferred.claimed` in the same transaction. False when it was redeemed before.
    package func redeemSignedClaim(tokenHash: String, _ claim: DeferredClaim, expiresAt: Date, at date: Date) async throws(StoreError) -> Bool {
        let outbox = self.outbox.flatMap { $0.wants("deferred.claimed") ? $0 : nil }
        let parameters = Self.parametersText(claim)
        return try await write { () async throws(StoreError) -> Bool in
            try await db.transaction { tx throws(StoreError) -> Bool in
                let inserted = try await tx.run(
                    "INSERT INTO deferred_claims (token_hash, code, deep_link, route, parameters, platform, created_at, expires_at, claimed_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token_hash) DO NOTHING RETURNING token_hash",
                    [.text(tokenHash), SQLValue(claim.code), SQLValue(claim.deepLink), SQLValue(claim.route), .text(parameters), .text(claim.platform.rawValue),
                     .int(Self.millis(date)), .int(Self.millis(expiresAt)), .int(Self.millis(date))])
                guard !inserted.isEmpty else { return false }
                try await Self.countAppOpen(claim, at: date, in: tx)
                if let outbox { try await outbox.enqueue("deferred.claimed", data: Self.json(claim), at: date, in: tx) }
                return true
            }
        }
    }

    /// Counts a redeemed claim of a stored link as an app's first open on its day and platform.
    static func countAppOpen(_ claim: DeferredClaim, at date: Date, in tx: any SQLExecutor) async throws(StoreError) {
        guard let code = claim.code else { return }
        try await tx.run(
            "INSERT INTO app_open_days (code, day, platform, opens) VALUES (?, ?, ?, 1) "
                + "ON CONFLICT (code, day, platform) DO UPDATE SET opens = app_open_days.opens + 1",
            [.text(code), .int(ClickDay.day(of: date)), .text(claim.platform.rawValue)])
    }

    /// The columns of `app_open_days` a link's opens are read from.
    enum AppOpenColumn: String, SQLColumns {
        case platform, total = "CAST(SUM(opens) AS BIGINT) AS total"
    }

    /// A link's first opens after an install (redeemed claims) from `firstDay` on, by platform.
    package func appOpens(code: String, from firstDay: Int64) async throws(StoreError) -> [(platform: AppPlatform, opens: Int64)] {
        try await db.read("SELECT \(AppOpenColumn.list) FROM app_open_days WHERE code = ? AND day >= ? GROUP BY platform ORDER BY platform",
                          [.text(code), .int(firstDay)])
            .map { SQLRow<AppOpenColumn>($0) }
            .compactMap { row in row.text(.platform).flatMap(AppPlatform.init(rawValue:)).map { ($0, row.int(.total) ?? 0) } }
    }

    /// A claim's parameters as the `parameters` column holds them: a JSON object, names sorted.
    static func parametersText(_ claim: DeferredClaim) -> String {
        JSONWriter.compact(.object(claim.parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }

    /// The condition (one bind: now) that a claim's link, when it has one, still exists and has
    /// not expired.
    static let linkAlive = "AND (code IS NULL OR EXISTS (SELECT 1 FROM links WHERE links.code = deferred_claims.code "
        + "AND (links.expires_at IS NULL OR links.expires_at > ?)))"

    /// The claim behind a token without redeeming it, while it can still be redeemed.
    package func pendingClaim(tokenHash: String, at date: Date) async throws(StoreError) -> DeferredClaim? {
        try await db.read(
            "SELECT \(ClaimColumn.list) FROM deferred_claims WHERE token_hash = ? AND claimed_at IS NULL AND expires_at > ? "
                + Self.linkAlive,
            [.text(tokenHash), .int(Self.millis(date)), .int(Self.millis(date))]).first.map(Self.claim)
    }

    /// Whether a claim with this token was ever issued and is still kept (used, expired or its
    /// link expired: a page says gone, not unknown).
    package func claimIsKnown(tokenHash: String) async throws(StoreError) -> Bool {
        try await !db.read("SELECT 1 FROM deferred_claims WHERE token_hash = ?", [.text(tokenHash)]).isEmpty
    }

    /// Deletes claims that expired before `date`, and forgets match keys made before `matchesBefore`.
    package func pruneClaims(expiredBefore date: Date, matchesBefore: Date) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.run("DELETE FROM deferred_claims WHERE expires_at < ?", [.int(Self.millis(date))])
            try await db.run("UPDATE deferred_claims SET match_key = NULL WHERE match_key IS NOT NULL AND created_at < ?", [.int(Self.millis(matchesBefore))])
        }
    }

    /// The columns of `deferred_claims` a claim is read from.
    enum ClaimColumn: String, SQLColumns {
        case code, deepLink = "deep_link", route, parameters, platform
    }

    static func claim(_ values: [SQLValue]) throws(StoreError) -> DeferredClaim {
        let row = SQLRow<ClaimColumn>(values)
        var parameters: [String: String] = [:]
        if let text = row.text(.parameters), case .object(let pairs)? = try? JSONParser.parse(text) {
            for (k, v) in pairs { if let s = v.stringValue { parameters[k] = s } }
        }
        guard let platform = row.text(.platform).flatMap(AppPlatform.init(rawValue:)) else {
            throw StoreError(.failed, "deferred_claims: a claim's platform is \(row.text(.platform).map { "\"\($0)\"" } ?? "missing"), not ios or android")
        }
        return DeferredClaim(code: row.text(.code), deepLink: row.text(.deepLink), route: row.text(.route), parameters: parameters, platform: platform)
    }

    /// What became of a claim: when it was redeemed, and when it expires.
    enum ClaimStateColumn: String, SQLColumns {
        case claimedAt = "claimed_at", expiresAt = "expires_at"
    }

    /// The `deferred.claimed` event's data: the claim's answer and its platform.
    static func json(_ claim: DeferredClaim) -> JSONValue {
        DeferredClaim.Answer(claim, platform: claim.platform).json
    }
}
