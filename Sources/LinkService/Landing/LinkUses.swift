import LinkCache
import LinkRequests
import Foundation
import LinkPages
import LinkStorage
import Prometheus

/// Counts visits to a stored link: a use-limited link's use in the store at once, atomically
/// with its record; every other click, and every preview, in the next batch (`HotLinks`). The
/// page, the lane and the tokenless read of an invite all count through here.
struct LinkUses: Sendable {
    let hot: HotLinks
    let store: LinkStore
    let metrics: ServiceMetrics

    /// Counts one use of the use-limited link `code` in the store at once — its record and
    /// `link.clicked` event within the client's budget — and keeps this node's cache in step.
    func countUse(_ code: String, _ audience: LandingPage.Audience, at date: Date, visit: Visit?, address: () -> String?) async throws(StoreError) -> ClickOutcome {
        let use = hot.budgetedUse(code, at: date, visit: visit, address: address)
        let outcome = try await store.click(code: code, platform: VisitPlatform(audience), at: date, visit: try await hot.madeNow(use.visit, at: date), clickEvent: use.event)
        switch outcome {
        case .counted:
            metrics.clicks.increment()
            hot.recordOverBudget(use.overBudget)
            hot.usedOnce(code)
        case .exhausted: hot.usedUp(code)
        case .missing: hot.forget(code)
        }
        return outcome
    }

    /// Counts a visit that uses nothing up (a link without a use limit, or any preview) in the
    /// next batch: a preview, crawler or prefetch apart from clicks.
    func countLater(_ code: String, _ audience: LandingPage.Audience, at date: Date, preview: Bool, visit: Visit?, address: () -> String?) {
        if preview {
            hot.countPreviewLater(code, at: date, visit: visit, address: address)
            metrics.previewVisits.increment()
        } else {
            hot.countLater(code, platform: audience, at: date, visit: visit, address: address)
            metrics.clicks.increment()
        }
    }
}
