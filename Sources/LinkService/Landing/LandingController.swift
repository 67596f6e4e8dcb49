import LinkCache
import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkPages
import LinkRouting
import LinkStorage
import Logging
import NIOCore
import Prometheus
import ServiceTransport

/// The landing pages: `/i/{code}` of a stored link (and the path an imported Firebase short
/// link had), and the page of every universal-link route of the table.
///
/// Each domain's pages are its own (its route table, apps and landing settings): a code on a
/// domain's hosts is that domain's link (``LinkKey``), never another's, and so are Firebase long
/// links and imported Firebase links, at the root or under the domain's `fdlPrefixes` paths.
///
/// A stored link's page is decided once (``decide(_:address:)``): from memory when the link is
/// in the hot cache with a page for this visitor, on the lane or first in the router; else, with
/// the same ``LandingRequest``, from the store (``storedPage(_:address:)``). The router does not
/// ask again what the lane already declined.
struct LandingController: Sendable {
    let pages: LandingPages
    let claims: Claims
    let hot: HotLinks
    let uses: LinkUses
    let addresses: ClientAddresses
    /// Each domain's Firebase long links, by index.
    let firebase: [FirebaseController]
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    /// The header the operator's proxy names the visitor's country in (`visits.countryHeader`).
    let countryHeader: HTTPField.Name?
    /// The domains, and which one a request's host names.
    let domains: LinkDomains
    /// Each domain's pages, by domain index; the first's are `pages` and `claims`.
    let routeDomains: [DomainPages]
    /// Where protected links' passwords are checked, and how often they may be tried.
    let passwords: LinkPasswords

    var configuration: ServiceConfiguration { pages.configuration }

    var hosts: DomainHosts { domains.hosts }

    /// The stored key of `code` on the domain `authority` names; nil when it names none.
    func key(_ code: String, authority: String?) -> String? {
        guard let index = hosts.domain(authority: authority) else { return nil }
        return index == 0 ? code : domains.key(code: code, domain: index)
    }

    /// What the pages of the link stored under `key` are made with: its domain's.
    func serving(_ key: String) -> DomainPages? { domains.index(ofKey: key).map { routeDomains[$0] } }

    /// The answer the hot cache gives, or that only the store can.
    enum Decision {
        /// A complete page: header fields (with Content-Length) and the body.
        case page(HTTPFields, ByteBuffer)
        /// Not in memory, or the page needs the store (a use to count, a render, a stored claim).
        case needsStore
    }

    func addRoutes(to router: Router<ServiceContext>) {
        router.get("/i/{code}") { request, context in await page(request, context) }
        router.head("/i/{code}") { request, context in await page(request, context) }
        // A protected link's form posts its password here.
        router.post("/i/{code}") { request, context in await unlock(request, context) }
        // The router does not fall back from /i/{code} to "**", so a path with more segments
        // under /i/ (the form that embeds the app link: /i/plur://join-community?…) needs its own.
        router.get("/i/{code}/**") { request, context in try await routePage(request, context) }
        // The root: a Firebase Dynamic Links long link (/?link=…), or a route's page.
        router.get("/") { request, context in try await routePage(request, context) }
        router.get("**") { request, context in try await routePage(request, context) }
    }

