import SwitchyardCore
import ServiceLifecycle
import URLRelay

/// `InboxWatcher` as a ServiceLifecycle service: drains the inbox until graceful shutdown (what
/// `switchyard relay watch` runs). The loop and its retry rules are `InboxWatcher`'s.
public struct RelayWatcher: Service {
    /// The default retry budget: failed deliveries before a request is moved to `rejected/`.
    public static let defaultMaxAttempts = InboxWatcher.defaultMaxAttempts

    /// The drain loop this service runs.
    public var watcher: InboxWatcher

    /// - Parameter handler: answers `true` / `.opened` for a delivered request, `false` /
    ///   `.failed(reason)` otherwise.
    public init<Outcome: DeliveryOutcome>(inbox: Inbox, ttl: Double? = 24 * 3600, pollInterval: Double = 5,
                                          maxAttempts: Int? = RelayWatcher.defaultMaxAttempts,
                                          log: @escaping @Sendable (String) -> Void = { _ in },
                                          handler: @escaping @Sendable (RelayRequest) async -> Outcome) {
        watcher = InboxWatcher(inbox: inbox, ttl: ttl, pollInterval: pollInterval, maxAttempts: maxAttempts, log: log, handler: handler)
    }

    /// Runs the watcher until graceful shutdown cancels it; the watcher's errors are rethrown.
    public func run() async throws {
        let watcher = self.watcher
        // Graceful shutdown cancels the loop; a cancelled loop ends at its next check.
        try await cancelWhenGracefulShutdown { try await watcher.run() }
    }
}
