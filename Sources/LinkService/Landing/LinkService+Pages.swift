import LinkConfiguration
import LinkPages
import LinkStorage
import SwitchyardCore
import Foundation
import HTTPTypes
import Hummingbird
import LinkRouting
import Logging
import NIOCore
import Prometheus
import ResponseLane

extension LinkService {
    /// `/i/{code}`: the landing page of a stored link. Counts a click (GET only; a preview,
    /// crawler or prefetch is counted apart, never as a click or a use) and records the visit.
    /// A page in the hot cache is answered by `hotLinkPage` (on the lane, or first in the
    /// router's handler); this is the rest.
    var linkPageRoute: LaneRoute {
        LaneRoute("/i/{code}") { request in
            guard let code = request.parameter else { return nil }
            let fields = request.head.headerFields
            let userAgent = fields[.userAgent]
            // The address closure is written in place: bound to a local constant it would be a
            // heap context holding a copy of the whole service, made and freed on every page.
            return hotLinkPage(String(code), userAgent: userAgent, preview: Self.isPreview(userAgent: userAgent) { fields[$0] },
                               referer: fields[.referer],
                               address: { limits.addresses.address(forwardedFor: { fields[values: ClientAddresses.forwardedFor] }, peer: request.client) ?? "unknown" })
                .map { LaneRoute.Answer(status: .ok, fields: $0.0, body: $0.1) }
        }
    }

