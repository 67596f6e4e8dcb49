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

/// Deferred deep links for apps: `POST /api/deferred/claim` redeems a claim token once,
/// `POST /api/deferred/match` finds a visit by address (when the configuration allows it), and
/// `/d/{token}` is the claim URL opened in a browser. The API routes go behind the address limit.
struct DeferredController: Sendable {
    let claims: Claims
    let pages: LandingPages
    let store: LinkStore
    let bodies: RequestBodies
    let addresses: ClientAddresses
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    /// The domains: a claim page is its own domain's, and a match is made within the domain asked.
    let domains: LinkDomains
    /// Each domain's pages and claims, by index.
    let served: [DomainPages]

    var configuration: ServiceConfiguration { claims.configuration }

    func addRoutes(to router: Router<ServiceContext>, limited: RouterGroup<ServiceContext>) {
        limited.post("deferred/claim") { request, _ in try await redeem(request) }
        limited.post("deferred/match") { request, context in try await match(request, context) }
        router.get("/d/{token}") { request, context in await claimPage(request, context) }
    }

    /// What a signed token's stored link stands for now, as its page shows it: nil when the link
    /// is gone (`deleted`: not there, or made again under its code after the token was issued).
    func signedClaim(_ signed: SignedClaimToken, at date: Date) async throws -> (claim: DeferredClaim?, deleted: Bool) {
        guard let link = try await store.link(code: signed.code), let domain = domains.index(ofKey: link.code),
              SignedClaimToken.instance(of: link.createdAt) == signed.instance else { return (nil, true) }
        if let expiry = link.expiresAt, expiry <= date { return (nil, false) }
        let parameters = Dictionary(link.parameters, uniquingKeysWith: { first, _ in first })
        // The link's page as its own domain makes it (its deep link checked against its apps).
        let page = served[domain].pages.page(for: link)
        return (claims.claim(for: page, code: link.code, route: link.route, parameters: parameters, platform: signed.platform), false)
    }


    /// POST `/api/deferred/claim` `{"token": "…"}`: no API token (the claim token is the secret),
    /// rate-limited per address. 200 `{"code", "deepLink", "route", "parameters"}` once; then 410
    /// `claim-used`; 410 `claim-expired`; 410 `claim-link-gone`; 404 `claim-unknown`; 400 for a body that is not
    /// `{"token": "<43 base64url characters>"}`.
    func redeem(_ request: Request) async throws -> Response {
        let token = try await bodies.decode(ClaimRequest.self, request).token
        guard Claims.isClaimToken(token) else {
            throw APIError.badRequest(.invalidClaimToken, "token must be the 43-character claim token from the page (sy_claim=… or /d/…)", field: "token")
        }
        let date = now()
        let outcome: LinkStore.ClaimOutcome
        if let signed = SignedClaimToken.read(token, keys: await claims.keys.keys(store, now: date)) {
            outcome = try await redeem(signed, tokenHash: APIToken.hash(token), at: date)
        } else {
            outcome = try await store.redeemClaim(tokenHash: APIToken.hash(token), at: date)
        }
        switch outcome {
        case .claimed(let claim):
            metrics.claimsRedeemed.increment()
            return try Response.json(DeferredClaim.Answer(claim))
        case .used: throw APIError(.gone, .claimUsed, "this claim token was redeemed already", field: "token")
        case .expired: throw APIError(.gone, .claimExpired, "this claim token has expired", field: "token")
        case .linkGone: throw APIError(.gone, .claimLinkGone, "the link this claim token was issued for has expired", field: "token")
        case .unknown: throw APIError(.notFound, .claimUnknown, "no such claim token", field: "token")
        }
    }

    /// Redeems a signed token: once, while it and its link last; a used token says so even past its expiry.
    func redeem(_ signed: SignedClaimToken, tokenHash: String, at date: Date) async throws -> LinkStore.ClaimOutcome {
        let used = { () async throws -> Bool in try await store.claimIsKnown(tokenHash: tokenHash) }
        if claims.expiry(of: signed) <= date { return try await used() ? .used : .expired }
        let (claim, deleted) = try await signedClaim(signed, at: date)
        guard let claim else { return try await used() ? .used : deleted ? .unknown : .linkGone }
        // The row that makes it single-use lasts as long as the longest lifetime the
        // configuration could ever give the token, not today's: a lifetime raised after the row
        // was pruned would otherwise make the token redeemable again.
        let kept = signed.issued.addingTimeInterval(DeferredSettings.longestClaimLifetime)
        let redeemed = try await store.redeemSignedClaim(tokenHash: tokenHash, claim, expiresAt: kept, at: date)
        return redeemed ? .claimed(claim) : .used
    }

