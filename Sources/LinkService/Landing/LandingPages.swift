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
import SwitchyardCore

/// The landing pages' making: a page from a stored link, a route's match or a Firebase long
/// link, with every URL checked against the configuration; what "Open in the app" opens; the
/// message pages; and the render, on its own thread (``PageRenders``), never an event loop.
struct LandingPages: Sendable {
    let configuration: ServiceConfiguration
    let input: LinkInput
    let answers: LinkAnswers
    /// What every landing page starts from: the configured defaults, each checked once, at start.
    let defaults: LandingPage
    /// Where an ended link without an `expiredURL` of its own sends visitors
    /// (`landing.expiredURL`, checked at start as a link's would be); nil: the 410 page.
    let expiredURL: String?
    /// The thread pages are rendered on.
    let renders: PageRenders

    init(answers: LinkAnswers, logger: Logger) {
        configuration = answers.configuration
        input = answers.input
        self.answers = answers
        defaults = Self.checkedDefaults(answers.configuration, input: answers.input, logger: logger)
        expiredURL = Self.checkedDefault(answers.configuration.expiredURL, "landing.expiredURL", "expiredURL", input: answers.input, logger: logger)
        renders = PageRenders()
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
        if link.kind.keepsItsPath, let d = page.deepLink, let app = appLink(forPageURL: d) { page.deepLink = app }
        // A web route's link (https, maybe of this very domain) opens the app only through its app
        // route or another domain; else the page has no app button (the API warned when it was
        // made). The link itself stays what a deferred claim hands the app.
        if let d = page.deepLink, d.lowercased().hasPrefix("http") { page.appButton = .some(appButton(for: d).flatMap(allowedDeepLink)) }
        // A stored URL the configuration no longer allows falls back to the configured one.
        page.appStoreURL = link.appStoreURL.flatMap { allowedURL($0, "appStoreURL") } ?? page.appStoreURL
        page.playStoreURL = link.playStoreURL.flatMap { allowedURL($0, "playStoreURL") } ?? page.playStoreURL
        page.webURL = link.webURL.flatMap { allowedURL($0, "webURL") } ?? page.webURL
        if configuration.campaignParameters, !link.campaign.isEmpty {
            page.webURL = page.webURL.map { CampaignURLs.web($0, link.campaign) }
            page.playStoreURL = page.playStoreURL.map { CampaignURLs.play($0, link.campaign) }
            page.appStoreURL = page.appStoreURL.map { CampaignURLs.appStore($0, link.campaign, providerToken: configuration.appStoreProviderToken) }
        }
        return page
    }

    /// The 410 page of an expired or used-up link for a person: the landing page without the app
    /// link (nor the link's own title, description or image, which a used-up invite keeps to
    /// itself), but with the web page and the store buttons the link had, so there is a way on.
    /// An ended link's answer: a 302 to its `expiredURL`, or the domain's; else the 410 page
    /// with the way on it had (a preview, crawler or HEAD: the short message page).
    func endedPage(_ link: StoredLink, _ end: LinkEnd, _ audience: LandingPage.Audience, fullPage: Bool) async -> Response {
        // Never to the link's own page (it would send the browser round until it gives up).
        if let target = Self.endedTarget(link, input: input, domainDefault: expiredURL), target != answers.pageURL(of: link) {
            return Response(status: .found, headers: [.location: target, .cacheControl: "no-store"])
        }
        let (title, message) = switch end {
        case .expired: ("Link expired", "This link has expired.")
        case .usedUp: ("Link used up", "This link has been used the maximum number of times.")
        }
        return fullPage ? await gonePage(link, audience, title: title, message: message) : messagePage(.gone, title, message)
    }

    /// Where an ended link sends visitors: its own `expiredURL`, else `domainDefault` (the
    /// domain's `landing.expiredURL`), each checked again as a link's would be (the
    /// configuration's hosts may have changed since it was stored); nil: nowhere, the 410 page.
    static func endedTarget(_ link: StoredLink, input: LinkInput, domainDefault: String?) -> String? {
        let check = { (url: String) in try? input.checkFallback(url, field: "expiredURL", requireAllowedHost: true) }
        return link.expiredURL.flatMap(check) ?? domainDefault.flatMap(check)
    }

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

    /// A page with the configured defaults (``defaults``) at `pageURL`.
    func basePage(pageURL: String) -> LandingPage {
        var page = defaults
        page.pageURL = pageURL
        return page
    }

    /// A configured URL checked as a link's own `field` would be; one the checks refuse (a web
    /// page on a host `redirectHosts` does not allow) is left out and said once.
    static func checkedDefault(_ url: String?, _ key: String, _ field: String, requireHost: Bool = true, input: LinkInput, logger: Logger) -> String? {
        guard let url else { return nil }
        do { return try input.checkFallback(url, field: field, requireAllowedHost: requireHost) } catch {
            logger.warning("a landing default is left out of every page", metadata: ["key": "\(key)", "reason": "\(error.message)"])
            return nil
        }
    }

    /// The configured landing defaults, each checked as a link's own would be (``checkedDefault(_:_:_:requireHost:input:logger:)``).
    static func checkedDefaults(_ configuration: ServiceConfiguration, input: LinkInput, logger: Logger) -> LandingPage {
        func checked(_ url: String?, _ key: String, _ field: String, requireHost: Bool = true) -> String? {
            checkedDefault(url, key, field, requireHost: requireHost, input: input, logger: logger)
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

    /// The 503 page while the store fails, the failure logged with its statement (a page has no
    /// API error to carry it to the request's log line).
    func storeFailurePage(_ error: StoreError, logger: Logger) -> Response {
        logger.error("storage failed", metadata: error.logMetadata)
        return messagePage(.serviceUnavailable, "Try again shortly", "The link service cannot reach its database.")
    }

    /// The longest visited query a protected link's form carries back to its page, in characters.
    static let longestCarriedQuery = 2048

    /// A protected link's form (``PasswordView``): nothing of the link, not cached, not indexed.
    /// `key` is the link's stored key; `query`, the visited URL's, posted back with the password.
    func passwordPage(code key: String, query: Substring?, problem: String?, status: HTTPResponse.Status) -> Response {
        let view = PasswordView(action: PageURL(checked: "/i/" + LinkKey.code(of: key)),
                                query: query.flatMap { $0.isEmpty || $0.count > Self.longestCarriedQuery ? nil : String($0) }, problem: problem, status: Int(status.code))
        var response = htmlResponse(status, ByteBuffer(string: configuration.pageTemplates.render(view)), cache: "no-store")
        response.headers[HTTPField.Name("X-Robots-Tag")!] = "noindex, nofollow"
        return response
    }

    /// The path of a page URL of this service (`https://host/i/abc` → `/i/abc`): where a redirect
    /// that stays on the host asked goes.
    static func path(of url: String) -> String {
        guard let path = URLComponents(string: url)?.percentEncodedPath, path.hasPrefix("/") else { return "/" }
        return path
    }

    func messagePage(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
        let html = configuration.pageTemplates.render(MessageView(title: title, message: message, status: Int(status.code)))
        var response = htmlResponse(status, ByteBuffer(string: html), cache: "no-store")
        if status == .serviceUnavailable { response.headers[.retryAfter] = String(APIError.retryAfterSeconds) }
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