    /// The landing page of the stored link `code` (at `/i/{code}`, or at the path an imported
    /// Firebase short link had). `hotTried`: `hotLinkPage` already declined this request.
    func storedLinkPage(code: String, _ request: Request, _ context: ServiceContext, hotTried: Bool = false) async -> Response {
        let userAgent = request.headers[.userAgent]
        let preview = Self.isPreview(userAgent: userAgent) { request.headers[$0] }
        let address = { clientAddress(request, context) }
        if request.method == .get, !hotTried,
           let (fields, body) = hotLinkPage(code, userAgent: userAgent, preview: preview, referer: request.headers[.referer], address: address) {
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: body))
        }
        guard input.isStoredCode(code) else { return messagePage(.notFound, "Link not found", "This link does not exist.") }
        let link: StoredLink?
        do { link = try await hot.link(code) } catch {
            _ = storeFailure(error)
            return messagePage(.serviceUnavailable, "Try again shortly", "The link service cannot reach its database.")
        }
        guard let link else { return messagePage(.notFound, "Link not found", "This link does not exist or was deleted.") }
        let audience = LandingPage.Audience(userAgent: userAgent)
        if let e = link.expiresAt, e <= now() {
            return preview || request.method != .get ? messagePage(.gone, "Link expired", "This link has expired.")
                : await gonePage(link, audience, title: "Link expired", message: "This link has expired.")
        }
        let inApp = Self.inAppBrowser(audience, userAgent: userAgent)
        // A HEAD uses nothing up, and answers as a GET would for a link already used up.
        if request.method != .get, let max = link.maxUses, link.clicks >= max {
            return messagePage(.gone, "Link used up", "This link has been used the maximum number of times.")
        }
        if request.method == .get {
            let date = now()
            let visit = hot.visit(code, platform: audience, at: date, bot: preview, referer: request.headers[.referer], address: address)
            // A link preview, crawler or prefetch gets the page with its preview tags, never a
            // use: but not the page of a link already used up.
            if preview, let max = link.maxUses, link.clicks >= max { return messagePage(.gone, "Link used up", "This link has been used the maximum number of times.") }
            if !preview && link.maxUses != nil {
                // Limited links are counted in the database at once, atomically, with their record.
                do {
                    switch try await uses.countUse(code, audience, at: date, visit: visit, address: address) {
                    case .counted: break
                    case .exhausted: return await gonePage(link, audience, title: "Link used up", message: "This link has been used the maximum number of times.")
                    case .missing: return messagePage(.notFound, "Link not found", "This link does not exist or was deleted.")
                    }
                } catch {
                    _ = storeFailure(error)
                    return messagePage(.serviceUnavailable, "Try again shortly", "The link service cannot reach its database.")
                }
            } else {
                uses.countLater(code, audience, at: date, preview: preview, visit: visit, address: address)
            }
        }
        var body: ByteBuffer
        if preview && link.maxUses != nil {
            // A use-limited link's app link is its secret (an invite code): a preview or crawler
            // gets the title, description and image, never the link it did not use up.
            var landing = page(for: link)
            landing.deepLink = nil
            body = await pageBody(landing, for: audience, inApp: inApp)
        } else if request.method == .get, offersClaim(audience, preview: preview) {
            // A phone's visit: a page of its own, with a claim token for a deferred deep link. A
            // signed token's page is kept with a stand-in for the token: the next visit's page is
            // that page with its own token (`hotLinkPage`).
            let base = page(for: link)
            let (landing, signed) = await withClaim(base, audience: audience, code: code, linkCreated: link.createdAt, route: link.route,
                                                    parameters: Dictionary(link.parameters, uniquingKeysWith: { first, _ in first }),
                                                    address: { clientAddress(request, context) })
            body = await pageBody(landing, for: audience, inApp: inApp)
            // A page with no claim at all (the visitor was past the claim budget) is the same for
            // everyone past theirs: kept for the lane to serve them.
            if signed == nil && landing.claimURL == nil && inApp == nil { hot.remember(code, audience, body) }
            if let signed {
                if let claimPage = HotLinks.ClaimPage(body) {
                    if inApp == nil { hot.rememberClaimPage(code, audience, claimPage) }
                    body = claimPage.with(token: signed)
                } else {
                    // A template that does not show the token as written: rendered with the token itself.
                    body = await pageBody(Self.carrying(signed, base, audience: audience, publicURL: configuration.publicURL), for: audience, inApp: inApp)
                }
            }
        } else if inApp != nil {
            // Pages for in-app browsers are made each time; the cache holds the three common ones.
            body = await pageBody(page(for: link), for: audience, inApp: inApp)
        } else if let cached = hot.page(code, audience) { body = cached } else {
            body = await pageBody(page(for: link), for: audience, inApp: nil)
            hot.remember(code, audience, body)
        }
        return htmlResponse(.ok, body, cache: "private, no-store")
    }

    /// GET `/i/{code}` answered from memory — the link is in the hot cache with a page rendered
    /// for this visitor's platform, has no use limit and has not expired — with the click
    /// counted and the visit recorded; nil when the full path (the store, a render, an atomic
    /// use count) is needed. A phone's page gets a signed claim token of its own, written into
    /// the page kept with a stand-in.
    /// `address` (the client's) is asked only when addresses are kept, or for a claim's rate limit.
    func hotLinkPage(_ code: String, userAgent: String?, preview: Bool, referer: String?, address: () -> String?) -> (HTTPFields, ByteBuffer)? {
        guard input.isStoredCode(code) else { return nil }
        let audience = LandingPage.Audience(userAgent: userAgent)
        // An in-app browser gets its own buttons: a page of its own, made on the full path.
        guard Self.inAppBrowser(audience, userAgent: userAgent) == nil else { return nil }
        let date = now()
        let page: ByteBuffer
        if offersClaim(audience, preview: preview) {
            // Shared claim budgets (PostgreSQL) need a round trip: the router's path takes them.
            guard !configuration.deferred.probabilisticMatching, !store.sharesRateLimits, let key = claimKeys.known?.first,
                  let (claimPage, created) = hot.servableClaimPage(code, audience, now: date) else { return nil }
            if limits.claimOnThisNode(address()) {
                guard let token = SignedClaimToken(code: code, created: created, platform: audience.rawValue, issuedAt: date).token(signedWith: key) else { return nil }
                metrics.claimsIssued.increment()
                page = claimPage.with(token: token)
            } else if let plain = hot.servablePage(code, audience, now: date) {
                // Past the visitor's claim budget: the page without a token, as the full path
                // made it for an earlier visitor past theirs.
                metrics.claimsRefused.increment()
                page = plain
            } else {
                return nil
            }
        } else {
            guard let cached = hot.servablePage(code, audience, now: date) else { return nil }
            page = cached
        }
        let visit = hot.visit(code, platform: audience, at: date, bot: preview, referer: referer, address: address)
        uses.countLater(code, audience, at: date, preview: preview, visit: visit, address: address)
        return (Self.htmlHeaders(cache: "private, no-store", length: page.readableBytes), page)
    }

    /// The in-app browser a phone's visitor is in (`Instagram`), for the page's way out; nil on a
    /// desktop, where no app opens anyway.
    static func inAppBrowser(_ audience: LandingPage.Audience, userAgent: String?) -> String? {
        audience == .desktop ? nil : InAppBrowsers.standard.browser(userAgent: userAgent)?.name
    }

    /// Whether a landing-page request is a link preview, a crawler or a prefetch
    /// (`PreviewAgents.standard`); `header` reads a request header.
    static func isPreview(userAgent: String?, header: (HTTPField.Name) -> String?) -> Bool {
        PreviewAgents.standard.isPreview(userAgent: userAgent) { name in prefetchHeaderNames[name].flatMap(header) }
    }

    /// The prefetch headers' names as HTTP field names, made once.
    static let prefetchHeaderNames: [String: HTTPField.Name] = Dictionary(
        PreviewAgents.standard.prefetchHeaders.compactMap { h in HTTPField.Name(h.header).map { (h.header, $0) } }) { first, _ in first }

    /// Every other GET: the landing page of a universal-link route, or 404.
    func routePage(_ request: Request, _ context: ServiceContext) async -> Response {
        // Under /api/ an unknown path is an API error, in JSON like every other.
        if request.uri.path.hasPrefix("/api/") || request.uri.path == "/api" {
            return APIError(.notFound, .notFound, "no API endpoint at \(request.uri.path)").response
        }
        guard let host = configuration.router.hosts.first else { return messagePage(.notFound, "Not found", "Nothing here.") }
        var url = "https://" + host + request.uri.path
        if let q = request.uri.query, !q.isEmpty { url += "?" + q }
        if request.uri.path == "/", request.uri.queryParameters["link"] != nil { return await firebaseLongLink(request, context) }
        guard let match = configuration.router.route(url).match,
              let route = configuration.router.routes.first(where: { $0.name == match.route }), route.kind == .universal, !route.exclude else {
            if let imported = await importedLinkPage(request, context) { return imported }
            return messagePage(.notFound, "Not found", "Nothing here.")
        }
        let settings = configuration.landingPages[route.name]
        let deepLink = appLink(for: match, path: request.uri.path, query: request.uri.query)
        func fill(_ template: String?) -> String? {
            guard var text = template else { return nil }
            for (name, value) in match.parameters { text = text.replacingOccurrences(of: "{\(name)}", with: value.text) }
            return text
        }
        // The page's own URL is the route's canonical one: parameters no route reads (an ad
        // network's, iOS 18's AdAttributionKit key) are not repeated in it.
        var landing = basePage(pageURL: configuration.router.url(route: match.route, parameters: match.parameters) ?? url)
        landing.title = fill(settings?.title) ?? configuration.defaultTitle
        landing.description = fill(settings?.description) ?? configuration.defaultDescription
        landing.deepLink = deepLink.flatMap(allowedDeepLink)
        // A pairing (or an embedded link) that leads to an https link of this very domain is no
        // button iOS would open the app with.
        if let d = landing.deepLink, Self.isWeb(d) { landing.appButton = .some(appButton(for: d).flatMap(allowedDeepLink)) }
        let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
        let inApp = Self.inAppBrowser(audience, userAgent: request.headers[.userAgent])
        // A claim hands its parameters to the app at first launch: none for a link that embeds a
        // URL the page itself would not offer (`/i/https://elsewhere.example/…`).
        let embeddedAllowed = match.parameters.values.compactMap(Self.embeddedURL).allSatisfy { allowedDeepLink($0) != nil }
        if request.method == .get, embeddedAllowed,
           offersClaim(audience, preview: Self.isPreview(userAgent: request.headers[.userAgent]) { request.headers[$0] }) {
            // A phone's visit: with a claim token, so the page is this visitor's alone. A page that
            // carries the app link itself hands the app the route of that link, as a mapped page does.
            var claimRoute = settings?.appRoute ?? route.name
            var claimParameters = match.parameters.mapValues(\.text)
            if settings?.appRoute == nil, let embedded = landing.deepLink, match.parameters.values.contains(where: { Self.embeddedURL($0) == embedded }),
               let inner = configuration.router.route(embedded).match {
                claimRoute = inner.route
                claimParameters = inner.parameters.mapValues(\.text)
            }
            landing = await withClaim(landing, audience: audience, code: nil, route: claimRoute,
                                      parameters: claimParameters, address: { clientAddress(request, context) }).page
            return htmlResponse(.ok, await pageBody(landing, for: audience, inApp: inApp), cache: "private, no-store")
        }
        return htmlResponse(.ok, await pageBody(landing, for: audience, inApp: inApp), cache: "public, max-age=300")
    }

    /// The app link for a page of a universal-link route (`match`, at `path` and `query`):
    ///  - a link that carries the app link itself (`/i/plur://join-community?…`): that link, which
    ///    the caller offers only when it uses one of the configuration's app schemes;
    ///  - a route `landing.pages` maps to an app route: that route's URL, with the parameters it takes;
    ///  - otherwise the same path and query under the app's scheme, when the route table routes
    ///    that link (the app reads it with the same table); else none: a button the app could not
    ///    route would open it to nothing.
    func appLink(for match: RouteMatch, path: String, query: String?) -> String? {
        Self.appLink(for: match, path: path, query: query, configuration: configuration)
    }

    static func appLink(for match: RouteMatch, path: String, query: String?, configuration: ServiceConfiguration) -> String? {
        let settings = configuration.landingPages[match.route]
        if settings?.appRoute == nil, let embedded = match.parameters.values.lazy.compactMap(Self.embeddedURL).first { return embedded }
        if let app = settings?.appRoute {
            let appRoute = configuration.router.routes.first(where: { $0.name == app })
            let wanted = Set(appRoute?.parameterNames ?? [])
            return configuration.router.url(route: app, parameters: match.parameters.filter { wanted.contains($0.key) })
        }
        guard let scheme = configuration.apple.lazy.compactMap(\.scheme).first else { return nil }
        let link = scheme + "://" + path.drop(while: { $0 == "/" }) + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        return configuration.router.route(link).match == nil ? nil : link
    }

    /// The app link for an https URL of this service's own hosts that a universal-link route
    /// takes (see `appLink(for:path:query:)`), checked as every deep link is; nil for any other URL.
    /// A page's "Open in the app" must not be a universal link of the page's own domain: iOS
    /// opens such a tap in the browser, not in the app.
    func appLink(forPageURL url: String) -> String? {
        guard let match = configuration.router.route(url).match,
              let route = configuration.router.routes.first(where: { $0.name == match.route }), route.kind == .universal, !route.exclude,
              let parts = URLComponents(string: url) else { return nil }
        // Only what the configuration says (a landing.pages mapping, an embedded app link): the
        // same path under the app's scheme would be made up for a path such as a stored link's
        // `/i/{code}`, which no app route takes.
        guard configuration.landingPages[match.route]?.appRoute != nil || match.parameters.values.contains(where: { Self.embeddedURL($0) != nil }) else { return nil }
        return appLink(for: match, path: parts.percentEncodedPath, query: parts.percentEncodedQuery).flatMap(allowedDeepLink)
    }

    /// What a page's "Open in the app" button opens for a link whose target is `target`: a
    /// custom-scheme link as it is; for an https link a route of the table takes, the app route
    /// `landing.pages` maps it to (or the link it embeds), else the route of the app's scheme
    /// with the same path when the table has one, else the link itself when it is on another
    /// host than the page's, else the same link on another of the table's hosts. Nil when none
    /// of these exists: iOS keeps a tap on a link of the page's own domain in Safari, so such a
    /// button would never open the app.
    func appButton(for target: String) -> String? {
        Self.appButton(for: target, configuration: configuration)
    }

    static func appButton(for target: String, configuration: ServiceConfiguration) -> String? {
        guard isWeb(target), let parts = URLComponents(string: target) else { return target }
        let router = configuration.router
        var candidate = target
        if let match = router.route(target).match, router.routes[match.index].kind == .universal,
           let app = appLink(for: match, path: parts.percentEncodedPath, query: parts.percentEncodedQuery, configuration: configuration) {
            candidate = app
        }
        guard isWeb(candidate), let host = BrowserURL.host(candidate), let shown = URLComponents(string: candidate) else { return candidate }
        // A web page of another site is the link's own business; a link of the app's domains
        // opens the app only when a route (not excluded) takes it, tapped from another domain.
        guard router.hosts.contains(host) || host == configuration.publicHost else { return candidate }
        guard let match = router.route(candidate).match, !router.routes[match.index].exclude else { return nil }
        if !BrowserURL.sameDomain(host, configuration.publicHost) { return candidate }
        // Another name of the same host (`links.example.` with its dot) is the same domain to
        // iOS, and an address is no universal-link domain at all.
        guard let other = router.hosts.first(where: { !BrowserURL.sameDomain($0, configuration.publicHost) && $0.contains(where: \.isLetter) && !$0.contains(":") }) else { return nil }
        return "https://" + other + shown.percentEncodedPath + (shown.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    static func isWeb(_ url: String) -> Bool {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        return scheme == "https" || scheme == "http"
    }

    /// Why a link whose target is `target` gets no "Open in the app" button (see
    /// ``appButton(for:)``), for the API's `warnings` and the dashboard; nil when it gets one.
    static func appButtonWarning(for target: String?, route: String?, configuration: ServiceConfiguration) -> String? {
        guard let target, appButton(for: target, configuration: configuration) == nil else { return nil }
        let name = route.map { "route \($0)" } ?? "this link"
        if let route, let paired = configuration.landingPages[route]?.appRoute {
            return "\(name) opens \(target); landing.pages pairs it with \(paired), which leads to a link of the page's own domain (\(configuration.publicHost)) or none: iOS keeps such a tap in Safari, so the page shows no \"Open in the app\" button; pair it with a route of the app's scheme"
        }
        if let match = configuration.router.route(target).match, configuration.router.routes[match.index].exclude {
            return "\(name) opens \(target), which the excluded route \(match.route) keeps in the browser: the page shows no \"Open in the app\" button"
        }
        return "\(name) opens \(target), a link of the page's own domain (\(configuration.publicHost)) with no app route paired: iOS keeps a tap on it in Safari, so the page shows no \"Open in the app\" button; pair the route with an app route of the app's scheme (landing.pages: {\(route ?? "ROUTE"): {app: APP_ROUTE}}), give the app's scheme a route with the same path, or add the app's own domain to the route table's hosts"
    }

    /// The URL carried by a `{name:url}` parameter.
    static func embeddedURL(_ value: RouteValue) -> String? {
        if case .url(let url, _) = value { return url }
        return nil
    }

    /// The page for a stored link, with every URL re-checked against the configuration.
    func page(for link: StoredLink) -> LandingPage {
        var page = basePage(pageURL: answers.pageURL(of: link))
        page.qrImage = "/i/\(link.code)/qr.svg"
        page.title = link.title ?? configuration.defaultTitle
        page.description = link.description ?? configuration.defaultDescription
        page.image = link.imageURL.flatMap { allowedURL($0, "image", requireHost: false) } ?? page.image
        page.deepLink = answers.deepLink(of: link).flatMap(allowedDeepLink)
        // A link imported from Firebase keeps `link`, an https URL: its page opens the app with the
        // app link a route of this service gives it, as a long link's page does.
        if link.kind == "fdl", let d = page.deepLink, let app = appLink(forPageURL: d) { page.deepLink = app }
        // A web route's link (https, maybe of this very domain) opens the app only through its app
        // route or another domain; else the page has no app button (the API warned when it was
        // made). The link itself stays what a deferred claim hands the app.
        if let d = page.deepLink, d.lowercased().hasPrefix("http") { page.appButton = .some(appButton(for: d).flatMap(allowedDeepLink)) }
        // A stored URL the configuration no longer allows falls back to the configured one.
        page.appStoreURL = link.appStoreURL.flatMap { allowedURL($0, "appStoreURL") } ?? page.appStoreURL
        page.playStoreURL = link.playStoreURL.flatMap { allowedURL($0, "playStoreURL") } ?? page.playStoreURL
        page.webURL = link.webURL.flatMap { allowedURL($0, "webURL") } ?? page.webURL
        return page
    }

    /// The 410 page of an expired or used-up link for a person: the landing page without the app
    /// link (nor the link's own title, description or image, which a used-up invite keeps to
    /// itself), but with the web page and the store buttons the link had, so there is a way on.
    func gonePage(_ link: StoredLink, _ audience: LandingPage.Audience, title: String, message: String) async -> Response {
        var page = page(for: link)
        let base = basePage(pageURL: page.pageURL)
        page.deepLink = nil
        page.qrImage = nil
        page.title = title
        page.description = message
        page.image = base.image
        return htmlResponse(.gone, await pageBody(page, for: audience, inApp: nil), cache: "no-store")
    }

    /// A page with the configured defaults (``landingDefaults``) at `pageURL`.
    func basePage(pageURL: String) -> LandingPage {
        var page = landingDefaults
        page.pageURL = pageURL
        return page
    }

    /// The configured landing defaults, each checked as a link's own would be; one the checks
    /// refuse (a web page on a host `redirectHosts` does not allow) is left out and said once.
    static func checkedLandingDefaults(_ configuration: ServiceConfiguration, input: LinkInput, logger: Logger) -> LandingPage {
        func checked(_ url: String?, _ key: String, _ field: String, requireHost: Bool = true) -> String? {
            guard let url else { return nil }
            do { return try input.checkFallback(url, field: field, requireAllowedHost: requireHost) } catch {
                logger.warning("a landing default is left out of every page", metadata: ["key": "\(key)", "reason": "\(error.message)"])
                return nil
            }
        }
        return LandingPage(
            title: configuration.defaultTitle, description: configuration.defaultDescription,
            image: checked(configuration.defaultImage, "landing.image", "image", requireHost: false), pageURL: "", deepLink: nil,
            appStoreURL: checked(configuration.appStoreURL, "apple[].appStoreId", "appStoreURL"),
            playStoreURL: checked(configuration.playStoreURL, "android[].package", "playStoreURL"),
            webURL: checked(configuration.defaultWebURL, "landing.webURL", "webURL"),
            appStoreID: configuration.apple.lazy.compactMap(\.appStoreID).first,
            icon: checked(configuration.icon, "landing.icon", "icon", requireHost: false),
            androidPackage: configuration.android.first?.package)
    }

    func allowedDeepLink(_ url: String) -> String? {
        try? input.checkDeepLink(url, field: "deepLink")
    }

    func allowedURL(_ url: String, _ field: String, requireHost: Bool = true) -> String? {
        try? input.checkFallback(url, field: field, requireAllowedHost: requireHost)
    }

    func messagePage(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
        let html = configuration.pageTemplates.render(.message, ["title": title, "message": message, "status": Int(status.code)])
        var response = htmlResponse(status, ByteBuffer(string: html), cache: "no-store")
        if status == .serviceUnavailable { response.headers[.retryAfter] = String(Self.retryAfterSeconds) }
        return response
    }

    /// A landing page for this visitor, made from the configuration's templates.
    /// Rendered on the render thread (``PageRenders``), never on the event loop.
    func pageBody(_ page: LandingPage, for audience: LandingPage.Audience, inApp: String?) async -> ByteBuffer {
        await renders.body(page, for: audience, inApp: inApp, templates: configuration.pageTemplates)
    }

    func htmlResponse(_ status: HTTPResponse.Status, _ body: ByteBuffer, cache: String) -> Response {
        var headers = Self.htmlHeaders(cache: cache, length: body.readableBytes)
        // A page a cache may keep differs by platform and by whether a person or a fetcher asked:
        // a CDN must not hand the desktop's page (or a crawler's) to a phone.
        if cache.hasPrefix("public") { headers[.vary] = Self.pageVary }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// What a cacheable page depends on: the User-Agent and the prefetch headers.
    static let pageVary = (["User-Agent"] + PreviewAgents.standard.prefetchHeaders.map(\.header)).joined(separator: ", ")

    static func htmlHeaders(cache: String, length: Int) -> HTTPFields {
        [.contentType: "text/html; charset=utf-8", .cacheControl: cache, .contentLength: String(length),
         contentTypeOptions: "nosniff", referrerPolicy: "no-referrer"]
    }

    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
