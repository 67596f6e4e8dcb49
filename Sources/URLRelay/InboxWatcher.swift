import SwitchyardCore
import Foundation

/// The drainer as a long-running loop: drains at start (the "app became active" moment),
/// then whenever the inbox is pinged, with a slow poll as a safety net. A declined request is
/// retried with exponential backoff (0.5 s doubling to 30 s) until it is delivered or its retry
/// budget (`maxAttempts` failed deliveries, default 5) is spent; it is then moved to `rejected/`
/// and the requests behind it are delivered. Runs until its task is cancelled (`URLRelayService`'s
/// `RelayWatcher` runs it as a ServiceLifecycle service that stops on graceful shutdown).
///
/// With the default budget a request that never gets through holds the line for about 7.5 s
/// (attempts at 0, 0.5, 1.5, 3.5 and 7.5 s).
public struct InboxWatcher: Sendable {
    /// The default retry budget: failed deliveries before a request is moved to `rejected/`.
    public static let defaultMaxAttempts = 5

    /// The inbox drained.
    public var inbox: Inbox
    /// Seconds after which a waiting request is dropped instead of
    /// delivered (default 24 h); nil keeps requests however old.
    public var ttl: Double?
    /// Seconds between drains when no ping arrives (default 5).
    public var pollInterval: Double
    /// Failed deliveries before a request is given up (nil: retried forever, strictly in order).
    public var maxAttempts: Int?
    /// Delivers one request; nil when delivered, otherwise why not.
    public var deliver: @Sendable (RelayRequest) async -> String?
    /// Receives a line for each notable event: a retry, a drop, a request given up, a drain that failed.
    public var log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - inbox: The inbox to drain.
    ///   - ttl: Seconds a request may wait before it is dropped (nil: kept until delivered).
    ///   - pollInterval: Seconds between drains when no ping arrives.
    ///   - maxAttempts: Failed deliveries before a request is given up (nil: retried forever).
    ///   - log: Receives a line for each retry, drop, give-up and failed drain.
    ///   - handler: answers `true` / `.opened` for a delivered request, `false` /
    ///     `.failed(reason)` otherwise.
    public init<Outcome: DeliveryOutcome>(inbox: Inbox, ttl: Double? = 24 * 3600, pollInterval: Double = 5,
                                          maxAttempts: Int? = InboxWatcher.defaultMaxAttempts,
                                          log: @escaping @Sendable (String) -> Void = { _ in },
                                          handler: @escaping @Sendable (RelayRequest) async -> Outcome) {
        self.inbox = inbox
        self.ttl = ttl
        self.pollInterval = pollInterval
        self.maxAttempts = maxAttempts
        self.deliver = { await handler($0).failure }
        self.log = log
    }

    /// Drains until the task is cancelled; throws only when the inbox cannot be watched.
    public func run() async throws {
        let watch = try DirectoryWatch(inbox.requests)
        let waits = BlockingQueue(label: "switchyard.relay.watch")
        var backoff = 0.0
        // The request the backoff belongs to: each request starts again at 0.5 s, so one that was
        // given up does not make the next one wait longer.
        var backingOff: UUID?
        while !Task.isCancelled {
            if let declined = await drainOnce() {
                if declined != backingOff { backoff = 0 }
                backingOff = declined
                backoff = min(max(0.5, backoff * 2), 30)
                log("request \(declined.uuidString.lowercased()) not acknowledged; retrying in \(backoff) s")
                let pause = Duration.milliseconds(Int(backoff * 1000))
                try? await Task.sleep(for: pause)
                continue
            }
            backoff = 0
            backingOff = nil
            // One wait for a ping (or the poll interval); cancelling the task ends it at once.
            let interval = pollInterval
            _ = await withTaskCancellationHandler {
                await Self.wait(watch, interval, on: waits)
            } onCancel: {
                watch.interrupt()
            }
        }
    }

    /// One drain; returns the id of a declined request, if any. Errors are logged.
    func drainOnce() async -> UUID? {
        let report: Inbox.DrainReport
        do {
            report = try await inbox.drain(ttl: ttl, maxAttempts: maxAttempts, log: log) { request in
                await deliver(request).map(OpenOutcome.failed) ?? .opened
            }
        } catch {
            log(error.code == .locked ? "another drainer holds \(inbox.directory); waiting" : "drain failed: \(error.message)")
            return nil
        }
        return report.declined
    }

    /// Waits on `watch` on `waits`, the watcher's own queue (a wait may take the whole poll
    /// interval: it never holds up the inbox's file work or another watcher).
    static func wait(_ watch: DirectoryWatch, _ seconds: Double, on waits: BlockingQueue) async -> Bool {
        await waits.run { watch.wait(timeout: seconds) }
    }
}
