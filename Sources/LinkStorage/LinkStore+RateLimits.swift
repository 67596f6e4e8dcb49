import Crypto
import Foundation
import SwitchyardCore

extension LinkStore {
    /// Whether rate limits are kept in the database, shared by every node (PostgreSQL); on
    /// SQLite there is one node and its own buckets are the whole truth.
    package var sharesRateLimits: Bool { db is PostgresStore }

    /// Why the database cannot be reached now (PostgreSQL, while statements are refused at once);
    /// nil while it answers, and always on SQLite.
    package var unreachable: String? { (db as? PostgresStore)?.unreachable }

    /// Takes up to `count` tokens from the shared bucket `key` (`perSecond` tokens a second, at
    /// most `burst` kept), on the database's clock so that nodes whose clocks differ agree: how
    /// many it got (0 to `count`), and when fewer, the seconds until the next one is there. One statement,
    /// atomic under concurrent takes from any node. Only on PostgreSQL (``sharesRateLimits``);
    /// SQLite answers `count`.
    ///
    /// The key is stored as its HMAC-SHA256 under a secret every node on the database shares
    /// (`service_keys`, made by the first node that asks): a client's address never reaches the
    /// table, and the table alone does not tell which addresses or tokens it counts.
    package func takeSharedTokens(_ key: String, count: Int = 1, perSecond: Double, burst: Double) async throws(StoreError) -> (granted: Int, wait: Double?) {
        guard db is PostgresStore else { return (count, nil) }
        // Whole thousandths of a token; the refill in millionths of a token a second.
        let capacity = Int64((burst * 1000).rounded(.down))
        let refill = Int64((perSecond * 1_000_000).rounded())
        let wanted = Int64(max(1, count)) * 1000
        guard capacity >= 1000, refill > 0 else { return (0, 0) }
        let secret = try await rateLimitSecret()
        let hashed = Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(key.utf8), using: SymmetricKey(data: Array(secret.utf8)))))
        let refilledSQL = "LEAST(?, b.tokens + (GREATEST(EXCLUDED.updated_at - b.updated_at, 0)::double precision * ? / 1000000)::bigint)"
        // Whole tokens only: as many as wanted and there, in thousandths.
        let grantedSQL = "LEAST(?, (\(refilledSQL) / 1000) * 1000)"
        let refilledBinds: [SQLValue] = [.int(capacity), .int(refill)]
        let grantedBinds: [SQLValue] = [.int(wanted)] + refilledBinds
        let rows = try await db.run("""
            WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
            INSERT INTO rate_buckets AS b (key, tokens, updated_at, granted)
            SELECT ?, ? - LEAST(?, (? / 1000) * 1000), ms, LEAST(?, (? / 1000) * 1000) FROM now
            ON CONFLICT (key) DO UPDATE SET
              tokens = \(refilledSQL) - \(grantedSQL),
              granted = \(grantedSQL),
              updated_at = GREATEST(b.updated_at, EXCLUDED.updated_at)
            RETURNING \(SharedBucketColumn.list)
            """, [.text(hashed), .int(capacity), .int(wanted), .int(capacity), .int(wanted), .int(capacity)]
                + refilledBinds + grantedBinds + grantedBinds)
        guard let row = rows.first.map(SQLRow<SharedBucketColumn>.init), let tokens = row.int(.tokens), let granted = row.int(.granted) else {
            throw StoreError(.unavailable, "the shared rate limit answered nothing")
        }
        let got = Int(granted / 1000)
        // When fewer came than asked: the seconds until the bucket holds a whole token again.
        return (got, got >= max(1, count) ? nil : Double(1000 - tokens) / (perSecond * 1000))
    }

    /// Drops shared buckets untouched for `idleSeconds` (by then any bucket is full again, the
    /// same as no row); returns how many went. A no-op on SQLite.
    @discardableResult
    package func pruneSharedTokens(idleSeconds: Double) async throws(StoreError) -> Int {
        guard db is PostgresStore else { return 0 }
        return try await db.run("DELETE FROM rate_buckets WHERE updated_at < (extract(epoch FROM clock_timestamp()) * 1000)::bigint - ? RETURNING 1",
                                [.int(Int64(idleSeconds * 1000))]).count
    }

    /// The secret that keys `rate_buckets`' rows (`sharedSecret`), read once per store.
    private func rateLimitSecret() async throws(StoreError) -> String {
        if let known = sharedSecrets.withLock({ $0["rate-limits"] }) { return known }
        let secret = try await sharedSecret("rate-limits", at: Date())
        sharedSecrets.withLock { $0["rate-limits"] = secret }
        return secret
    }

    /// What a take from a shared bucket answers: the tokens left and how many it granted.
    enum SharedBucketColumn: String, SQLColumns {
        case tokens, granted
    }
}
