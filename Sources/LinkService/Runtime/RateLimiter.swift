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
