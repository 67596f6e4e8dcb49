import SwitchyardCore
import CoreMetrics
import Foundation

/// What one attempt to open a URL did.
public enum OpenOutcome: Sendable, Equatable {
    case opened
    case failed(String)
}

/// One way to get a URL opened: run a command, drop it into an inbox, nudge the container app.
public protocol URLOpenStrategy: Sendable {
    var name: String { get }
    func open(_ request: RelayRequest) async -> OpenOutcome
}

/// Drops the request into an inbox for the container app to drain.
public struct RelayToInbox: URLOpenStrategy {
    /// The inbox requests are sent to.
    public var inbox: Inbox
    /// `relay(DIRECTORY)`, for logs and reports.
    public var name: String { "relay(\(inbox.directory))" }
    /// Relays into `inbox`.
    public init(inbox: Inbox) { self.inbox = inbox }

    /// Sends the request into the inbox: `.opened` once it is stored durably,
    /// `.failed` with the reason when it is refused or the write fails.
    public func open(_ request: RelayRequest) async -> OpenOutcome {
        do { try inbox.send(request); return .opened } catch { return .failed(error.message) }
    }
}

/// A chain of strategies behind a policy. `always` strategies run whatever happened before
/// (``standard(direct:inbox:)``: open directly, and always relay too).
public struct URLOpener: Sendable {
    /// One strategy of the chain, and whether it runs even after an earlier one opened the URL.
    public struct Step: Sendable {
        /// The strategy tried.
        public var strategy: any URLOpenStrategy
        /// Run even when an earlier step succeeded.
        public var always: Bool
        /// A step running `strategy`; with `always`, it runs even after an earlier step succeeded.
        public init(_ strategy: any URLOpenStrategy, always: Bool = false) { self.strategy = strategy; self.always = always }
    }

    /// One attempt, for logs and metrics.
    public struct Attempt: Sendable, Equatable {
        /// The `name` of the strategy tried.
        public var strategy: String
        /// What the attempt did.
        public var outcome: OpenOutcome
    }

    /// The steps, tried in order.
    public var steps: [Step]
    /// A chain of `steps`.
    public init(_ steps: [Step]) { self.steps = steps }

    /// The default chain: open directly, and always relay into `inbox`.
    public static func standard(direct: any URLOpenStrategy, inbox: Inbox) -> URLOpener {
        URLOpener([Step(direct), Step(RelayToInbox(inbox: inbox), always: true)])
    }

    /// Runs the chain; the request counts as opened when any step opened it.
    public func open(_ request: RelayRequest, observe: (Attempt) -> Void = { _ in }) async -> (opened: Bool, attempts: [Attempt]) {
        var attempts: [Attempt] = []
        var opened = false
        for step in steps where !opened || step.always {
            let outcome = await step.strategy.open(request)
            let attempt = Attempt(strategy: step.strategy.name, outcome: outcome)
            Counter(label: "switchyard_open_attempts_total",
                    dimensions: [("strategy", step.strategy.name), ("outcome", outcome == .opened ? "opened" : "failed")]).increment()
            observe(attempt)
            attempts.append(attempt)
            if outcome == .opened { opened = true }
        }
        return (opened, attempts)
    }
}
