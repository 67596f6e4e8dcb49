import Foundation

/// Why a stored link no longer leads where it did at a moment: past its expiry, or used as often
/// as it may be. One rule for its landing page, its QR codes and the API's `state`.
package enum LinkEnd: Equatable, Sendable {
    /// Past its expiry.
    case expired(Date)
    /// Used as often as it may be.
    case usedUp(Int64)

    /// Why `link` has ended at `now`, or nil while it is served.
    package init?(_ link: StoredLink, at now: Date) {
        if let expiry = link.expiresAt, expiry <= now { self = .expired(expiry) }
        else if let max = link.maxUses, link.clicks >= max { self = .usedUp(max) }
        else { return nil }
    }

    /// The API's name for the end (`expired`, `used-up`).
    package enum State: String, Sendable {
        case expired, usedUp = "used-up"
    }

    /// The API's name for this end.
    package var state: State {
        switch self {
        case .expired: .expired
        case .usedUp: .usedUp
        }
    }
}
