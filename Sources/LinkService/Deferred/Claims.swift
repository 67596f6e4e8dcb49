import LinkCache
import LinkRequests
import Foundation
import HTTPTypes
import LinkConfiguration
import LinkPages
import LinkStorage
import Logging
import Hummingbird
import NIOCore
import Prometheus
import LinkRouting
import SwitchyardCore

import Prometheus

/// Deferred deep links' claim tokens on pages: whether a visit gets one, the token written into
/// the page where the platform's app finds it, what it stands for, and its budget per visitor.
struct Claims: Sendable {
    let configuration: ServiceConfiguration
    let input: LinkInput
    let store: LinkStore
    /// The keys that sign and verify claim tokens.
    let keys: ClaimKeys
    let limits: RequestLimits
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    let logger: Logger
    /// The name of this domain in a probabilistic match's key: nil for the first domain.
    var matchDomain: String? = nil

    /// Whether this visit may get a claim token: deferred links on, a person (never a preview,
    /// crawler or prefetch), on a phone or tablet (where the visit can end in an install).
    func offersClaim(_ audience: LandingPage.Audience, preview: Bool) -> Bool {
        configuration.deferred.enabled && !preview && audience != .desktop
    }

    /// The page with a fresh claim token in it — Android: in the Play Store link's `referrer`;
    /// iOS: as the claim URL "Get the app" copies — stored with what it stands for. The page as
    /// it was when there is nothing to carry, no store for this platform, or the token cannot be
    /// stored (logged; the person still gets a working page).
    /// Claims count against the visitor's address in the per-address rate limit (as its own
    /// bucket): past it, the page comes without a token, so a script cannot fill the claims table.
    /// `linkCreated`: the stored link's creation time, for a stored link's page. Its token is
    /// signed: the page then holds `HotLinks.ClaimPage.standIn` where the token goes, and the
    /// token comes back beside it (`signed`), for the caller to write over the stand-in once rendered.
    func withClaim(_ page: LandingPage, audience: LandingPage.Audience, code: String?, linkCreated: Date? = nil, route: String?,
                   parameters: [String: String], address: () -> String?) async -> (page: LandingPage, signed: String?) {
        guard page.deepLink != nil || route != nil else { return (page, nil) }
        // Only the App Store and Play Store pages of this configuration's apps lead to an install
        // of the app that claims: a token in any other URL would be handed to someone else.
        guard (audience == .iOS && page.appStoreURL.map(input.isOwnAppStorePage) == true)
                || (audience == .android && page.playStoreURL.map(input.isOwnPlayStorePage) == true),
              let platform = AppPlatform(audience) else { return (page, nil) }
        let visitor = address()
        guard await claimAllowed(visitor) else { return (page, nil) }
        let date = now()
        let expiresAt = date.addingTimeInterval(configuration.deferred.claimLifetime)
        let token: String
        var signedToken: String?
        // A stored link's claim is signed and written nowhere until it is redeemed; the others
        // (and every claim that probabilistic matching may find by address) are stored now.
        if let code, let created = linkCreated, !configuration.deferred.probabilisticMatching, let key = await keys.keys(store, now: date).first,
           let signed = SignedClaimToken(code: code, created: created, platform: platform, issuedAt: date).token(signedWith: key) {
            token = HotLinks.ClaimPage.standIn
            signedToken = signed
        } else {
            token = Self.newClaimToken()
            let claim = claim(for: page, code: code, route: route, parameters: parameters, platform: platform)
            do {
                let matchKey = configuration.deferred.probabilisticMatching
                    ? visitor.map { DeferredSettings.matchKey(platform: platform, address: $0, domain: matchDomain) } : nil
                try await store.insertClaim(tokenHash: APIToken.hash(token), claim, at: date, expiresAt: expiresAt, matchKey: matchKey)
            } catch {
                logger.error("claim token not stored; the page is shown without it", metadata: ["error": "\(error)"])
                return (page, nil)
            }
        }
        metrics.claimsIssued.increment()
        return (Self.carrying(token, page, audience: audience, publicURL: configuration.publicURL), signedToken)
    }

