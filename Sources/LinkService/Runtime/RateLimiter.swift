import SwitchyardCore
import Foundation

/// Token buckets by key (a token id, a client address). Pure state plus a lock; time is injected.
package final class RateLimiter: Sendable {
    struct Bucket { var tokens: Double; var updated: Double }

    private let rate: Double      // tokens per second
    private let burst: Double
    private let now: @Sendable () -> Double
    private let buckets = Locked<[String: Bucket]>([:])
    /// Buckets kept before idle (full) ones are dropped.
    private let maximumKeys = 50_000

    /// Buckets for `limit`, each starting full; `now` gives monotonic seconds (injected in tests).
    package init(_ limit: ServiceConfiguration.RateLimit, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        rate = limit.perMinute / 60
        burst = limit.burst
        self.now = now
    }

    /// Takes one token for `key`: nil when allowed, else the seconds until one is available.
    package func take(_ key: String) -> Double? {
        let t = now()
        return buckets.withLock { buckets -> Double? in
            var b = buckets[key] ?? Bucket(tokens: burst, updated: t)
            b.tokens = min(burst, b.tokens + (t - b.updated) * rate)
            b.updated = t
            if b.tokens >= 1 {
                b.tokens -= 1
                buckets[key] = b
                if buckets.count > maximumKeys { prune(&buckets, t) }
                return nil
            }
            buckets[key] = b
            return (1 - b.tokens) / rate
        }
    }

    private func prune(_ buckets: inout [String: Bucket], _ t: Double) {
        buckets = buckets.filter { min(burst, $0.value.tokens + (t - $0.value.updated) * rate) < burst }
    }
}

/// Tokens this node took from a shared (PostgreSQL) bucket ahead of need, a few at a time, so
/// that most requests need no round trip. Each lease lasts a second: a client spread over N
/// nodes gets at most N × (lease − 1) requests more than its bucket a second.
package final class TokenLeases: Sendable {
    private let leases = Locked<[String: (left: Int, until: Double)]>([:])
    private let now: @Sendable () -> Double
    /// How long leased tokens stay usable.
    static let lifetime = 1.0
    /// Leases kept before expired ones are dropped.
    private let maximumKeys = 50_000

    package init(now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) { self.now = now }

    /// How many tokens to take at once for `limit`: a tenth of its burst, 1 to 10.
    static func size(_ limit: ServiceConfiguration.RateLimit) -> Int { max(1, min(10, Int(limit.burst / 10))) }

    /// Uses one leased token of `key`: false when none is left or the lease ended.
    package func take(_ key: String) -> Bool {
        let t = now()
        return leases.withLock { leases in
            guard var lease = leases[key], lease.until > t, lease.left > 0 else { return false }
            lease.left -= 1
            leases[key] = lease.left > 0 ? lease : nil
            return true
        }
    }

    /// Keeps `count` tokens of `key` for a second.
    package func keep(_ key: String, _ count: Int) {
        guard count > 0 else { return }
        let t = now()
        leases.withLock { leases in
            leases[key] = (count, t + Self.lifetime)
            if leases.count > maximumKeys { leases = leases.filter { $0.value.until > t } }
        }
    }
}
