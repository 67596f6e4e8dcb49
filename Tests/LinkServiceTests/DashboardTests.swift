import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The dashboard at /admin, through the router as a browser uses it: forms, a cookie, redirects.
@Suite struct DashboardTests {
    typealias Answer = (status: HTTPResponse.Status, text: String, headers: HTTPFields)

    /// A browser's session: keeps the cookie, sends forms as browsers do (same-origin).
    struct Browser {
        let client: any TestClientProtocol
        var cookie: String?

        @discardableResult
        func get(_ uri: String, headers extra: HTTPFields = [:]) async throws -> Answer {
            var headers = extra
            if let cookie { headers[.cookie] = "sy_admin=\(cookie)" }
            return try await client.execute(uri: uri, method: .get, headers: headers, body: nil) { ($0.status, String(buffer: $0.body), $0.headers) }
        }

        @discardableResult
        func post(_ uri: String, _ fields: [(String, String)], headers extra: HTTPFields = [:]) async throws -> Answer {
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]
            for field in extra { headers[field.name] = field.value }
            if let cookie { headers[.cookie] = "sy_admin=\(cookie)" }
            let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
            return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { ($0.status, String(buffer: $0.body), $0.headers) }
        }

        static func encode(_ s: String) -> String {
            s.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))!
        }

        /// Signs in; returns the Set-Cookie header.
        mutating func signIn(_ token: String, headers: HTTPFields = [:]) async throws -> String {
            let answer = try await post("/admin/sign-in", [("token", token)], headers: headers)
            #expect(answer.status == .seeOther, "\(answer.text)")
            #expect(answer.headers[.location] == "/admin")
            let setCookie = try #require(answer.headers[.setCookie])
            cookie = String(try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last))
            return setCookie
        }

        /// The form token of the page at `uri`.
        func csrf(_ uri: String = "/admin") async throws -> String {
            let page = try await get(uri)
            return try #require(DashboardTests.value(of: "csrf", in: page.text), "no form token on \(uri): \(page.status) \(page.text.prefix(300))")
        }
    }

    /// The value of the first input named `name` on a page.
    static func value(of name: String, in html: String) -> String? {
        guard let range = html.range(of: #"name="\#(name)" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// A wrong method on a dashboard path is the dashboard's own page (405 with Allow), not the
    /// API's JSON; an unknown dashboard path too.
    @Test func aWrongMethodOnTheDashboardIsADashboardPage() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let wrong = try await client.execute(uri: "/admin/links/abc", method: .put, headers: [.accept: "text/html"]) { ($0.status, $0.headers, String(buffer: $0.body)) }
            #expect(wrong.0 == .methodNotAllowed)
            #expect(wrong.1[.contentType]?.hasPrefix("text/html") == true && wrong.1[.allow] == "GET, HEAD, POST", "\(wrong.1)")
            #expect(wrong.2.contains("PUT is not served at /admin/links/abc"), "\(wrong.2)")
            // A path that takes only POST says so.
            let signOut = try await client.execute(uri: "/admin/sign-out", method: .put) { ($0.status, $0.headers) }
            #expect(signOut.0 == .methodNotAllowed && signOut.1[.allow] == "POST", "\(signOut.1)")
            // A GET there too (a reload of a page a form posted to), not the route pages' 404.
            for path in ["/admin/sign-out", "/admin/links", "/admin/links/abc/delete"] {
                let get = try await client.execute(uri: path, method: .get) { ($0.status, $0.headers, String(buffer: $0.body)) }
                #expect(get.0 == .methodNotAllowed && get.1[.allow] == "POST" && get.1[.contentType]?.hasPrefix("text/html") == true, "\(path): \(get.0) \(get.1)")
                #expect(get.2.contains("GET is not served at \(path)"), "\(get.2)")
            }
            let api = try await client.execute(uri: "/api/links/abc", method: .put) { ($0.status, $0.headers) }
            #expect(api.0 == .methodNotAllowed && api.1[.contentType] == "application/json")
        }
    }

    @Test(arguments: Backend.available)
    func signingInSetsAStrictCookieAndSigningOutEndsTheSession(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            let away = try await browser.get("/admin")
            #expect(away.status == .seeOther && away.headers[.location] == "/admin/sign-in")
            let form = try await browser.get("/admin/sign-in")
            #expect(form.status == .ok && form.text.contains(#"<form method="post" action="/admin/sign-in""#))
            #expect(form.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(form.headers[.cacheControl] == "no-store")

            // A wrong token: the form again, with why, and no cookie.
            let wrong = try await browser.post("/admin/sign-in", [("token", "sy_aaaaaaaaaaaa_" + String(repeating: "A", count: 43))])
            #expect(wrong.status == .unauthorized && wrong.text.contains("the token is not valid") && wrong.headers[.setCookie] == nil)
            #expect(try await browser.post("/admin/sign-in", [("token", "")]).status == .badRequest)

            let setCookie = try await browser.signIn(h.writer)
            let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes == ["Path=/admin", "Max-Age=28800", "HttpOnly", "SameSite=Strict"], "\(setCookie)")
            let list = try await browser.get("/admin")
            #expect(list.status == .ok && list.text.contains("signed in with token <b>writer</b>"))

            // Only the hash of the cookie is stored.
            let stored = try await h.store.db.read("SELECT id_hash FROM admin_sessions", []).compactMap { $0.first?.text }
            #expect(stored == [APIToken.hash(try #require(browser.cookie))])

            let out = try await browser.post("/admin/sign-out", [("csrf", try await browser.csrf())])
            #expect(out.status == .seeOther && out.headers[.location] == "/admin/sign-in")
            #expect(out.headers[.setCookie]?.hasPrefix("sy_admin=; Path=/admin; Max-Age=0") == true)
            #expect(try await browser.get("/admin").status == .seeOther, "the old cookie no longer signs in")
            #expect(try await h.store.db.read("SELECT COUNT(*) FROM admin_sessions", []).first?.first?.int == 0)

            // Over https (the TLS proxy says so, or the request names the public https origin): Secure.
            var secure = Browser(client: client)
            #expect(try await secure.signIn(h.writer, headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"]).hasSuffix("; Secure"))
            #expect(try await secure.signIn(h.writer, headers: [HTTPField.Name("Host")!: "rabble.community"]).hasSuffix("; Secure"))
            #expect(try await secure.signIn(h.writer, headers: [HTTPField.Name("Host")!: "rabble.community:443"]).hasSuffix("; Secure"), "the default port is the same origin")
            var plain = Browser(client: client)
            #expect(try await !plain.signIn(h.writer, headers: [HTTPField.Name("Host")!: "rabble.community:8443"]).hasSuffix("; Secure"))
        }
    }

    @Test func aSessionEndsWithItsLifetimeAndWithItsToken() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.writer)
            h.clock.advance(DashboardController.adminSessionLifetime - 60)
            #expect(try await browser.get("/admin").status == .ok)
            h.clock.advance(120)
            #expect(try await browser.get("/admin").status == .seeOther, "expired")

            _ = try await browser.signIn(h.writer)
            #expect(try await browser.get("/admin").status == .ok)
            let id = try #require(APIToken.parse(h.writer)?.id)
            #expect(try await h.store.revokeToken(id) == 1)
            #expect(try await browser.get("/admin").status == .seeOther, "revoking the token ends its sessions")
            #expect(try await browser.post("/admin/sign-in", [("token", h.writer)]).status == .unauthorized)
        }
    }

    @Test func aReadOnlyTokenLooksButCannotChange() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let list = try await browser.get("/admin")
            #expect(list.status == .ok && !list.text.contains(#"id="new-link""#))
            #expect(try await browser.get("/admin/new").status == .forbidden)
            let refused = try await browser.post("/admin/links", [("csrf", try await browser.csrf()), ("deepLink", "plur://group/x")])
            #expect(refused.status == .forbidden && refused.text.contains("lacks the links:write scope"))
            #expect(try await h.store.searchLinks("", limit: 10).isEmpty)
        }
    }

    /// A form posted from another site, or without this session's form token, changes nothing.
    @Test func formsFromElsewhereAreRefused() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let csrf = try await browser.csrf()
            let link = [("deepLink", "plur://group/x")]
            #expect(try await browser.post("/admin/links", link).status == .forbidden, "no form token")
            #expect(try await browser.post("/admin/links", [("csrf", String(csrf.reversed()))] + link).status == .forbidden)
            let crossSite = try await browser.post("/admin/links", [("csrf", csrf)] + link, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(crossSite.status == .forbidden && crossSite.text.contains("another site"))
            // `none` (a navigation the user started) never posts a form of this site.
            #expect(try await browser.post("/admin/links", [("csrf", csrf)] + link, headers: [HTTPField.Name("Sec-Fetch-Site")!: "none"]).status == .forbidden)
            #expect(try await browser.post("/admin/links", [("csrf", csrf)] + link, headers: [.origin: "https://evil.example"]).status == .forbidden)
            #expect(try await browser.post("/admin/links", [("csrf", csrf)] + link, headers: [.origin: "null"]).status == .forbidden)
            // Another session's form token is not this one's.
            var other = Browser(client: client)
            _ = try await other.signIn(h.writer)
            #expect(try await browser.post("/admin/links", [("csrf", try await other.csrf())] + link).status == .forbidden)
            // A sign-in form posted from another site is refused too.
            #expect(try await Browser(client: client).post("/admin/sign-in", [("token", h.writer)], headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]).status == .forbidden)
            #expect(try await h.store.searchLinks("", limit: 10).isEmpty)
            // The same form from this site, with its token, with the request's own Origin.
            let made = try await browser.post("/admin/links", [("csrf", csrf)] + link, headers: [.origin: "http://links.test:8080", HTTPField.Name("Host")!: "links.test:8080"])
            #expect(made.status == .seeOther, "\(made.text)")
            #expect(try await h.store.searchLinks("", limit: 10).count == 1)
        }
    }

    @Test(arguments: Backend.available)
    func linksAreCreatedEditedAndDeletedThroughTheForms(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let csrf = try await browser.csrf("/admin/new")

            // Refused as the API refuses it: the form again, the field named, what was typed kept.
            let bad = try await browser.post("/admin/links", [("csrf", csrf), ("deepLink", "javascript:alert(1)"), ("title", "Keep <me>")])
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains(#"id="error""#) && bad.text.contains("Deep link: "), "\(bad.text)")
            #expect(bad.text.contains(#"value="Keep &lt;me&gt;""#))
            let badLine = try await browser.post("/admin/links", [("csrf", csrf), ("route", "join"), ("parameters", "groupId=g1\nnonsense")])
            #expect(badLine.status == .badRequest && badLine.text.contains("Route parameters: line 2 is not name=value"))
            let twice = try await browser.post("/admin/links", [("csrf", csrf), ("route", "join"), ("parameters", "groupId=g1\n\ngroupId=g2")])
            #expect(twice.status == .badRequest && twice.text.contains("Route parameters: line 3: groupId is given on line 1 already"), "\(twice.text)")

            // A route link with parameters, a chosen code and a use limit.
            let made = try await browser.post("/admin/links", [
                ("csrf", csrf), ("code", "Weekend7"), ("route", ""), ("deepLink", "plur://group/G7"), ("title", "Welcome <b>in</b>"),
                ("description", "Line one\r\nLine two"), ("maxUses", "5"), ("expiresAt", ""),
            ])
            #expect(made.status == .seeOther && made.headers[.location] == "/admin/links/Weekend7?saved=1", "\(made.text)")
            var link = try #require(try await h.store.link(code: "Weekend7"))
            #expect(link.deepLink == "plur://group/G7" && link.title == "Welcome <b>in</b>" && link.description == "Line one\nLine two" && link.maxUses == 5)
            #expect(try await browser.post("/admin/links", [("csrf", csrf), ("code", "Weekend7"), ("deepLink", "plur://x")]).status == .conflict)

            let detail = try await browser.get("/admin/links/Weekend7?saved=1")
            #expect(detail.status == .ok && detail.text.contains(#"id="notice""#))
            #expect(detail.text.contains("Welcome &lt;b&gt;in&lt;/b&gt;") && !detail.text.contains("<b>in</b>"))

            // Edit: only what changed is sent on; clearing a field clears it.
            let edit = try await browser.get("/admin/links/Weekend7/edit")
            #expect(edit.status == .ok && edit.text.contains(#"value="plur://group/G7""#))
            var fields = ["deepLink", "route", "parameters", "title", "description", "image", "webURL", "appStoreURL", "playStoreURL", "expiresAt", "maxUses"]
                .map { name in (name, Self.textOf(name, in: edit.text)) }
            fields = fields.map { $0.0 == "title" ? ("title", "Renamed") : $0.0 == "maxUses" ? ("maxUses", "") : $0 }
            let wasFields = ["deepLink", "route", "parameters", "title", "description", "image", "webURL", "appStoreURL", "playStoreURL", "expiresAt", "maxUses"]
                .map { ("was.\($0)", Self.value(of: "was.\($0)", in: edit.text).map(Self.unescape) ?? "") }
            let saved = try await browser.post("/admin/links/Weekend7", [("csrf", csrf)] + fields + wasFields)
            #expect(saved.status == .seeOther && saved.headers[.location] == "/admin/links/Weekend7?saved=1", "\(saved.text)")
            link = try #require(try await h.store.link(code: "Weekend7"))
            #expect(link.title == "Renamed" && link.maxUses == nil && link.deepLink == "plur://group/G7" && link.description == "Line one\nLine two")
            #expect(link.updatedAt != nil)

            // A bad edit shows the form again and changes nothing.
            let badEdit = try await browser.post("/admin/links/Weekend7", [("csrf", csrf), ("webURL", "https://evil.example/"), ("was.webURL", "")])
            #expect(badEdit.status == .badRequest && badEdit.text.contains("Web fallback: "), "\(badEdit.text)")
            #expect(try await h.store.link(code: "Weekend7")?.webURL == nil)

            // Delete needs the box ticked.
            #expect(try await browser.post("/admin/links/Weekend7/delete", [("csrf", csrf)]).status == .badRequest)
            #expect(try await h.store.link(code: "Weekend7") != nil)
            let deleted = try await browser.post("/admin/links/Weekend7/delete", [("csrf", csrf), ("confirm", "yes")])
            #expect(deleted.status == .seeOther)
            #expect(try await h.store.link(code: "Weekend7") == nil)
            #expect(try await browser.get("/admin/links/Weekend7").status == .notFound)
        }
    }

    @Test(arguments: Backend.available)
    func searchMatchesCodeTitleAndDeepLinkIgnoringCase(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            for (code, body) in [("Apex2345", #"{"title": "Spring SALE", "deepLink": "plur://group/garden"}"#),
                                 ("Beta2345", #"{"title": "100% off_now", "deepLink": "plur://group/shop"}"#),
                                 ("Gamma345", #"{"title": "Other", "route": "appGroup", "parameters": {"groupId": "chess-club"}}"#)] {
                let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "\#(code)", "# + body.dropFirst())
                #expect(created.status == .created, "\(created.text)")
            }
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.reader)
            func codes(_ q: String) async throws -> [String] {
                let page = try await browser.get("/admin?q=" + Browser.encode(q))
                return page.text.components(separatedBy: #"<a href="/admin/links/"#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            }
            #expect(try await codes("") == ["Gamma345", "Beta2345", "Apex2345"], "newest first")
            #expect(try await codes("sale") == ["Apex2345"])
            #expect(try await codes("APEX") == ["Apex2345"])
            #expect(try await codes("GARDEN") == ["Apex2345"])
            #expect(try await codes("chess") == ["Gamma345"], "route parameters")
            #expect(try await codes("%") == ["Beta2345"], "LIKE wildcards are text")
            #expect(try await codes("sp_ing") == [], "_ is no wildcard either")
            #expect(try await codes("nothing like it") == [])
            // A browser sends the GET form's spaces as `+`.
            let plus = try await browser.get("/admin?q=Spring+sale")
            #expect(plus.text.contains(#"<a href="/admin/links/Apex2345"#) && !plus.text.contains(#"<a href="/admin/links/Beta2345"#))
        }
    }

    /// An expired or used-up link answers 410, its QR code too: its page says why and shows no
    /// dead QR image (it showed one, and "Uses 9 of 5" with no word that the link was used up).
    @Test func aLinkThatIsGoneSaysSoInsteadOfShowingADeadQRCode() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            func link(_ code: String, maxUses: Int64? = nil, expiresAt: Date? = nil) -> StoredLink {
                var link = StoredLink(code: code, createdAt: Date())
                link.deepLink = "plur://group/" + code
                link.maxUses = maxUses
                link.expiresAt = expiresAt
                return link
            }
            try await h.store.insert(link("usedup23", maxUses: 2))
            try await h.store.insert(link("expired2", expiresAt: h.clock.today.addingTimeInterval(-60)))
            try await h.store.insert(link("alive234"))
            for _ in 0..<2 { #expect(try await client.call(.get, "/i/usedup23", headers: [.userAgent: "Mozilla/5.0 (iPhone)"]).status == .ok) }
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let used = try await browser.get("/admin/links/usedup23")
            #expect(used.text.contains(#"<p class="error" id="gone">This link is used up: 2 of 2 uses.</p>"#), "\(used.text)")
            #expect(used.text.contains(#"id="qr-unavailable">No QR code: the link is used up, so its page and its QR code answer 410 Gone. Raise its uses"#))
            #expect(!used.text.contains(#"id="qr""#) && !used.text.contains("qr.png"))
            #expect(try await client.call(.get, "/i/usedup23/qr.svg").status == .gone)
            let expired = try await browser.get("/admin/links/expired2")
            #expect(expired.text.contains(#"id="gone">This link expired on "#) && expired.text.contains("Extend its expiry"), "\(expired.text)")
            #expect(!expired.text.contains(#"<img id="qr""#))
            let alive = try await browser.get("/admin/links/alive234")
            #expect(alive.text.contains(#"<img id="qr" src="/i/alive234/qr.svg""#) && !alive.text.contains(#"id="gone""#))
        }
    }

    /// The first hour's paper cuts: every field's problem at once, a day alone as an expiry,
    /// the route picked from the configuration's, "1 click", and an imported link's page URL as
    /// the API gives it.
    @Test func theFormsSayEveryProblemAtOnceAndTakeADayAsExpiry() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var browser = Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let csrf = try await browser.csrf("/admin/new")
            let form = try await browser.get("/admin/new")
            #expect(form.text.contains(#"<select id="f-route" name="route"><option value="">"#), "\(form.text)")
            #expect(form.text.contains(#"<option value="appGroup">appGroup</option>"#))

            let bad = try await browser.post("/admin/links", [
                ("csrf", csrf), ("deepLink", "javascript:alert(1)"), ("webURL", "https://evil.example/"),
                ("maxUses", "lots"), ("expiresAt", "2020-01-01"), ("title", "Keep"),
            ])
            #expect(bad.status == .badRequest)
            for label in ["Deep link: ", "Web fallback: ", "Maximum uses: ", "Expires at: "] {
                #expect(bad.text.contains(label), "\(label) missing from \(bad.text)")
            }
            #expect(bad.text.contains("4 fields need a change"), "\(bad.text)")
            #expect(try await h.store.searchLinks("", limit: 10).isEmpty, "nothing stored")

            // A field given twice (a hand-made form) is refused, not read as its first value.
            let twice = try await browser.post("/admin/links", [("csrf", csrf), ("route", "appGroup"), ("route", "appHome"), ("parameters", "groupId=g1")])
            #expect(twice.status == .badRequest && twice.text.contains("the form gives route more than once"), "\(twice.status) \(twice.text)")
            #expect(try await h.store.searchLinks("", limit: 10).isEmpty, "nothing stored")

            let made = try await browser.post("/admin/links", [("csrf", csrf), ("code", "Day2030x"), ("route", "appGroup"),
                                                              ("parameters", "groupId=g1"), ("expiresAt", "2030-01-31"), ("maxUses", "10")])
            #expect(made.status == .seeOther, "\(made.text)")
            let link = try #require(try await h.store.link(code: "Day2030x"))
            #expect(link.expiresAt.map { Timestamp.format($0, fractionalSeconds: false) } == "2030-02-01T00:00:00Z", "works through the day it names")
            let edit = try await browser.get("/admin/links/Day2030x/edit")
            #expect(edit.text.contains(#"<option value="appGroup" selected>appGroup</option>"#))

            #expect(try await client.call(.get, "/i/Day2030x", headers: [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)"]).status == .ok)
            let one = try await browser.get("/admin/links/Day2030x")
            #expect(one.text.contains(#"<b id="total-clicks">1</b> click counted"#), "\(one.text)")

            // A day at the calendar's end is refused as given, not read as year 0000; one bad field
            // of an edit is one error, under its label alone.
            let far = try await browser.post("/admin/links", [("csrf", csrf), ("deepLink", "plur://group/x"), ("expiresAt", "9999-12-31")])
            #expect(far.status == .badRequest && far.text.contains("9999-12-31") && !far.text.contains("0000-"), "\(far.text)")
            let oneBad = try await browser.post("/admin/links/Day2030x", [("csrf", csrf), ("maxUses", "abc"), ("was.maxUses", "10")])
            #expect(oneBad.status == .badRequest && !oneBad.text.contains("fields need a change") && !oneBad.text.contains("no field to change"), "\(oneBad.text)")
            let badWeb = try await browser.post("/admin/links/Day2030x", [("csrf", csrf), ("webURL", "https://evil.example/"), ("was.webURL", "")])
            #expect(badWeb.text.contains("Web fallback: host evil.example"), "\(badWeb.text)")

            var imported = StoredLink(code: "summer", createdAt: Date())
            imported.kind = .fdl
            imported.deepLink = "plur://group/summer"
            try await h.store.insert(imported)
            let page = try await browser.get("/admin/links/summer")
            #expect(page.text.contains("<dd><code>https://rabble.community/summer</code></dd>"), "\(page.text)")
            let api = try await client.call(.get, "/api/links/summer", token: h.reader)
            #expect(api.json?["url"]?.stringValue == "https://rabble.community/summer")
        }
    }

    /// Visits are charted per day and platform; a deleted link's rows go with it.
    @Test(arguments: Backend.available)
    func theLinkPageChartsVisitsPerDayAndPlatform(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Charted2", "deepLink": "plur://group/c"}"#)
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Capped23", "deepLink": "plur://group/l", "maxUses": 10}"#)
            let iPhone = LandingPageTests.iPhone, android = "Mozilla/5.0 (Linux; Android 14; Pixel 8)", desktop = "Mozilla/5.0 (X11; Linux x86_64)"
            func visit(_ code: String, _ ua: String, referer: String? = nil) async throws {
                var headers: HTTPFields = [.userAgent: ua]
                if let referer { headers[.referer] = referer }
                let answer = try await client.call(.get, "/i/\(code)", headers: headers)
                #expect(answer.status == .ok)
            }
            // Two days ago: 1 desktop; today: 3 iPhone, 1 Android, 2 desktop.
            try await visit("Charted2", desktop)
            try await h.service.flushClicks()
            h.clock.advance(2 * 86_400)
            for ua in [iPhone, iPhone, iPhone, android, desktop, desktop] { try await visit("Charted2", ua, referer: ua == desktop ? "https://news.example.org/a" : "https://t.co/x") }
            for ua in [iPhone, android] { try await visit("Capped23", ua) }
            try await h.service.flushClicks()

            var browser = Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let page = try await browser.get("/admin/links/Charted2")
            #expect(page.status == .ok)
            let today = Timestamp.formatDay(ClickDay.day(of: h.clock.today))
            let before = Timestamp.formatDay(ClickDay.day(of: h.clock.today) - 2)
            #expect(page.text.contains(#"<svg id="clicks-chart""#))
            #expect(page.text.contains(#"data-day="\#(today)" data-clicks="6""#), "\(page.text)")
            #expect(page.text.contains(#"data-day="\#(before)" data-clicks="1""#))
            #expect(page.text.components(separatedBy: #"<g class="bar""#).count - 1 == 2, "two days with visits")
            #expect(page.text.contains("\(today): 6 (iOS 3, Android 1, Desktop 2)"))
            #expect(page.text.contains(#"data-platform="ios" data-clicks="3""#))
            #expect(page.text.contains(#"data-platform="desktop" data-clicks="3""#))
            #expect(page.text.contains(#"data-platform="android" data-clicks="1""#))
            #expect(page.text.contains(#"<b id="total-clicks">7</b>"#))
            #expect(page.text.contains(#"<img id="qr" src="/i/Charted2/qr.svg""#))
            #expect(page.text.contains(#"<table id="referrers">"#))
            #expect(page.text.contains(#"<tr><td><code>t.co</code></td><td class="num">4</td><td class="num">67 %</td></tr>"#), "\(page.text)")
            #expect(page.text.contains(#"<tr><td><code>news.example.org</code></td><td class="num">2</td><td class="num">33 %</td></tr>"#))
            // Use-limited links record their day rows in the use's own transaction.
            let limited = try await browser.get("/admin/links/Capped23")
            #expect(limited.text.contains(#"data-day="\#(today)" data-clicks="2""#) && limited.text.contains("Uses</dt><dd><code>2 of 10"))
            // Viewing the dashboard counts nothing.
            #expect(try await h.store.link(code: "Charted2")?.clicks == 7)

            _ = try await client.call(.delete, "/api/links/Charted2", token: h.writer)
            #expect(try await h.store.clickDays(code: "Charted2", from: 0).isEmpty)
        }
    }

    @Test func formEncodingIsReadAsBrowsersWriteIt() {
        let form = AdminForm("a=1+2%2B3&b=caf%C3%A9&c=&d&a=second")
        #expect(form?["a"] == "1 2+3" && form?["b"] == "café" && form?["c"] == "" && form?["d"] == "")
        #expect(AdminForm("a=%zz") == nil && AdminForm("a=%C3") == nil && AdminForm("a=%4") == nil)
    }

    /// The text a form shows for a field (an input's value or a textarea's content), unescaped.
    static func textOf(_ name: String, in html: String) -> String {
        if let v = value(of: name, in: html) { return unescape(v) }
        guard let start = html.range(of: #"name="\#(name)" rows="3">"#) else { return "" }
        return unescape(String(html[start.upperBound...].prefix { $0 != "<" }))
    }

    static func unescape(_ s: String) -> String {
        s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
