import Foundation
import ServiceLifecycle

/// The drainer as a long-running service: drains at start (the "app became active" moment),
/// then whenever the inbox is pinged, with a slow poll as a safety net. A declined request is
/// retried with exponential backoff (0.5 s doubling to 30 s). Stops cleanly on graceful shutdown.
public struct RelayWatcher: Service {
    public var inbox: Inbox
    public var ttl: Double?
    public var pollInterval: Double
    public var handler: @Sendable (RelayRequest) async -> Bool
    public var log: @Sendable (String) -> Void

    public init(inbox: Inbox, ttl: Double? = 24 * 3600, pollInterval: Double = 5,
                log: @escaping @Sendable (String) -> Void = { _ in }, handler: @escaping @Sendable (RelayRequest) async -> Bool) {
        self.inbox = inbox
        self.ttl = ttl
        self.pollInterval = pollInterval
        self.handler = handler
        self.log = log
    }

    public func run() async throws {
        let watch = try DirectoryWatch(inbox.requests)
        var backoff = 0.0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let declined = await drainOnce() {
                backoff = min(max(0.5, backoff * 2), 30)
                log("request \(declined.uuidString.lowercased()) not acknowledged; retrying in \(backoff) s")
                let pause = Duration.milliseconds(Int(backoff * 1000))
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
                continue
            }
            backoff = 0
            // Wait for a ping in short slices so that shutdown is noticed quickly.
            var waited = 0.0
            while waited < pollInterval && !Task.isShuttingDownGracefully && !Task.isCancelled {
                if await Self.wait(watch, 0.25) { break }
                waited += 0.25
            }
        }
    }

    /// One drain; returns the id of a declined request, if any. Errors are logged.
    func drainOnce() async -> UUID? {
        let report: Inbox.DrainReport
        do { report = try await inbox.drain(ttl: ttl, log: log, handler: handler) } catch {
            log(error.code == .locked ? "another drainer holds \(inbox.directory); waiting" : "drain failed: \(error.message)")
            return nil
        }
        return report.declined
    }

    static func wait(_ watch: DirectoryWatch, _ seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: watch.wait(timeout: seconds)) }
        }
    }
}
