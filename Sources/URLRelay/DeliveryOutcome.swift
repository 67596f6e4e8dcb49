import SwitchyardCore
/// What a drain handler answers for one request: delivered, or failed with a reason. `Bool`
/// (`false`: declined, no reason given) and `OpenOutcome` (`.failed(reason)`) are outcomes, so a
/// handler returns whichever it has.
///
/// ```swift
/// try await inbox.drain(maxAttempts: 5) { request in await CommandOpen().open(request) }
/// ```
public protocol DeliveryOutcome: Sendable {
    /// Nil when the request was delivered; otherwise why not (kept in the attempts log and, once
    /// the retry budget is spent, in the `.reason` file beside the rejected record).
    var failure: String? { get }
}

extension Bool: DeliveryOutcome {
    /// Nil for `true`; for `false`, a reason saying the handler declined the request.
    public var failure: String? { self ? nil : "the handler declined it" }
}

extension OpenOutcome: DeliveryOutcome {
    /// Nil for `.opened`; the reason given for `.failed`.
    public var failure: String? {
        switch self {
        case .opened: return nil
        case .failed(let reason): return reason
        }
    }
}
