import LinkAudience
import LinkCache
import LinkRequests
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkStorage
import NIOCore
import LinkPages
import LinkRouting
import Logging
import Prometheus
import SwitchyardCore

/// The dashboard at `/admin`: sign in with an API token (`links:read` to look, `links:write` to
/// change), then list, search, create, edit and delete links and see how each one is visited.
///
/// A sign-in is a row in `admin_sessions` (only the SHA-256 of the cookie is stored) that lasts
/// `adminSessionLifetime`; every request checks that its token is still valid, so revoking the
/// token ends its sessions. The cookie is `HttpOnly`, `SameSite=Strict`, limited to `/admin`, and
/// `Secure` when the request came over https. Every form that changes something carries the
/// session's own form token, and a request another site started (`Sec-Fetch-Site`, `Origin`) is
/// refused. Pages run no script and load nothing from elsewhere (a strict Content-Security-Policy).
struct DashboardController: Sendable {
    let store: LinkStore
    let hot: HotLinks
    let answers: LinkAnswers
    let newLinks: NewLinks
    let tokens: TokenVerifier
    let limits: RequestLimits
    let bodies: RequestBodies
    /// Bodies of the "Create several" form, up to `service.maximumBulkBodyBytes`.
    let bulkBodies: RequestBodies
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    /// The domains: the list shows one at a time, and a link of another domain than the first is
    /// `name:code` in the dashboard's paths.
    let domains: LinkDomains

    var configuration: ServiceConfiguration { answers.configuration }
    var input: LinkInput { answers.input }

    static let adminCookie = "sy_admin"
    static let adminSessionLifetime: TimeInterval = 8 * 3600
    /// Links a list or search shows.
    static let adminListLimit = 100
    /// Days the visits chart covers, ending today.
    static let adminChartDays = 30

    struct AdminUser {
        var token: StoredToken
        var session: AdminSession
        var idHash: String
        var canWrite: Bool
        var header: DashboardUser { DashboardUser(name: token.name, scopes: token.scopes.joined(separator: " "), csrf: session.csrf) }
    }

    /// The link fields the forms edit, in page order: name, label, hint.
    static let adminFields: [(name: String, label: String, hint: String)] = [
        ("deepLink", "Deep link", "a URL with one of the app's schemes — or give a route instead"),
        ("route", "Route", "a route of the configuration, with its parameters below — or give a deep link instead"),
        ("parameters", "Route parameters", "one name=value per line"),
        ("title", "Title", "shown on the page and in link previews"),
        ("description", "Description", ""),
        ("image", "Preview image URL", ""),
        ("webURL", "Web fallback", "where visitors without the app go (a configured host)"),
        ("appStoreURL", "App Store URL", ""),
        ("playStoreURL", "Play Store URL", ""),
        ("expiresAt", "Expires at", "a day (2027-01-31: the link works through that day, UTC) or a time (2027-01-31T12:00:00Z); empty: never"),
        ("maxUses", "Maximum uses", "empty: unlimited"),
        ("expiredURL", "Once ended, go to", "where visitors go once it has expired or is used up; empty: the domain's landing.expiredURL, else a page that says so"),
    ]

    func addRoutes(to router: Router<ServiceContext>) {
        // Every dashboard error, the store's included, is a page of the dashboard's own.
        let admin = router.group().add(middleware: DashboardErrors(metrics: metrics))
        admin.get("/admin") { request, context in try await adminPage(request, context) { user, _ in try await adminList(request, user) } }
        admin.get("/admin/sign-in") { request, context in try await adminSignInPage(request, context) }
        admin.post("/admin/sign-in") { request, context in try await adminSignIn(request, context) }
        admin.post("/admin/sign-out") { request, context in try await adminSignOut(request, context) }
        admin.get("/admin/new") { request, context in
            try await adminPage(request, context) { user, _ in
                try adminNewForm(user, values: [:], errors: [], status: .ok, domain: try listedDomain(request))
            }
        }
        admin.post("/admin/links") { request, context in
            try await adminPage(request, context, changes: true) { user, form in try await adminCreate(form, user) }
        }
        admin.get("/admin/bulk") { request, context in
            try await adminPage(request, context) { user, _ in try adminBulkForm(user, domain: try listedDomain(request), csv: "") }
        }
        admin.post("/admin/bulk") { request, context in
            try await adminPage(request, context, changes: true, bodies: bulkBodies) { user, form in try await adminBulkCreate(form, user) }
        }
        admin.get("/admin/links/{code}") { request, context in
            try await adminPage(request, context) { user, _ in
                try await adminDetail(context, user, notice: request.uri.queryParameters["saved"] != nil ? "Saved." : nil, range: request.uri.queryParameters)
            }
        }
        admin.get("/admin/links/{code}/edit") { request, context in
            try await adminPage(request, context) { user, _ in try await adminEditForm(context, user) }
        }
        admin.post("/admin/links/{code}") { request, context in
            try await adminPage(request, context, changes: true) { user, form in try await adminUpdate(form, context, user) }
        }
        admin.post("/admin/links/{code}/delete") { request, context in
            try await adminPage(request, context, changes: true) { user, form in try await adminDelete(form, context, user) }
        }
    }

