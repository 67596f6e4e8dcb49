import SwitchyardCore
import Foundation

/// Whether the store takes writes, as far as this process knows: the outcome of the most recent
/// write — a request's, the click flusher's, or a health probe's — and, while writes fail, since
/// when. `LinkStore` records every write it makes here; `GET /healthz` reads it and probes with a
/// real write when the last outcome is stale (`needsProbe`).
///
/// ```swift
/// if store.health.needsProbe() { _ = await store.health.probe(timeout: .seconds(2)) { try? await store.probeWrite() } }
/// store.health.last?.failure   // nil: the last write committed
/// ```
package final class StorageHealth: Sendable {
    /// One write's outcome.
    package struct Observation: Sendable, Equatable {
        /// Nil when the write committed; otherwise the database's reason (without the SQL).
        package var failure: String?
        /// `write` (a request or the click flusher) or `probe` (the health check's own write).
        package var source: String
        /// When, on the monotonic clock (for freshness) and as a date (for people).
        package var at: Double
        /// The same moment as a wall-clock date, for people reading `/healthz`.
        package var date: Date
        /// While writes fail: the date of the first failure in a row.
        package var failingSince: Date?
    }

    /// A successful outcome older than this (seconds) is checked again with a probe.
    package let probeAfterSuccess: Double
    /// A failed outcome older than this is checked again, so recovery shows within about a second.
    package let probeAfterFailure: Double
    private let clock: @Sendable () -> Double
    private let date: @Sendable () -> Date
    private let state = Locked<Observation?>(nil)
    private let running = Locked<Task<Void, Never>?>(nil)

    /// A tracker with no outcome yet. Intervals are in seconds; `clock` (monotonic seconds) and `date` are injected in tests.
    package init(probeAfterSuccess: Double = 10, probeAfterFailure: Double = 1,
                clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime },
                date: @escaping @Sendable () -> Date = { Date() }) {
        self.probeAfterSuccess = probeAfterSuccess
        self.probeAfterFailure = probeAfterFailure
        self.clock = clock
        self.date = date
    }

    /// The most recent outcome (nil before the first write).
    package var last: Observation? { state.withLock { $0 } }

    /// Records one write's outcome: `failure` nil when it committed.
    package func record(failure: String?, source: String) {
        let t = clock(), d = date()
        state.withLock { last in
            let since = failure == nil ? nil : (last?.failingSince ?? d)
            last = Observation(failure: failure, source: source, at: t, date: d, failingSince: since)
        }
    }

    /// True when nothing is known yet or the last outcome is older than its probe interval.
    package func needsProbe() -> Bool {
        guard let last else { return true }
        return clock() - last.at >= (last.failure == nil ? probeAfterSuccess : probeAfterFailure)
    }

    /// Runs `write` (a probe that records its own outcome) unless one is already running, in
    /// which case it waits for that one. Returns false when the probe did not finish within
    /// `timeout`; it then goes on in the background and records its outcome when it ends.
    package func probe(timeout: Duration, _ write: @escaping @Sendable () async -> Void) async -> Bool {
        let task = running.withLock { running -> Task<Void, Never> in
            if let running { return running }
            let task = Task {
                await write()
                self.running.withLock { $0 = nil }
            }
            running = task
            return task
        }
        let once = Once()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                if once.claim() { continuation.resume(returning: false) }
            }
            Task {
                await task.value
                if once.claim() { continuation.resume(returning: true) }
                // The probe ended: its timer has nothing left to guard.
                timer.cancel()
            }
        }
    }

    /// Lets exactly one of two racing tasks resume a continuation.
    private final class Once: Sendable {
        private let done = Locked(false)
        func claim() -> Bool { done.withLock { done in defer { done = true }; return !done } }
    }
}
