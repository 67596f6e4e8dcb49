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
/// that most requests need no round trip. One take per key is in flight at a time on a node: the
/// requests that find no token queue behind it and get its tokens in the order they came, so none
/// waits behind later ones. Leased tokens are usable for a second: a client spread over N nodes
/// gets at most about N leases a second more than its bucket.
package final class TokenLeases: Sendable {
    /// What a take from the shared bucket gave: tokens, or none and the seconds to wait; nil
    /// when the database did not answer.
    package typealias Take = (granted: Int, wait: Double?)?

    private struct Entry {
        var left = 0
        var until = 0.0
        var taking = false
        var waiting: [CheckedContinuation<Double?, Never>] = []
    }
    private let entries = Locked<[String: Entry]>([:])
    private let now: @Sendable () -> Double
    /// How long leased tokens stay usable.
    static let lifetime = 1.0
    /// Leases kept before idle ones are dropped.
    private let maximumKeys = 50_000

    package init(now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) { self.now = now }

    /// How many tokens to take at once for `limit`: a tenth of its burst, 1 to 10.
    static func size(_ limit: ServiceConfiguration.RateLimit) -> Int { max(1, min(10, Int(limit.burst / 10))) }

    /// One token of `key`: nil when allowed, else the seconds to wait. A leased token if one is
    /// left; else a place in the queue of the take in flight for `key`, or of a new one made with
    /// `take`. When the database does not answer, the queued requests are allowed (the caller's
    /// own bucket decided already).
    package func token(_ key: String, take: @escaping @Sendable () async -> Take) async -> Double? {
        let t = now()
        let leased = entries.withLock { entries -> Bool in
            guard var entry = entries[key], entry.left > 0, entry.until > t else { return false }
            entry.left -= 1
            entries[key] = entry
            return true
        }
        if leased { return nil }
        return await withCheckedContinuation { continuation in
            let start = entries.withLock { entries -> Bool in
                var entry = entries[key] ?? Entry()
                // Tokens may have come in since the look above.
                if entry.left > 0 && entry.until > now() {
                    entry.left -= 1
                    entries[key] = entry
                    continuation.resume(returning: nil)
                    return false
                }
                entry.waiting.append(continuation)
                let start = !entry.taking
                entry.taking = true
                entries[key] = entry
                return start
            }
            if start { Task { await self.serve(key, take: take) } }
        }
    }

    /// Takes from the shared bucket for `key` until every queued request has its answer.
    private func serve(_ key: String, take: @escaping @Sendable () async -> Take) async {
        while true {
            let answer = await take()
            let t = now()
            let (answered, wait, done) = entries.withLock { entries -> ([CheckedContinuation<Double?, Never>], Double?, Bool) in
                var entry = entries[key] ?? Entry()
                defer {
                    entries[key] = entry
                    if entries.count > maximumKeys { entries = entries.filter { $0.value.taking || $0.value.until > t } }
                }
                guard let answer, answer.granted > 0 else {
                    // Refused, or the database is away: every queued request gets that answer.
                    let all = entry.waiting
                    entry.waiting = []
                    entry.taking = false
                    return (all, answer.map { $0.wait ?? 1 }, true)
                }
                let served = min(answer.granted, entry.waiting.count)
                let first = Array(entry.waiting.prefix(served))
                entry.waiting.removeFirst(served)
                (entry.left, entry.until) = (answer.granted - served, t + Self.lifetime)
                entry.taking = !entry.waiting.isEmpty
                return (first, nil, entry.waiting.isEmpty)
            }
            for continuation in answered { continuation.resume(returning: wait) }
            if done { return }
        }
    }
}