    /// `/i/{code}` on the lane: the page when ``decide(_:address:)`` has it complete.
    var laneRoute: LaneRoute {
        LaneRoute("/i/{code}") { request in
            guard let parameter = request.parameter, let code = key(String(parameter), authority: request.head.authority) else { return nil }
            let fields = request.head.headerFields
            let target = request.head.path ?? ""
            let query = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[target.utf8.index(after: $0)...] }
            let landing = LandingRequest(code: code, method: .get, fields: fields, query: query, countryHeader: countryHeader)
            // The address closure is written in place: bound to a local constant it would be a
            // heap context made and freed on every page.
            switch decide(landing, address: { addresses.address(forwardedFor: { fields[values: ClientAddresses.forwardedFor] }, peer: request.client) ?? "unknown" }) {
            case .page(let fields, let body): return LaneRoute.Answer(status: .ok, fields: fields, body: body)
            case .needsStore: return nil
            }
        }
    }

    /// `/i/{code}` in the router: decided from memory unless the lane has done so already, else
    /// from the store.
    func page(_ request: Request, _ context: ServiceContext) async -> Response {
        // ``DomainGuard`` has answered a host no domain names.
        guard let code = key(context.parameters.get("code") ?? "", authority: request.head.authority) else {
            return pages.messagePage(.notFound, "Link not found", "This link does not exist.")
        }
        let landing = LandingRequest(code: code, method: request.method, fields: request.headers,
                                     query: request.uri.query.map { Substring($0) }, countryHeader: countryHeader)
        return await page(landing, laneDeclined: request.headers[LaneRoute.declinedField] != nil, address: { addresses.address(request, context) })
    }

    func page(_ landing: LandingRequest, laneDeclined: Bool, address: () -> String?) async -> Response {
        if landing.isGet, !laneDeclined, case .page(let fields, let body) = decide(landing, address: address) {
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: body))
        }
        return await storedPage(landing, address: address)
    }

    /// A stored link's page from memory — the link is in the hot cache with a page rendered for
    /// this visitor's platform, has no use limit and has not expired — with the click counted
    /// and the visit recorded. A phone's page gets a signed claim token of its own, written into
    /// the page kept with a stand-in. `address` (the client's) is asked only when addresses are
    /// kept, or for a claim's budget.
    func decide(_ landing: LandingRequest, address: () -> String?) -> Decision {
        let code = landing.code, audience = landing.audience
        guard pages.input.isStoredCode(LinkKey.code(of: code)) else { return .needsStore }
        // An in-app browser gets its own buttons: a page of its own, made from the store.
        guard landing.inApp == nil else { return .needsStore }
        let date = now()
        let page: ByteBuffer, linkCampaign: LinkCampaign
        if claims.offersClaim(audience, preview: landing.preview) {
            // Shared claim budgets (PostgreSQL) need a round trip: the store path takes them.
            guard !configuration.deferred.probabilisticMatching, !claims.store.sharesRateLimits, let key = claims.keys.known?.first,
                  let (claimPage, created, campaign) = hot.servableClaimPage(code, audience, now: date) else { return .needsStore }
            linkCampaign = campaign
            if claims.limits.claimOnThisNode(address()) {
                guard let platform = AppPlatform(audience),
                      let token = SignedClaimToken(code: code, created: created, platform: platform, issuedAt: date).token(signedWith: key) else { return .needsStore }
                metrics.claimsIssued.increment()
                page = claimPage.with(token: token)
            } else if let (plain, _) = hot.servablePage(code, audience, now: date) {
                // Past the visitor's claim budget: the page without a token, as the store path
                // made it for an earlier visitor past theirs.
                metrics.claimsRefused.increment()
                page = plain
            } else {
                return .needsStore
            }
        } else {
            guard let (cached, campaign) = hot.servablePage(code, audience, now: date) else { return .needsStore }
            page = cached
            linkCampaign = campaign
        }
        let visit = hot.visit(code, platform: audience, at: date, bot: landing.preview, referer: landing.referer, address: address,
                              userAgent: landing.userAgent, campaign: landing.campaign, linkCampaign: linkCampaign, proxyCountry: landing.proxyCountry)
        uses.countLater(code, audience, at: date, preview: landing.preview, visit: visit, address: address)
        return .page(LandingPages.htmlHeaders(cache: "private, no-store", length: page.readableBytes), page)
    }

    /// A stored link's page from the store: counts a click (GET only; a preview, crawler or
    /// prefetch is counted apart, never as a click or a use) and records the visit; an expired or
    /// used-up link's page is 410 with the way on it had.
    func storedPage(_ landing: LandingRequest, address: () -> String?) async -> Response {
        let code = landing.code, audience = landing.audience, preview = landing.preview, inApp = landing.inApp
        // The link's own domain's pages and claims (a key of a domain no longer configured: none).
        guard let serving = serving(code) else { return pages.messagePage(.notFound, "Link not found", "This link does not exist.") }
        guard serving.pages.input.isStoredCode(LinkKey.code(of: code)) else {
            return serving.pages.messagePage(.notFound, "Link not found", "This link does not exist.")
        }
        let (pages, claims) = (serving.pages, serving.claims)
        let link: StoredLink?
        do { link = try await hot.link(code) } catch {
            return pages.storeFailurePage(error, logger: claims.logger)
        }
        guard let link else { return pages.messagePage(.notFound, "Link not found", "This link does not exist or was deleted.") }
        // A protected link shows nothing of itself — not even that it has ended — until its
        // password is given: no click, no visit, no claim. Previews and crawlers see the form too.
        if let stored = link.passwordHash,
           !(landing.fields.cookie(named: LinkPassword.cookieName(forKey: code)).map { LinkPassword.unlocks($0, key: code, stored: stored, now: now()) } ?? false) {
            return pages.passwordPage(code: code, query: landing.query, problem: nil, status: .ok)
        }
        if let end = LinkEnd(link, at: now()), case .expired = end {
            return await pages.endedPage(link, end, audience, fullPage: !preview && landing.isGet)
        }
        // A HEAD uses nothing up, and answers as a GET would for a link already used up.
        if !landing.isGet, let max = link.maxUses, link.clicks >= max {
            return await pages.endedPage(link, .usedUp(max), audience, fullPage: false)
        }
        if landing.isGet {
            let date = now()
            let visit = hot.visit(code, platform: audience, at: date, bot: preview, referer: landing.referer, address: address,
                                  userAgent: landing.userAgent, campaign: landing.campaign, linkCampaign: link.campaign, proxyCountry: landing.proxyCountry)
            // A link preview, crawler or prefetch gets the page with its preview tags, never a
            // use: but not the page of a link already used up.
            if preview, let max = link.maxUses, link.clicks >= max { return await pages.endedPage(link, .usedUp(max), audience, fullPage: false) }
            if !preview && link.maxUses != nil {
                // Limited links are counted in the database at once, atomically, with their record.
                do {
                    switch try await uses.countUse(code, audience, at: date, visit: visit, address: address) {
                    case .counted: break
                    case .exhausted: return await pages.endedPage(link, .usedUp(link.maxUses ?? 0), audience, fullPage: true)
                    case .missing: return pages.messagePage(.notFound, "Link not found", "This link does not exist or was deleted.")
                    }
                } catch {
                    return pages.storeFailurePage(error, logger: claims.logger)
                }
            } else {
                uses.countLater(code, audience, at: date, preview: preview, visit: visit, address: address)
            }
        }
        // A link imported from another shortener whose target no app opens (none, or a link of
        // this domain its page could offer no "Open in the app" for) does what it did there
        // (counted as any visit above): it sends people on, with no page between.
        if link.kind == .imported, link.route == nil,
           link.deepLink.map({ LandingPages.appButton(for: $0, configuration: pages.configuration) == nil }) ?? true,
           let target = link.webURL.flatMap({ pages.allowedURL($0, "webURL") }) {
            return Response(status: .found, headers: [.location: Self.forwarding(landing.query, to: target, pages: pages), .cacheControl: "private, no-store"])
        }
        var body: ByteBuffer
        if preview && link.maxUses != nil {
            // A use-limited link's app link is its secret (an invite code): a preview or crawler
            // gets the title, description and image, never the link it did not use up.
            var page = pages.page(for: link)
            page.deepLink = nil
            body = await pages.pageBody(page, for: audience, inApp: inApp)
        } else if landing.isGet, claims.offersClaim(audience, preview: preview) {
            // A phone's visit: a page of its own, with a claim token for a deferred deep link. A
            // signed token's page is kept with a stand-in for the token: the next visit's page is
            // that page with its own token (``decide(_:address:)``).
            let base = pages.page(for: link)
            let (page, signed) = await claims.withClaim(base, audience: audience, code: code, linkCreated: link.createdAt, route: link.route,
                                                        parameters: Dictionary(link.parameters, uniquingKeysWith: { first, _ in first }), address: address)
            body = await pages.pageBody(page, for: audience, inApp: inApp)
            // A page with no claim at all (the visitor was past the claim budget) is the same for
            // everyone past theirs: kept for the lane to serve them.
            if signed == nil && page.claimURL == nil && inApp == nil { hot.remember(code, audience, body) }
            if let signed {
                if let claimPage = HotLinks.ClaimPage(body) {
                    if inApp == nil { hot.rememberClaimPage(code, audience, claimPage) }
                    body = claimPage.with(token: signed)
                } else {
                    // A template that does not show the token as written: rendered with the token itself.
                    body = await pages.pageBody(Claims.carrying(signed, base, audience: audience, publicURL: pages.configuration.publicURL), for: audience, inApp: inApp)
                }
            }
        } else if inApp != nil {
            // Pages for in-app browsers are made each time; the cache holds the three common ones.
            body = await pages.pageBody(pages.page(for: link), for: audience, inApp: inApp)
        } else if let cached = hot.page(code, audience) { body = cached } else {
            body = await pages.pageBody(pages.page(for: link), for: audience, inApp: nil)
            hot.remember(code, audience, body)
        }
        return pages.htmlResponse(.ok, body, cache: "private, no-store")
    }

    /// Every other GET: the landing page of a universal-link route, or 404.
    func routePage(_ request: Request, _ context: ServiceContext) async throws -> Response {
        // Under /admin/ no route's page is served: a path the dashboard answers only with POST
        // (a reload of a page a form posted to) is its 405 with Allow, any other its 404, as the
        // dashboard writes them (the unmatched-request answer of `ObservabilityMiddleware`).
        // Under /v1 (Firebase's REST API) likewise, in Google's shape.
        for prefix in ["/admin", "/v1"] where request.uri.path == prefix || request.uri.path.hasPrefix(prefix + "/") { throw HTTPError(.notFound) }
        // Under /api/ an unknown path is an API error, in JSON like every other.
        if request.uri.path.hasPrefix("/api/") || request.uri.path == "/api" {
            return APIError(.notFound, .notFound, "no API endpoint at \(request.uri.path)").response
        }
        // The request's domain (``DomainGuard`` has answered a host no domain names).
        let domain = hosts.domain(authority: request.head.authority) ?? 0
        let (pages, claims) = (routeDomains[domain].pages, routeDomains[domain].claims)
        let configuration = pages.configuration
        guard let host = configuration.router.hosts.first else { return pages.messagePage(.notFound, "Not found", "Nothing here.") }
        var url = "https://" + host + request.uri.path
        if let q = request.uri.query, !q.isEmpty { url += "?" + q }
        // A Firebase long link: at the root, or at one of the domain's URL prefixes.
        if request.uri.queryParameters["link"] != nil, request.uri.path == "/" || configuration.fdlPrefixes.contains(where: { $0.path == request.uri.path }) {
            return await firebase[domain].longLink(request, context)
        }
        guard let match = configuration.router.route(url).match,
              let route = configuration.router.routes.first(where: { $0.name == match.route }), route.kind == .universal, !route.exclude else {
            if let imported = await importedLinkPage(request, context, domain: domain) { return imported }
            return pages.messagePage(.notFound, "Not found", "Nothing here.")
        }
        let settings = configuration.landingPages[route.name]
        let deepLink = pages.appLink(for: match, path: request.uri.path, query: request.uri.query)
        func fill(_ template: String?) -> String? {
            guard var text = template else { return nil }
            for (name, value) in match.parameters { text = text.replacingOccurrences(of: "{\(name)}", with: value.text) }
            return text
        }
        // The page's own URL is the route's canonical one: parameters no route reads (an ad
        // network's, iOS 18's AdAttributionKit key) are not repeated in it.
        var landing = pages.basePage(pageURL: configuration.router.url(route: match.route, parameters: match.parameters) ?? url)
        landing.title = fill(settings?.title) ?? configuration.defaultTitle
        landing.description = fill(settings?.description) ?? configuration.defaultDescription
        landing.deepLink = deepLink.flatMap(pages.allowedDeepLink)
        // A pairing (or an embedded link) that leads to an https link of this very domain is no
        // button iOS would open the app with.
        if let d = landing.deepLink, LandingPages.isWeb(d) { landing.appButton = .some(pages.appButton(for: d).flatMap(pages.allowedDeepLink)) }
        let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
        let inApp = LandingPages.inAppBrowser(audience, userAgent: request.headers[.userAgent])
        // A claim hands its parameters to the app at first launch: none for a link that embeds a
        // URL the page itself would not offer (`/i/https://elsewhere.example/…`).
        let embeddedAllowed = match.parameters.values.compactMap(LandingPages.embeddedURL).allSatisfy { pages.allowedDeepLink($0) != nil }
        if request.method == .get, embeddedAllowed,
           claims.offersClaim(audience, preview: LandingPages.isPreview(userAgent: request.headers[.userAgent]) { request.headers[$0] }) {
            // A phone's visit: with a claim token, so the page is this visitor's alone. A page that
            // carries the app link itself hands the app the route of that link, as a mapped page does.
            var claimRoute = settings?.appRoute ?? route.name
            var claimParameters = match.parameters.mapValues(\.text)
            if settings?.appRoute == nil, let embedded = landing.deepLink, match.parameters.values.contains(where: { LandingPages.embeddedURL($0) == embedded }),
               let inner = configuration.router.route(embedded).match {
                claimRoute = inner.route
                claimParameters = inner.parameters.mapValues(\.text)
            }
            landing = await claims.withClaim(landing, audience: audience, code: nil, route: claimRoute,
                                      parameters: claimParameters, address: { addresses.address(request, context) }).page
            return pages.htmlResponse(.ok, await pages.pageBody(landing, for: audience, inApp: inApp), cache: "private, no-store")
        }
        return pages.htmlResponse(.ok, await pages.pageBody(landing, for: audience, inApp: inApp), cache: "public, max-age=300")
    }


    /// `target` with the visited URL's query added to its own (before any fragment), as the
    /// shorteners links are imported from hand it on (Shlink's `forwardQuery`, on by default):
    /// `/promo?utm_source=mail` → `https://example.org/deal?id=1&utm_source=mail`. Checked as a
    /// link's web page is; a result that would not pass is `target` alone.
    static func forwarding(_ query: Substring?, to target: String, pages: LandingPages) -> String {
        guard let query, !query.isEmpty else { return target }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts[0])
        let joined = base + (base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?") + query
            + (parts.count > 1 ? "#" + parts[1] : "")
        return pages.allowedURL(joined, "webURL") ?? target
    }

    /// A link imported from Firebase Dynamic Links keeps its short link's path (`/abc`, or
    /// `/invite/abc` under a URL prefix of the domain's): such a path that no route takes is
    /// looked up as the domain's imported link.
    func importedLinkPage(_ request: Request, _ context: ServiceContext, domain: Int) async -> Response? {
        let path = request.uri.path
        let prefixed = routeDomains[domain].pages.configuration.fdlPrefixes.lazy.compactMap { $0.path.isEmpty ? nil : $0.code(in: path) }.first
        guard let code = prefixed ?? (path.utf8.count > 1 && path.hasPrefix("/") && !path.dropFirst().contains("/") ? String(path.dropFirst()) : nil),
              pages.input.isStoredCode(code) else { return nil }
        let key = domains.key(code: code, domain: domain)
        guard let link = try? await hot.link(key), link.kind.keepsItsPath else { return nil }
        let landing = LandingRequest(code: key, method: request.method, fields: request.headers, query: request.uri.query.map { Substring($0) },
                                     countryHeader: countryHeader)
        return await page(landing, laneDeclined: false, address: { addresses.address(request, context) })
    }

    /// What a query the form hands back may hold as it is: a query's characters and the `%` of
    /// escapes already made.
    static let queryCharacters = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "%"))

    /// The most a password form's body may have: a password (128 characters, up to 4 bytes each,
    /// percent-encoded) and the visited query.
    static let largestPasswordForm = 8 << 10

    /// POST `/i/{code}`: a protected link's password, from its form. Tries are limited per client
    /// network and per link before anything is hashed (429 with Retry-After); the check runs on
    /// the password thread (``LinkPasswords``). A wrong password is the form again (403) saying
    /// so; the right one is a 303 to the link's page (with the query it was visited with) and a
    /// cookie, signed and good for a day, that opens this link alone. The password is never
    /// logged or answered.
    func unlock(_ request: Request, _ context: ServiceContext) async -> Response {
        // ``DomainGuard`` has answered a host no domain names.
        guard let key = key(context.parameters.get("code") ?? "", authority: request.head.authority), let serving = serving(key),
              serving.pages.input.isStoredCode(LinkKey.code(of: key)) else {
            return pages.messagePage(.notFound, "Link not found", "This link does not exist.")
        }
        let pages = serving.pages
        let text: String
        do {
            let body = try await request.body.collect(upTo: Self.largestPasswordForm)
            text = String(buffer: body)
        } catch {
            return pages.messagePage(.contentTooLarge, "Too much sent", "A password form has at most \(Self.largestPasswordForm) bytes.")
        }
        guard let form = AdminForm(text) else {
            return pages.messagePage(.badRequest, "Not a form", "The password did not arrive as a form sends it.")
        }
        let link: StoredLink?
        do { link = try await hot.link(key) } catch { return pages.storeFailurePage(error, logger: serving.claims.logger) }
        guard let link else { return pages.messagePage(.notFound, "Link not found", "This link does not exist or was deleted.") }
        // The visited query goes back with the form: only a query (never a path or host), with
        // anything a query may not hold percent-encoded (a `#`, a space, a quote); up to 2,048
        // characters, as the form carries it.
        let query = form["query"].flatMap { q in q.count <= LandingPages.longestCarriedQuery ? q.addingPercentEncoding(withAllowedCharacters: Self.queryCharacters) : nil }
        let location = LandingPages.path(of: pages.answers.pageURL(of: link)) + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        guard let stored = link.passwordHash else {
            // Not (or no longer) protected: its page opens without a password.
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        }
        let network = VisitBudget.network(addresses.address(request, context))
        if let wait = passwords.perAddress.take(network) ?? passwords.perLink.take(key) {
            var response = pages.messagePage(.tooManyRequests, "Too many tries", "Wait \(Int(wait.rounded(.up))) seconds before trying another password.")
            response.headers[.retryAfter] = String(max(1, Int(wait.rounded(.up))))
            return response
        }
        let given = form["password"] ?? ""
        let right: Bool
        // No password can hold a control character (``LinkPassword/problem(_:)``): such a try is
        // wrong without being hashed.
        do { right = LinkPassword.problem(given) == nil ? try await passwords.verify(given, against: stored) : false } catch let error as APIError {
            var response = pages.messagePage(error.status, "Try again shortly", error.message)
            if let after = error.retryAfter { response.headers[.retryAfter] = String(after) }
            return response
        } catch {
            return pages.messagePage(.serviceUnavailable, "Try again shortly", "The password could not be checked.")
        }
        guard right else {
            return pages.passwordPage(code: key, query: query.map { Substring($0) }, problem: "That password is not right.", status: .forbidden)
        }
        let expires = now().addingTimeInterval(LinkPassword.unlockLifetime)
        let cookie = "\(LinkPassword.cookieName(forKey: key))=\(LinkPassword.unlockValue(key: key, stored: stored, expires: expires)); Path=/; "
            + "Max-Age=\(Int(LinkPassword.unlockLifetime)); HttpOnly; SameSite=Lax"
            + (request.cameOverHTTPS(publicURL: pages.configuration.publicURL) ? "; Secure" : "")
        return Response(status: .seeOther, headers: [.location: location, .setCookie: cookie, .cacheControl: "no-store"])
    }
}