    // MARK: Sessions

    /// Runs `body` for a signed-in user: signed out (or expired, or revoked) goes to the sign-in
    /// page; `changes` also requires `links:write`, a request from this site and the form token.
    func adminPage(_ request: Request, _ context: ServiceContext, changes: Bool = false, bodies: RequestBodies? = nil,
                   _ body: (AdminUser, AdminForm) async throws -> Response) async throws -> Response {
        guard let user = try await adminUser(request) else { return Self.seeOther("/admin/sign-in") }
        guard changes else { return try await body(user, AdminForm(fields: [])) }
        try await limits.address(request, context)
        try checkSameSite(request)
        guard user.canWrite else {
            throw APIError(.forbidden, .insufficientScope, "token \(user.token.name) lacks the links:write scope; sign in with one that has it to change links")
        }
        let form = try await (bodies ?? self.bodies).form(request)
        guard let csrf = form["csrf"], ConstantTime.equals(csrf, user.session.csrf) else {
            throw APIError(.forbidden, .badFormToken, "the form is not one this sign-in showed (reload the page and try again)")
        }
        return try await body(user, form)
    }

    /// The signed-in user of a request, or nil.
    func adminUser(_ request: Request) async throws -> AdminUser? {
        guard let value = request.headers.cookie(named: Self.adminCookie), value.utf8.count == 43 else { return nil }
        let idHash = APIToken.hash(value)
        guard let session = try await store.session(idHash: idHash),
              session.expiresAt > now(),
              let token = try await store.token(id: session.tokenID),
              token.revokedAt == nil, APIToken.grants(token, .linksRead) else { return nil }
        return AdminUser(token: token, session: session, idHash: idHash, canWrite: APIToken.grants(token, .linksWrite))
    }

