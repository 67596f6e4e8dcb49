import Crypto
import SwitchyardCore

extension LinkStore {
    /// Whether rate limits are kept in the database, shared by every node (PostgreSQL); on
    /// SQLite there is one node and its own buckets are the whole truth.
    package var sharesRateLimits: Bool { db is PostgresStore }

    /// Takes one token from the shared bucket `key` (`perSecond` tokens a second, at most
    /// `burst` kept), on the database's clock so that nodes whose clocks differ agree: nil when
    /// allowed, else the seconds until a token is there. One statement, atomic under concurrent
    /// takes from any node. Only on PostgreSQL (``sharesRateLimits``); SQLite answers nil.
    ///
    /// The key is stored as its SHA-256: a client's address never reaches the table.
    package func takeSharedToken(_ key: String, perSecond: Double, burst: Double) async throws(StoreError) -> Double? {
        guard db is PostgresStore else { return nil }
        // Whole thousandths of a token; the refill in millionths of a thousandth a millisecond.
        let capacity = Int64((burst * 1000).rounded(.down))
        let refill = Int64((perSecond * 1_000_000).rounded())
        guard capacity >= 1000, refill > 0 else { return 0 }
        let hashed = Hex.encode(Array(SHA256.hash(data: Array(key.utf8))))
        let refilled = "LEAST(?, b.tokens + (GREATEST(EXCLUDED.updated_at - b.updated_at, 0)::double precision * ? / 1000000)::bigint)"
        let rows = try await db.run("""
            WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
            INSERT INTO rate_buckets AS b (key, tokens, updated_at, allowed)
            SELECT ?, ? - 1000, ms, 1 FROM now
            ON CONFLICT (key) DO UPDATE SET
              tokens = \(refilled) - CASE WHEN \(refilled) >= 1000 THEN 1000 ELSE 0 END,
              allowed = CASE WHEN \(refilled) >= 1000 THEN 1 ELSE 0 END,
              updated_at = GREATEST(b.updated_at, EXCLUDED.updated_at)
            RETURNING tokens, allowed
            """, [.text(hashed), .int(capacity)] + Array(repeating: [SQLValue.int(capacity), .int(refill)], count: 3).flatMap { $0 })
        guard let row = rows.first, let tokens = row[0].int, let allowed = row[1].int else {
            throw StoreError(.unavailable, "the shared rate limit answered nothing")
        }
        if allowed == 1 { return nil }
        // Seconds until the bucket holds a whole token again.
        return Double(1000 - tokens) / (perSecond * 1000)
    }

    /// Drops shared buckets untouched for `idleSeconds` (by then any bucket is full again, the
    /// same as no row); returns how many went. A no-op on SQLite.
    @discardableResult
    package func pruneSharedTokens(idleSeconds: Double) async throws(StoreError) -> Int {
        guard db is PostgresStore else { return 0 }
        return try await db.run("DELETE FROM rate_buckets WHERE updated_at < (extract(epoch FROM clock_timestamp()) * 1000)::bigint - ? RETURNING 1",
                                [.int(Int64(idleSeconds * 1000))]).count
    }
}