    /// POST `/api/deferred/match` `{"platform": "ios" | "android"}`: probabilistic matching, only
    /// with `deferred.probabilisticMatching` (403 `matching-disabled` otherwise). Redeems the most
    /// recent unredeemed claim shown to this address on this platform within `matchWindow`: 200 as
    /// `/api/deferred/claim` with `"match": "probabilistic"`, 404 `no-match`. Rate-limited per address.
    func match(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let settings = configuration.deferred
        guard settings.probabilisticMatching else {
            throw APIError(.forbidden, .matchingDisabled, "probabilistic matching is off (deferred.probabilisticMatching); redeem a claim token with POST /api/deferred/claim")
        }
        guard let platform = try await bodies.decode(MatchRequest.self, request).platform.flatMap(AppPlatform.init(rawValue:)) else {
            throw APIError.badRequest(.invalidPlatform, "platform must be \"ios\" or \"android\"", field: "platform")
        }
        // Within the domain the app asks (its own host): a visit to another domain's page is not its.
        guard let domain = domains.hosts.domain(authority: request.head.authority) else {
            throw APIError(.notFound, .noMatch, "no domain is served at this request's host; ask at the host of your app's domain")
        }
        let key = DeferredSettings.matchKey(platform: platform, address: addresses.address(request, context), domain: domains.keyName(domain))
        let date = now()
        guard let claim = try await store.redeemMatch(matchKey: key, since: date.addingTimeInterval(-settings.matchWindow), at: date) else {
            throw APIError(.notFound, .noMatch, "no unredeemed visit from this address on \(platform.rawValue) in the last \(Int(settings.matchWindow)) s")
        }
        metrics.claimsRedeemed.increment()
        return try Response.json(DeferredClaim.Answer(claim, match: "probabilistic"))
    }

    /// GET `/d/{token}`: the claim URL opened in a browser (the app is not installed yet, or the
    /// URL was pasted): a page with the app link and the store, which does not redeem the token.
    func claimPage(_ request: Request, _ context: ServiceContext) async -> Response {
        let token = context.parameters.get("token") ?? ""
        // The request's domain's page (``DomainGuard`` has answered a host no domain names).
        let domain = domains.hosts.domain(authority: request.head.authority) ?? 0
        let pages = served[domain].pages
        guard Claims.isClaimToken(token) else { return pages.messagePage(.notFound, "Link not found", "This link does not exist.") }
        var claim: DeferredClaim?
        var known: Bool
        let date = now()
        do {
            let hash = APIToken.hash(token)
            if let signed = SignedClaimToken.read(token, keys: await claims.keys.keys(store, now: date)) {
                // Known (as gone, once used or expired) from the moment it was issued.
                known = true
                // Another domain's link's token is not found here.
                guard domains.index(ofKey: signed.code) == domain else { return pages.messagePage(.notFound, "Link not found", "This link does not exist.") }
                if claims.expiry(of: signed) > date, !(try await store.claimIsKnown(tokenHash: hash)) {
                    let found = try await signedClaim(signed, at: date)
                    claim = found.claim
                    known = !found.deleted
                }
            } else {
                claim = try await store.pendingClaim(tokenHash: hash, at: date)
                known = claim != nil ? true : try await store.claimIsKnown(tokenHash: hash)
            }
        } catch let error as StoreError {
            return pages.storeFailurePage(error, logger: claims.logger)
        } catch {
            return pages.messagePage(.serviceUnavailable, "Try again shortly", "The link service cannot reach its database.")
        }
        // Used, expired, or its link expired: gone (410), as the claim API and the pages say it.
        guard let claim else {
            return known ? pages.messagePage(.gone, "Link gone", "This link was used already or has expired.")
                : pages.messagePage(.notFound, "Link not found", "This link does not exist.")
        }
        // A claim whose app link this domain would not offer is another domain's: not found here.
        if domains.hosts.strict, let deepLink = claim.deepLink, pages.allowedDeepLink(deepLink) == nil {
            return pages.messagePage(.notFound, "Link not found", "This link does not exist.")
        }
        var page = pages.basePage(pageURL: Claims.claimURL(pages.configuration.publicURL, token))
        page.deepLink = claim.deepLink.flatMap(pages.allowedDeepLink)
        let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
        return pages.htmlResponse(.ok, await pages.pageBody(page, for: audience, inApp: LandingPages.inAppBrowser(audience, userAgent: request.headers[.userAgent])), cache: "private, no-store")
    }
}
