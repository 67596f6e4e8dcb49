import LinkRequests
import LinkConfiguration
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

/// Takes from shared (PostgreSQL) buckets, batched: one take per key is in flight at a time on a
/// node, and the requests that arrive meanwhile queue behind it; the next take asks for as many
/// tokens as requests are queued and answers them in the order they came. Under load most
/// requests share a round trip; no token is taken ahead of a request, so none is wasted and the
/// limit is exact whatever node answers.
package final class SharedTakes: Sendable {
    /// What a take of `count` tokens from the shared bucket gave: how many, and when fewer, the
    /// seconds until the next one; nil when the database did not answer.
    package typealias Take = (granted: Int, wait: Double?)?

    private struct Entry {
        var taking = false
        var waiting: [CheckedContinuation<Double?, Never>] = []
    }
    private let entries = Locked<[String: Entry]>([:])

    package init() {}

    /// One token of `key`: nil when allowed, else the seconds to wait. The request queues for
    /// the take in flight for `key`, or starts one with `take`. When the database does not
    /// answer, the queued requests are allowed (the caller's own bucket decided already).
    package func token(_ key: String, take: @escaping @Sendable (_ count: Int) async -> Take) async -> Double? {
        await withCheckedContinuation { continuation in
            let start = entries.withLock { entries -> Bool in
                var entry = entries[key] ?? Entry()
                entry.waiting.append(continuation)
                let start = !entry.taking
                entry.taking = true
                entries[key] = entry
                return start
            }
            if start { Task { await self.serve(key, take: take) } }
        }
    }

    /// Takes for `key` until every queued request has its answer.
    private func serve(_ key: String, take: @escaping @Sendable (Int) async -> Take) async {
        while true {
            let count = entries.withLock { $0[key]?.waiting.count ?? 0 }
            // A take the database never answers counts as no answer: the requests queued behind
            // it are not held for good.
            let answer: Take = count > 0 ? ((try? await awaitingAtMost(.seconds(10)) { await take(count) }) ?? nil) ?? nil : (0, nil)
            let (allowed, refused, wait, done) = entries.withLock { entries -> ([CheckedContinuation<Double?, Never>], [CheckedContinuation<Double?, Never>], Double?, Bool) in
                var entry = entries[key] ?? Entry()
                // The first `count` queued asked in this take; the ones behind them wait for the next.
                let asked = Array(entry.waiting.prefix(count))
                entry.waiting.removeFirst(asked.count)
                let granted = answer.map { min($0.granted, asked.count) } ?? asked.count
                entry.taking = !entry.waiting.isEmpty
                let done = !entry.taking
                if done { entries[key] = nil } else { entries[key] = entry }
                return (Array(asked.prefix(granted)), Array(asked.dropFirst(granted)), answer?.wait ?? 1, done)
            }
            for continuation in allowed { continuation.resume(returning: nil) }
            for continuation in refused { continuation.resume(returning: wait) }
            if done { return }
        }
    }
}
