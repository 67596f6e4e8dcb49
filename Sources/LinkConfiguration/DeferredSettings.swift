import Foundation
import LinkStorage
import SwitchyardCore

/// The `deferred` section: deferred deep links, which carry a link through an app install.
///
/// ```yaml
/// deferred:
///   enabled: true               # default
///   claimLifetime: 86400        # seconds a claim token can be redeemed (default 24 h)
///   probabilisticMatching: false  # default; see below
///   matchWindow: 3600           # seconds a visit can be matched without a token
///   signingKeys: []             # secrets (32+ characters; env:NAME, file:PATH or the text) that sign claim tokens; the first signs
/// ```
///
/// With `probabilisticMatching: true`, an app that found no token may ask
/// `POST /api/deferred/match` for the most recent unredeemed claim made from its own address and
/// platform within `matchWindow`. That is a guess: everyone behind the same address (an office,
/// a carrier's NAT) looks the same, so it can hand one person's link to another. Off by default.
///
/// A phone's visit to a landing page (`/i/{code}` or a route's page) gets a claim token: on
/// Android in the Play Store link's `referrer` (`sy_claim=TOKEN`), on iOS as a claim URL
/// (`publicURL/d/TOKEN`) that the "Get the app" button copies when — and only when — the person
/// taps it. The installed app redeems it once with `POST /api/deferred/claim`.
///
/// The token of a stored link's page (a code of up to 16 characters) is signed, not stored: it
/// carries the code, the platform, its expiry and a nonce, so a page view writes nothing; the
/// row that makes it single-use is written when it is redeemed, and the answer is the link as
/// it is then. It is signed with the first of `signingKeys` and accepted under any of them (add
/// a new key first, remove the old one after `claimLifetime`); with none configured, with a key
/// the first node makes in the database and every node on it shares. Other pages' tokens (a
/// route's page, a Firebase long link, a longer code) and every token while
/// `probabilisticMatching` is on are stored when the page is shown, as before.
package struct DeferredSettings: Sendable, Equatable {
    /// Whether phone visits to landing pages get claim tokens (`enabled`; default true).
    package var enabled = true
    /// Seconds a claim token can be redeemed (`claimLifetime`, 60–2592000; default 86400, one day).
    package var claimLifetime: Double = 86_400
    /// Whether `POST /api/deferred/match` may match an app by address and platform without a token (`probabilisticMatching`; default false; needs `enabled`).
    package var probabilisticMatching = false
    /// Seconds after a visit during which it can be matched without a token (`matchWindow`, 60–86400; default 3600).
    package var matchWindow: Double = 3600
    /// Secrets that sign claim tokens, the first signing, any verifying (`signingKeys`; default
    /// none: a key kept in the database).
    package var signingKeys: [String] = []

    /// The defaults, as when the configuration has no `deferred` section.
    package init() {}

    static let shape = DocumentShape.object([
        "enabled": .bool, "claimLifetime": .number, "probabilisticMatching": .bool, "matchWindow": .number, "signingKeys": .array(.string),
    ])

    init(_ section: JSONValue, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) {
        enabled = section["enabled"] != .bool(false)
        if case .number(let n, _)? = section["claimLifetime"] {
            guard (60...Self.longestClaimLifetime).contains(n) else { throw ConfigurationError("deferred.claimLifetime: seconds from 60 to 2592000 (30 days)") }
            claimLifetime = n
        }
        probabilisticMatching = section["probabilisticMatching"] == .bool(true)
        if case .number(let n, _)? = section["matchWindow"] {
            guard (60...86_400).contains(n) else { throw ConfigurationError("deferred.matchWindow: seconds from 60 to 86400 (24 h)") }
            matchWindow = n
        }
        // Each key `env:NAME`, `file:PATH` or the text itself, as webhook secrets are.
        signingKeys = []
        for (i, text) in (section["signingKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []).enumerated() {
            let key = String(decoding: try WebhookSettings.secret(text, "deferred.signingKeys[\(i)]", environment: environment), as: UTF8.self)
            guard ClaimSigningKey(secret: key) != nil, !key.allSatisfy(\.isWhitespace) else {
                throw ConfigurationError("deferred.signingKeys[\(i)]: a signing key is at least 32 characters, not all spaces (for example `openssl rand -base64 32`)")
            }
            signingKeys.append(key)
        }
        if probabilisticMatching && !enabled { throw ConfigurationError("deferred.probabilisticMatching: needs deferred.enabled") }
    }

    /// What a visit is matched by: SHA-256 of the platform and the full address (kept only
    /// while the visit can be matched, and only with probabilistic matching on).
    /// With `domain` (a domain's name other than the first's), that domain's key: a visit on one
    /// domain's page is matched only by a request to that domain.
    package static func matchKey(platform: AppPlatform, address: String, domain: String? = nil) -> String {
        APIToken.hash("match-v1|" + platform.rawValue + "|" + address + (domain.map { "|" + $0 } ?? ""))
    }

    /// The key of the Play Store `referrer` value the app reads: `sy_claim=TOKEN`.
    package static let referrerKey = "sy_claim"
    /// The longest `claimLifetime` the configuration takes (30 days). A redeemed signed token's
    /// row is kept until this long after it was issued (plus ``keptAfterExpiry``), whatever the
    /// lifetime now, so raising the lifetime later never makes an old token redeemable again.
    package static let longestClaimLifetime: Double = 2_592_000
    /// How long a redeemed or expired claim is kept, so a second try says 410 rather than 404.
    package static let keptAfterExpiry: Double = 7 * 86_400
}