    /// `page` with `token` where the platform's app finds it: the claim URL (iOS), the Play
    /// Store link's referrer (Android).
    static func carrying(_ token: String, _ page: LandingPage, audience: LandingPage.Audience, publicURL: String) -> LandingPage {
        var page = page
        if audience == .iOS {
            page.claimURL = claimURL(publicURL, token)
        } else if let play = page.playStoreURL {
            page.playStoreURL = withReferrer(play, token: token)
        }
        return page
    }

    /// Whether this visitor may be given one more claim token: counted by client and by
    /// network (IPv4 /24, IPv6 /48), so many addresses of one network cannot fill the claims
    /// table either; on PostgreSQL in the buckets every node takes from, so three nodes issue
    /// what one would. A refusal is counted in `switchyard_deferred_claims_rate_limited_total`.
    func claimAllowed(_ visitor: String?) async -> Bool {
        let allowed = await limits.claim(visitor)
        if !allowed { metrics.claimsRefused.increment() }
        return allowed
    }

    /// What a claim stands for: the page's deep link, and the route its app link takes (the
    /// page's own route and parameters when it has them), for the app's router.
    func claim(for page: LandingPage, code: String?, route: String?, parameters: [String: String], platform: AppPlatform) -> DeferredClaim {
        var route = route, parameters = parameters
        if route == nil, let link = page.deepLink, let match = configuration.router.route(link).match {
            route = match.route
            parameters = match.parameters.mapValues(\.text)
        }
        return DeferredClaim(code: code, deepLink: page.deepLink, route: route, parameters: parameters, platform: platform)
    }

    /// When a signed token stops being redeemable.
    func expiry(of signed: SignedClaimToken) -> Date { signed.issued.addingTimeInterval(configuration.deferred.claimLifetime) }


    /// `publicURL/d/TOKEN`: what the iOS page copies and the app looks for on the pasteboard.
    static func claimURL(_ publicURL: String, _ token: String) -> String { publicURL + "/d/" + token }

    /// `url` with the claim token in its Play Store `referrer` (see ``CampaignURLs/withReferrer(_:_:)``).
    static func withReferrer(_ url: String, token: String) -> String {
        CampaignURLs.withReferrer(url, [(DeferredSettings.referrerKey, token)])
    }

    /// 256 random bits, base64url (43 characters).
    static func newClaimToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether text has the shape of a claim token (43 base64url characters).
    static func isClaimToken(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
    }
}


/// The keys that sign and verify claim tokens: the configured ones, or else the database's,
/// read (or made) once.
final class ClaimKeys: Sendable {
    private let configured: [ClaimSigningKey]
    private let loaded = Locked<[ClaimSigningKey]?>(nil)
    /// With configured keys: the database's key, if a node ever made one, which verifies the
    /// tokens it signed before the keys were configured (it signs nothing now).
    private let retired = Locked<[ClaimSigningKey]?>(nil)

    init(_ secrets: [String]) { configured = secrets.compactMap(ClaimSigningKey.init(secret:)) }

    /// The keys once known (configured, or read from the database), without waiting.
    var known: [ClaimSigningKey]? { configured.isEmpty ? loaded.withLock { $0 } : configured }

    /// The keys, the signing one first; empty while the database's cannot be had (claims are
    /// then stored, as other pages' are). Configured keys are followed by the database's key,
    /// when there is one, so switching to `deferred.signingKeys` leaves tokens already out
    /// redeemable.
    func keys(_ store: LinkStore, now: Date) async -> [ClaimSigningKey] {
        if !configured.isEmpty {
            if let retired = retired.withLock({ $0 }) { return configured + retired }
            let secret: String?
            do { secret = try await store.existingClaimSigningSecret() } catch { return configured }
            let old = secret.flatMap(ClaimSigningKey.init(secret:)).map { [$0] } ?? []
            retired.withLock { $0 = old }
            return configured + old
        }
        if let keys = loaded.withLock({ $0 }) { return keys }
        guard let secret = try? await store.claimSigningSecret(at: now), let key = ClaimSigningKey(secret: secret) else { return [] }
        loaded.withLock { $0 = [key] }
        return [key]
    }
}