    /// Refuses a state-changing request another site started: `Sec-Fetch-Site` other than
    /// same-origin (`none`, a navigation the user started, never posts this site's forms), or an
    /// `Origin` whose host and port are not this request's. The scheme is not compared: behind a
    /// TLS proxy the browser's origin is https where the service is reached over http.
    func checkSameSite(_ request: Request) throws(APIError) {
        func refused(_ why: String) -> APIError { APIError(.forbidden, .crossSite, "a form of another site cannot change anything here (\(why))") }
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" {
            throw refused("Sec-Fetch-Site: \(site)")
        }
        if let origin = request.headers[.origin] {
            // "scheme://host[:port]" must name this request's host and port.
            let authority = Self.authority(of: request) ?? ""
            guard let separator = origin.range(of: "://"), origin[separator.upperBound...].lowercased() == authority.lowercased() else {
                throw refused("Origin \(origin) is not this host, \(authority)")
            }
        }
    }

    /// The host and port the request was sent to (HTTP/1's Host header becomes the authority).
    static func authority(of request: Request) -> String? { request.headers[HTTPField.Name("Host")!] ?? request.head.authority }

    /// Whether the request came over https (``Request/cameOverHTTPS(publicURL:)``).
    func cameOverHTTPS(_ request: Request) -> Bool { request.cameOverHTTPS(publicURL: configuration.publicURL) }

    func adminSignInPage(_ request: Request, _ context: ServiceContext) async throws -> Response {
        if try await adminUser(request) != nil { return Self.seeOther("/admin") }
        return signInForm(.ok, error: nil)
    }

    func signInForm(_ status: HTTPResponse.Status, error: String?) -> Response {
        Self.adminHTML(status, DashboardPages.render(SignInView(), title: "Sign in", user: nil, errors: error.map { [$0] } ?? []))
    }

    func adminSignIn(_ request: Request, _ context: ServiceContext) async throws -> Response {
        try await limits.address(request, context)
        try checkSameSite(request)
        let form = try await bodies.form(request)
        guard let text = form["token"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return signInForm(.badRequest, error: "Give an API token.")
        }
        let token: StoredToken
        do { token = try await tokens.verify(text, .linksRead) } catch let error as APIError where error.status == .unauthorized || error.status == .forbidden {
            metrics.authFailures.increment()
            return signInForm(error.status, error: error.message)
        }
        let secret = Base64URL.random(bytes: 32)
        let started = now()
        let session = AdminSession(tokenID: token.id, csrf: Base64URL.random(bytes: 32), createdAt: started,
                                   expiresAt: started.addingTimeInterval(Self.adminSessionLifetime))
        try await store.insertSession(idHash: APIToken.hash(secret), session)
        var response = Self.seeOther("/admin")
        response.headers[.setCookie] = "\(Self.adminCookie)=\(secret); Path=/admin; Max-Age=\(Int(Self.adminSessionLifetime)); HttpOnly; SameSite=Strict"
            + (cameOverHTTPS(request) ? "; Secure" : "")
        return response
    }

    func adminSignOut(_ request: Request, _ context: ServiceContext) async throws -> Response {
        try checkSameSite(request)
        if let user = try await adminUser(request) {
            let form = try await bodies.form(request)
            guard let csrf = form["csrf"], ConstantTime.equals(csrf, user.session.csrf) else {
                throw APIError(.forbidden, .badFormToken, "the form is not one this sign-in showed (reload the page and try again)")
            }
            try await store.deleteSession(idHash: user.idHash)
        }
        var response = Self.seeOther("/admin/sign-in")
        response.headers[.setCookie] = "\(Self.adminCookie)=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict" + (cameOverHTTPS(request) ? "; Secure" : "")
        return response
    }

    // MARK: Pages

    func adminList(_ request: Request, _ user: AdminUser) async throws -> Response {
        // The search form is a GET form: its query is form-encoded (`+` is a space).
        let query = request.uri.query.flatMap { AdminForm($0)?["q"] } ?? ""
        // One domain's links at a time (`?domain=`, the first by default), with a switch between them.
        let domain = try listedDomain(request)
        let links = try await store.searchLinks(query, limit: Self.adminListLimit + 1, domains: [domains.keyName(domain)])
        let rows = links.prefix(Self.adminListLimit).map { link in
            LinksView.Row(code: Self.shown(link.code), linkTitle: link.title ?? "", opens: answers.deepLink(of: link) ?? "", clicks: link.clicks, created: Self.isoDate(link.createdAt))
        }
        let tabs = domains.configurations.count < 2 ? [] : domains.configurations.enumerated().map { i, d in
            LinksView.DomainTab(name: d.domainName, href: i == 0 ? "/admin" : "/admin?domain=" + d.domainName, current: i == domain)
        }
        let view = LinksView(query: query, canWrite: user.canWrite, links: rows, shownOnly: links.count > Self.adminListLimit ? Self.adminListLimit : nil,
                             audience: query.isEmpty && !links.isEmpty ? try await audience(code: nil, range: request.uri.queryParameters) : nil,
                             domainTabs: tabs, domain: domain == 0 ? nil : domains.configurations[domain].domainName)
        return Self.adminHTML(.ok, DashboardPages.render(view, title: "Links", user: user.header))
    }

    /// The audience's ranked lists on a link's page, and the groups each shows.
    static let audienceLists: [(LinkStore.Breakdown, String, String)] = [
        (.country, "countries", "Country"), (.city, "cities", "City"), (.browser, "browsers", "Browser"), (.os, "systems", "OS"),
        (.device, "devices", "Device"), (.utmCampaign, "campaigns", "Campaign"), (.utmSource, "sources", "Source"),
    ]
    static let audienceRows = 8

    /// Who visited one link (or, with nil, every link) over the days `range` names (`from`,
    /// `to`, as the stats API reads them; the chart's 30 days by default, and when they cannot
    /// be read, with the reason shown).
    func audience(code: String?, range: Parameters) async throws(StoreError) -> AudienceView {
        let today = ClickDay.day(of: now())
        var days = (today - Int64(Self.adminChartDays) + 1)...today
        var rangeError: String?
        if let repeated = ["from", "to"].first(where: { range.getAll($0).count > 1 }) {
            rangeError = "\(repeated) is given more than once; showing the last \(Self.adminChartDays) days."
        } else if range["from"] != nil || range["to"] != nil {
            do {
                let (from, to) = try StatsController.span(range, today: today)
                days = from...to
            } catch { rangeError = error.message + "; showing the last \(Self.adminChartDays) days." }
        }
        let span = LinkStore.BreakdownFilter(code: code, days: days)
        var rankings: [AudienceView.Ranking] = []
        var totals: (visits: Int64, uniques: Int64) = (0, 0)
        for (by, id, title) in Self.audienceLists {
            let result = try await store.breakdown(by, span, limit: Self.audienceRows)
            totals = (result.visits, result.uniques)
            rankings.append(DashboardPages.ranking(id: id, title: title, result.rows.map { ($0.value, $0.visits, $0.uniques) }, countries: by == .country,
                                                   countsVisitors: configuration.visits.uniques))
        }
        let perDay = try await store.breakdown(.day, span, limit: days.count)
        let dayNumbers = Dictionary(uniqueKeysWithValues: days.map { (Timestamp.formatDay($0), $0) })
        let daily = DashboardPages.dailyChart(perDay.rows.compactMap { row in row.value.flatMap { dayNumbers[$0] }.map { ($0, row.visits, row.uniques) } },
                                             firstDay: days.lowerBound, lastDay: days.upperBound, countsVisitors: configuration.visits.uniques)
        return AudienceView(from: Timestamp.formatDay(days.lowerBound), to: Timestamp.formatDay(days.upperBound), days: days.count, rangeError: rangeError,
                            dailyChart: daily, overall: code == nil, visits: totals.visits, visitors: configuration.visits.uniques ? totals.uniques : nil,
                            rankings: rankings, placeSource: hot.audience?.placeSource)
    }

    func adminDetail(_ context: ServiceContext, _ user: AdminUser, notice: String?, range: Parameters) async throws -> Response {
        let (link, domain) = try await adminLink(context)
        let configuration = domains.configurations[domain]
        let today = ClickDay.day(of: now())
        let days = try await store.clickDays(code: link.code, from: today - Int64(Self.adminChartDays) + 1)
        let platforms = try await store.clicksByPlatform(code: link.code)
        let referrers = try await store.referrers(code: link.code, limit: LinksController.topReferrers)
        let audience = try await audience(code: link.code, range: range)
        let url = answers.pageURL(of: link)
        let warning = link.kind.keepsItsPath ? nil : LandingPages.appButtonWarning(for: answers.deepLink(of: link), route: link.route, configuration: configuration)
        // An expired or used-up link answers 410, its QR code too: the page says so instead of
        // showing a dead image (and a maxUses set below the clicks already counted shows here).
        var gone: LinkView.Gone?
        let sentTo = LandingPages.endedTarget(link, input: domains.inputs[domain], domainDefault: configuration.expiredURL)
        switch LinkEnd(link, at: now()) {
        case .expired(let e)?:
            gone = LinkView.Gone(why: "This link expired on \(Self.isoDate(e)).", state: "expired", remedy: "Extend its expiry", sentTo: sentTo)
        case .usedUp(let max)?:
            gone = LinkView.Gone(why: "This link is used up: \(link.clicks) of \(max) uses.", state: "used up", remedy: "Raise its uses", sentTo: sentTo)
        case nil: break
        }
        let fields: [(String, String?)] = [
            ("Page", url),
            ("Opens", answers.deepLink(of: link)),
            ("Route", link.route.map { r in r + (link.parameters.isEmpty ? "" : " (" + link.parameters.map { "\($0.0)=\($0.1)" }.joined(separator: ", ") + ")") }),
            ("Title", link.title),
            ("Description", link.description),
            ("Image", link.imageURL),
            ("Web fallback", link.webURL),
            ("App Store", link.appStoreURL),
            ("Play Store", link.playStoreURL),
            ("Campaign", link.campaign.isEmpty ? nil : link.campaign.parameters.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")),
            ("Tags", link.tags.isEmpty ? nil : link.tags.joined(separator: ", ")),
            ("Expires", link.expiresAt.map(Self.isoDate)),
            ("Uses", link.maxUses.map { "\(link.clicks) of \($0)" }),
            ("Once ended", link.expiredURL),
            ("Password", link.passwordHash == nil ? nil : "asked for before the page shows anything"),
            ("Created", Self.isoDate(link.createdAt)),
            ("Changed", link.updatedAt.map(Self.isoDate)),
        ]
        // The platform split is of people; previews and bots are counted beside it.
        // With several domains a link's QR images are on its own domain's hosts (the dashboard
        // may be on another host, where the same code is another domain's link, or on none).
        let qrBase = domains.hosts.strict ? configuration.publicURL + "/i/" + LinkKey.code(of: link.code) : nil
        let view = LinkView(
            code: Self.shown(link.code), pageURL: url, qrBase: qrBase, canWrite: user.canWrite, csrf: user.session.csrf, notice: notice, appButtonWarning: warning, gone: gone,
            fields: fields.compactMap { label, value in value.flatMap { $0.isEmpty ? nil : LinkView.Field(label: label, value: $0) } },
            clicks: link.clicks, chartDays: Self.adminChartDays, clicksChart: DashboardPages.clicksChart(days.map { ($0.day, $0.platform.rawValue, $0.clicks) }, lastDay: today, days: Self.adminChartDays),
            platformChart: DashboardPages.platformChart(platforms.filter { $0.platform != .bot }.map { ($0.platform.rawValue, $0.clicks) }),
            botVisits: platforms.filter { $0.platform == .bot }.reduce(0) { $0 + $1.clicks },
            referrers: DashboardPages.referrers(referrers), retentionDays: configuration.visits.retentionDays, audience: audience)
        var page = Self.adminHTML(.ok, DashboardPages.render(view, title: "Link \(Self.shown(link.code))", user: user.header))
        if qrBase != nil { page.headers[HTTPField.Name("Content-Security-Policy")!] = Self.contentSecurityPolicy(images: configuration.publicURL) }
        return page
    }

    func adminNewForm(_ user: AdminUser, values: [String: String], errors: [String], status: HTTPResponse.Status, domain: Int) throws(APIError) -> Response {
        guard user.canWrite else { throw APIError(.forbidden, .insufficientScope, "token \(user.token.name) lacks the links:write scope") }
        let routes = domains.configurations[domain].router
        let fields = [field("code", "Code", "empty: a random one", values["code"], routes: routes)]
            + Self.adminFields.map { field($0.name, $0.label, hint($0, domain), values[$0.name], routes: routes) }
        let view = LinkFormView(csrf: user.session.csrf, code: nil, fields: fields, domain: domain == 0 ? nil : domains.configurations[domain].domainName)
        return Self.adminHTML(status, DashboardPages.render(view, title: "New link", user: user.header, errors: errors))
    }

    func adminEditForm(_ context: ServiceContext, _ user: AdminUser, values: [String: String]? = nil, errors: [String] = [],
                       status: HTTPResponse.Status = .ok) async throws -> Response {
        guard user.canWrite else { throw APIError(.forbidden, .insufficientScope, "token \(user.token.name) lacks the links:write scope") }
        let (link, domain) = try await adminLink(context)
        let stored = Self.formValues(link)
        let shown = values ?? stored
        let routes = domains.configurations[domain].router
        // What the form showed goes back with it, so only the fields the user changed become the edit.
        let view = LinkFormView(csrf: user.session.csrf, code: Self.shown(link.code),
                                fields: Self.adminFields.map { field($0.name, $0.label, hint($0, domain), shown[$0.name], routes: routes) },
                                shown: Self.adminFields.map { LinkFormView.Shown(name: $0.name, value: stored[$0.name] ?? "") },
                                protected: link.passwordHash != nil)
        return Self.adminHTML(status, DashboardPages.render(view, title: "Edit \(Self.shown(link.code))", user: user.header, errors: errors))
    }

    /// A field's hint; the deep link's names the domain's own scheme.
    func hint(_ f: (name: String, label: String, hint: String), _ domain: Int) -> String {
        guard f.name == "deepLink", let scheme = formStandIn(domain) else { return f.hint }
        return "a URL with one of the app's schemes, such as \(scheme)… — or give a route instead"
    }

    /// One field of the link form, with the domain's routes (`routes`) to pick from.
    func field(_ name: String, _ label: String, _ hint: String, _ value: String?, routes: LinkRouter) -> LinkFormView.Field {
        LinkFormView.Field(name: name, label: label, hint: hint, value: value, routeNames: routes.routes.filter { !$0.exclude }.map(\.name))
    }

    // MARK: Changes

    func adminCreate(_ form: AdminForm, _ user: AdminUser) async throws -> Response {
        let domain = try domainIndex(named: form["domain"])
        let input = domains.inputs[domain]
        var values: [String: String] = [:]
        var body: [(key: String, value: JSONValue)] = []
        var errors = FormErrors(of: form)
        for name in ["code"] + Self.adminFields.map(\.name) {
            let text = Self.formText(form[name] ?? "", name)
            values[name] = text
            guard !text.isEmpty else { continue }
            do { body.append((name, try Self.formJSON(name, text))) } catch { errors.add(error) }
        }
        // The password is never shown again (not even after a refused form).
        if let password = form["password"], !password.isEmpty { body.append(("password", .string(password))) }
        let read = errors.collect(from: body, standIn: formStandIn(domain)) { (fields) throws(APIError) in try input.read(.object(fields), now: now()) }
        guard errors.isEmpty, var link = read else {
            return try adminNewForm(user, values: values, errors: errors.messages, status: .badRequest, domain: domain)
        }
        do {
            try await newLinks.passwords.apply(LinkPatch.passwordChange(body), to: &link)
            link.createdBy = user.token.id
            try await newLinks.insert(&link, chosenCode: !link.code.isEmpty, domain: domains.keyName(domain))
        } catch let error as APIError where error.status == .badRequest || error.status == .conflict {
            return try adminNewForm(user, values: values, errors: [Self.describe(error)], status: error.status, domain: domain)
        }
        metrics.linksCreated.increment()
        return Self.seeOther("/admin/links/\(Self.shown(link.code))?saved=1")
    }

    func adminBulkForm(_ user: AdminUser, domain: Int, csv: String, results: [BulkFormView.Result] = [], errors: [String] = [],
                       status: HTTPResponse.Status = .ok) throws(APIError) -> Response {
        guard user.canWrite else { throw APIError(.forbidden, .insufficientScope, "token \(user.token.name) lacks the links:write scope") }
        let view = BulkFormView(csrf: user.session.csrf, domain: domain == 0 ? nil : domains.configurations[domain].domainName, csv: csv,
                                columns: NewLinksCSV.columns, most: LinksController.mostBulkLinks, results: results)
        return Self.adminHTML(status, DashboardPages.render(view, title: "Create several links", user: user.header, errors: errors))
    }

    /// The "Create several" form: each CSV record made as `POST /api/links/bulk` makes an item
    /// (``NewLinks/createEach(_:domain:token:now:)``), on the form's domain unless the record
    /// names one; the page lists what became of each, with the CSV kept for another try.
    func adminBulkCreate(_ form: AdminForm, _ user: AdminUser) async throws -> Response {
        let domain = try domainIndex(named: form["domain"])
        let csv = form["csv"] ?? ""
        let rows: [NewLinksCSV.Row]
        do { rows = try NewLinksCSV.rows(csv, most: LinksController.mostBulkLinks) } catch {
            return try adminBulkForm(user, domain: domain, csv: csv, errors: [error.message], status: .badRequest)
        }
        let outcomes = await newLinks.createEach(rows.map(\.body), domain: domains.configurations[domain].domainName, token: user.token, now: now)
        var results: [BulkFormView.Result] = []
        for (row, outcome) in zip(rows, outcomes) {
            switch outcome {
            case .success(let link):
                metrics.linksCreated.increment()
                results.append(.init(line: row.line, code: Self.shown(link.code), href: "/admin/links/\(Self.shown(link.code))", problem: nil))
            case .failure(let error):
                results.append(.init(line: row.line, code: nil, href: nil, problem: Self.describe(error)))
            }
        }
        return try adminBulkForm(user, domain: domain, csv: csv, results: results)
    }

    func adminUpdate(_ form: AdminForm, _ context: ServiceContext, _ user: AdminUser) async throws -> Response {
        let (current, domain) = try await adminLink(context)
        let input = domains.inputs[domain]
        let shown = Self.formValues(current)
        var values = shown
        var patch: [(key: String, value: JSONValue)] = []
        var errors = FormErrors(of: form)
        for f in Self.adminFields {
            guard let submitted = form[f.name].map({ Self.formText($0, f.name) }) else { continue }
            values[f.name] = submitted
            // Changed from what the form showed (or, without that, from the link as it is now).
            guard submitted != (form["was.\(f.name)"].map { Self.formText($0, f.name) } ?? shown[f.name] ?? "") else { continue }
            if submitted.isEmpty { patch.append((f.name, .null)); continue }
            do { patch.append((f.name, try Self.formJSON(f.name, submitted))) } catch { errors.add(error) }
        }
        // A new password replaces the link's; the box removes it; an empty field keeps it.
        if form["removePassword"] == "yes" {
            patch.append(("password", .null))
        } else if let password = form["password"], !password.isEmpty {
            patch.append(("password", .string(password)))
        }
        guard !patch.isEmpty || !errors.isEmpty else { return Self.seeOther("/admin/links/\(Self.shown(current.code))") }
        let edited = errors.collect(from: patch, standIn: formStandIn(domain)) { (fields) throws(APIError) in try input.edit(current, with: fields, now: now()) }
        guard errors.isEmpty, var edited else {
            return try await adminEditForm(context, user, values: values, errors: errors.messages, status: .badRequest)
        }
        try await newLinks.passwords.apply(LinkPatch.passwordChange(patch), to: &edited)
        let stored = try await store.update(edited)
        hot.forget(current.code)
        guard stored != nil else { throw APIError(.notFound, .notFound, "no link with code \(Self.shown(current.code)) (it was deleted meanwhile)") }
        return Self.seeOther("/admin/links/\(Self.shown(current.code))?saved=1")
    }

    func adminDelete(_ form: AdminForm, _ context: ServiceContext, _ user: AdminUser) async throws -> Response {
        let (code, _) = try adminKey(context)
        guard form["confirm"] == "yes" else { throw APIError.badRequest(.notConfirmed, "tick the box to confirm the deletion") }
        let deleted = try await store.delete(code: code)
        hot.forget(code)
        guard deleted else { throw APIError(.notFound, .notFound, "no link with code \(Self.shown(code))") }
        return Self.seeOther("/admin?deleted=\(Self.shown(code))" + (LinkKey.domain(of: code).map { "&domain=" + $0 } ?? ""))
    }

    // MARK: Helpers

    /// A link's code as the dashboard's paths and pages write it: the code itself on the first
    /// domain, `name:code` on another (a code holds no `:`).
    static func shown(_ key: String) -> String { key.replacingOccurrences(of: "/", with: ":") }

    /// The stored key and the domain of a dashboard path's `{code}` (`code` or `name:code`);
    /// 404 when it could name no link.
    func adminKey(_ context: ServiceContext) throws(APIError) -> (key: String, domain: Int) {
        let shown = context.parameters.get("code") ?? ""
        let parts = shown.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let code = String(parts.last ?? "")
        guard let domain = parts.count == 2 ? domains.indexes[String(parts[0])] : 0, domains.inputs[domain].isStoredCode(code) else {
            throw APIError(.notFound, .notFound, "no link with code \(JSONWriter.quote(shown))")
        }
        return (domains.key(code: code, domain: domain), domain)
    }

    func adminLink(_ context: ServiceContext) async throws -> (StoredLink, Int) {
        let (code, domain) = try adminKey(context)
        guard let link = try await store.link(code: code) else {
            throw APIError(.notFound, .notFound, "no link with code \(Self.shown(code))")
        }
        return (link, domain)
    }

    /// The domain a list or new-link page is for (`?domain=`, the first when none); 404 for a
    /// name no domain has.
    func listedDomain(_ request: Request) throws(APIError) -> Int {
        try domainIndex(named: request.uri.query.flatMap { AdminForm($0)?["domain"] })
    }

    /// The domain a form or query names (`domain`; none or empty: the first); 404 for a name no
    /// domain has.
    func domainIndex(named name: String?) throws(APIError) -> Int {
        guard let name, !name.isEmpty else { return 0 }
        guard let index = domains.indexes[name] else { throw APIError(.notFound, .notFound, "no domain is named \(JSONWriter.quote(name))") }
        return index
    }

    /// A form field as typed, without surrounding whitespace; line ends as \n.
    static func formText(_ text: String, _ name: String) -> String {
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n")
        return unified.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JSON value of a non-empty form field, as the links API takes it.
    static func formJSON(_ name: String, _ text: String) throws(APIError) -> JSONValue {
        switch name {
        case "maxUses":
            return Int(text).map { .int($0) } ?? .string(text)
        case "expiresAt":
            // A day alone means the link works through that day (UTC): it expires at the next midnight.
            // Anything else (or a next midnight past year 9999) goes to the API as written, which says why.
            guard text.utf8.count == 10 else { return .string(text) }
            let day: Date
            switch Timestamp.parse(text + "T00:00:00Z") {
            case .success(let d): day = d
            case .failure(let problem) where problem.code == .noSuchTime:  // 2027-02-30: the day is said
                throw APIError.badRequest(.invalidExpiry, "expiresAt \(text): \(problem.message)", field: "expiresAt")
            case .failure: return .string(text)
            }
            let next = day.addingTimeInterval(86_400), end = Timestamp.format(next, fractionalSeconds: false)
            guard case .success(next) = Timestamp.parse(end) else { return .string(text) }
            return .string(end)
        case "parameters":
            var pairs: [(key: String, value: JSONValue)] = []
            var lineOf: [String: Int] = [:]
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw APIError.badRequest(.invalidParameters, "line \(index + 1) is not name=value", field: "parameters")
                }
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                // One value per name: a second would silently win (or lose).
                if let first = lineOf[name] {
                    throw APIError.badRequest(.invalidParameters, "line \(index + 1): \(name) is given on line \(first) already", field: "parameters")
                }
                lineOf[name] = index + 1
                pairs.append((name, .string(parts[1].trimmingCharacters(in: .whitespaces))))
            }
            return .object(pairs)
        default:
            return .string(text)
        }
    }

    /// The form's text for each field of a stored link.
    static func formValues(_ link: StoredLink) -> [String: String] {
        [
            "deepLink": link.deepLink ?? "", "route": link.route ?? "",
            "parameters": link.route == nil ? "" : link.parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "\n"),
            "title": link.title ?? "", "description": link.description ?? "", "image": link.imageURL ?? "",
            "webURL": link.webURL ?? "", "appStoreURL": link.appStoreURL ?? "", "playStoreURL": link.playStoreURL ?? "",
            "expiresAt": link.expiresAt.map(isoDate) ?? "", "maxUses": link.maxUses.map { String($0) } ?? "",
            "expiredURL": link.expiredURL ?? "",
        ]
    }

    /// The errors of one submitted form, every field's at once. The links API stops at the first
    /// problem, so the form's fields are read again without each field found wrong, until they
    /// read or the next problem is not a field's (or a field's already reported).
    struct FormErrors {
        private var fields: Set<String> = []
        private(set) var messages: [String] = []
        var isEmpty: Bool { messages.isEmpty }

        /// The errors of `form`, starting with a field it gives more than once (the dashboard's
        /// forms give each once; a second value would be dropped without a word).
        init(of form: AdminForm) {
            if let repeated = form.repeatedName { add(.badRequest(.malformedForm, "the form gives \(repeated) more than once", field: repeated)) }
        }

        mutating func add(_ error: APIError) {
            if let field = error.field {
                guard fields.insert(field).inserted else { return }
            }
            messages.append(DashboardController.describe(error))
        }

        /// The fields that say where a link leads; one found wrong is replaced by `stand-in` (an
        /// app link the configuration accepts) so the other fields are still read.
        static let targetFields: Set<String> = ["deepLink", "route", "parameters"]

        /// `read(fields)`, its errors added, with every field found wrong left out of the next try.
        mutating func collect<T>(from body: [(key: String, value: JSONValue)], standIn: String?,
                                 _ read: ([(key: String, value: JSONValue)]) throws(APIError) -> T) -> T? {
            var remaining = body
            func leaveOut(_ field: String) {
                if Self.targetFields.contains(field), let standIn {
                    remaining.removeAll { Self.targetFields.contains($0.key) }
                    remaining.append(("deepLink", .string(standIn)))
                } else {
                    remaining.removeAll { $0.key == field }
                }
            }
            for field in fields { leaveOut(field) }
            for _ in 0...body.count {
                // Every field left out: nothing more to learn (an edit of no field is its own error).
                if remaining.isEmpty && !isEmpty { return nil }
                do {
                    let value = try read(remaining)
                    return isEmpty ? value : nil
                } catch {
                    let known = error.field.map { fields.contains($0) } ?? false
                    add(error)
                    guard error.status == .badRequest, !known, let field = error.field, remaining.contains(where: { $0.key == field }) else { return nil }
                    leaveOut(field)
                }
            }
            return nil
        }
    }

    /// An app link the domain at `domain` accepts, standing in for a wrong target while a form's
    /// other fields are read: the first app scheme's bare link.
    func formStandIn(_ domain: Int = 0) -> String? {
        let configuration = domains.configurations[domain]
        return (configuration.apple.compactMap(\.scheme) + configuration.deepLinkSchemes).first.map { "\($0)://" }
    }

    /// An API error as a form shows it: the field's label, then the message (without the
    /// field's API name at its start, which the label replaces).
    static func describe(_ error: APIError) -> String {
        let label = error.field.flatMap { f in (adminFields + [("code", "Code", "")]).first { $0.name == f }?.label }
        return (label.map { "\($0): " } ?? "") + (label != nil ? error.problem ?? error.message : error.message)
    }

    static func isoDate(_ date: Date) -> String {
        Timestamp.format(date, fractionalSeconds: false)
    }

    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store", .contentLength: "0"])
    }

    static func adminMessage(_ status: HTTPResponse.Status, _ message: String, retryAfter: Int?) -> Response {
        var response = adminHTML(status, DashboardPages.render(DashboardMessageView(heading: status.reasonPhrase), title: status.reasonPhrase, user: nil, errors: [message]))
        if let retry = retryAfter ?? (status == .serviceUnavailable ? APIError.retryAfterSeconds : nil) { response.headers[.retryAfter] = String(retry) }
        return response
    }

    /// The dashboard's Content-Security-Policy: nothing but its own images (and, on the page of
    /// another domain's link, that domain's origin's: its QR images), inline styles and forms to
    /// itself.
    static func contentSecurityPolicy(images origin: String?) -> String {
        "default-src 'none'; img-src 'self'\(origin.map { " " + $0 } ?? ""); style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    static func adminHTML(_ status: HTTPResponse.Status, _ html: String) -> Response {
        let body = ByteBuffer(string: html)
        var headers = LandingPages.htmlHeaders(cache: "no-store", length: body.readableBytes)
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy(images: nil)
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        // Not no-referrer: under it browsers send `Origin: null` with a form, and the same-site
        // check needs the real origin. Referrers still never leave the site.
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

/// The dashboard's one error page: every error a dashboard handler throws — a refusal, a limit,
/// the store failing — becomes the dashboard's message page with the error's status.
struct DashboardErrors: RouterMiddleware {
    typealias Context = ServiceContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch let error as APIError {
            if error.status == .tooManyRequests { metrics.rateLimited.increment() }
            var page = DashboardController.adminMessage(error.status, error.message, retryAfter: error.retryAfter)
            if let allow = error.allow { page.headers[.allow] = allow.joined(separator: ", ") }
            return page
        } catch let error as StoreError {
            context.logger.error("storage failed", metadata: error.logMetadata.merging(["path": "\(request.uri.path)"]) { a, _ in a })
            let answer = APIError.storageUnavailable(cause: error)
            return DashboardController.adminMessage(answer.status, answer.message, retryAfter: nil)
        }
    }
}
