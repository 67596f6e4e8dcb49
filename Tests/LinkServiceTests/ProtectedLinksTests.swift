import Foundation
import HTTPTypes
import LinkImport
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardDocuments
import LinkConfiguration
import SwitchyardTestSupport
import Testing

/// Links that ask for a password: a form that shows nothing of the link, the password kept as
/// a scrypt hash, tries limited per network and per link, and a signed cookie that opens that
/// link alone for a day.
@Suite struct ProtectedLinksTests {
    /// scrypt at N = 2^10 instead of 2^14: the same code, a sixteenth of the CPU (the suite's
    /// timing tests run beside these). `hashesAreSalted…` checks the default.
    static let cheap = "links: {length: 8, passwordCost: 10}\n"

    static let secretLink = #"{"deepLink": "plur://group/board-only", "title": "Board minutes", "description": "For the board", "webURL": "https://rabble.community/board", "password": "correct horse"}"#

    /// POSTs a password form to `/i/{code}` as a browser does.
    static func post(_ client: some TestClientProtocol, _ code: String, _ form: String, cookie: String? = nil) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .userAgent: LandingPageTests.desktop]
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: "/i/\(code)", method: .post, headers: headers, body: ByteBuffer(string: form)) {
            ($0.status, $0.headers, String(buffer: $0.body))
        }
    }

    /// `name=value` of a Set-Cookie field.
    static func cookie(_ setCookie: String?) throws -> String {
        try #require(setCookie?.split(separator: ";").first.map(String.init))
    }

    @Test(arguments: Backend.available)
    func aProtectedLinkShowsNothingUntilItsPasswordIsGiven(_ backend: Backend) async throws {
        let h = try await Harness.make(extra: Self.cheap, backend: backend)
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json?["protected"] == .bool(true))
            #expect(created.json?["password"] == nil && !created.text.contains("scrypt") && !created.text.contains("correct horse"))
            let code = try #require(created.json?["code"]?.stringValue)
            let stored = try #require(try await h.store.link(code: code)?.passwordHash)
            #expect(stored.hasPrefix("scrypt$1024$8$1$") && !stored.contains("correct horse"), "links.passwordCost 10: \(stored)")

            // People, phones, previews and HEAD: the form, nothing of the link.
            for (method, agent) in [(HTTPRequest.Method.get, LandingPageTests.desktop), (.get, LandingPageTests.iPhone),
                                    (.get, "facebookexternalhit/1.1"), (.get, "Slackbot-LinkExpanding 1.0"), (.head, LandingPageTests.desktop)] {
                let page = try await client.call(method, "/i/\(code)?utm_source=mail", headers: [.userAgent: agent])
                #expect(page.status == .ok, "\(agent)")
                #expect(page.headers[.cacheControl] == "no-store" && page.headers[HTTPField.Name("X-Robots-Tag")!] == "noindex, nofollow")
                if method == .get {
                    #expect(page.text.contains(#"<form method="post" action="/i/\#(code)">"#), "\(page.text)")
                    #expect(page.text.contains(#"name="query" value="utm_source=mail""#))
                    for secret in ["Board minutes", "For the board", "board-only", "rabble.community/board", "og:title", "claim"] {
                        #expect(!page.text.contains(secret), "\(agent) sees \(secret)")
                    }
                }
            }
            // Nothing counted: no click, no visit.
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 0)

            // A wrong password: the form again, saying so.
            let wrong = try await Self.post(client, code, "password=Correct+Horse&query=utm_source%3Dmail")
            #expect(wrong.0 == .forbidden && wrong.2.contains("That password is not right.") && wrong.1[.setCookie] == nil)
            #expect(!wrong.2.contains("Board minutes"))
            // The right one: to the page with the query, and a cookie for this link alone.
            let right = try await Self.post(client, code, "password=correct+horse&query=utm_source%3Dmail")
            #expect(right.0 == .seeOther, "\(right.2)")
            #expect(right.1[.location] == "/i/\(code)?utm_source=mail")
            let setCookie = try #require(right.1[.setCookie])
            #expect(setCookie.contains("; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax"))
            #expect(!setCookie.contains("correct"))
            let cookie = try Self.cookie(setCookie)
            let open = try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.desktop, .cookie: "theme=dark; " + cookie])
            #expect(open.status == .ok && open.text.contains("Board minutes"), "\(open.text)")
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 1)
            // The page now rendered is never served from memory to a visitor without the cookie.
            for agent in [LandingPageTests.desktop, LandingPageTests.iPhone] {
                _ = try await client.call(.get, "/i/\(code)", headers: [.userAgent: agent, .cookie: cookie])
                let again = try await client.call(.get, "/i/\(code)", headers: [.userAgent: agent])
                #expect(again.text.contains("<form") && !again.text.contains("Board minutes"), "\(agent)")
            }

            // The cookie opens no other link, and a changed one opens nothing.
            let other = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/other", "title": "Other secret", "password": "correct horse"}"#).json?["code"]?.stringValue)
            let value = cookie.split(separator: "=", maxSplits: 1)[1]
            let otherName = LinkPassword.cookieName(forKey: other)
            #expect(!(try await client.call(.get, "/i/\(other)", headers: [.cookie: "\(otherName)=\(value)"]).text.contains("Other secret")))
            var tampered = Array(cookie)
            tampered[tampered.count - 3] = tampered[tampered.count - 3] == "A" ? "B" : "A"
            #expect(!(try await client.call(.get, "/i/\(code)", headers: [.cookie: String(tampered)]).text.contains("Board minutes")))
            let stretched = cookie.replacingOccurrences(of: "=\(value.split(separator: ".")[0])", with: "=\(Int(value.split(separator: ".")[0])! + 3600)")
            #expect(!(try await client.call(.get, "/i/\(code)", headers: [.cookie: stretched]).text.contains("Board minutes")))

            // A day later the cookie has run out.
            h.clock.advance(LinkPassword.unlockLifetime + 1)
            #expect(!(try await client.call(.get, "/i/\(code)", headers: [.cookie: cookie]).text.contains("Board minutes")))
        }
    }

    @Test func aNewPasswordVoidsEarlierCookiesAndNullOpensTheLink() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink).json?["code"]?.stringValue)
            let cookie = try Self.cookie(try await Self.post(client, code, "password=correct+horse").1[.setCookie])
            #expect(try await client.call(.get, "/i/\(code)", headers: [.cookie: cookie]).text.contains("Board minutes"))
            let changed = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"password": "battery staple"}"#)
            #expect(changed.status == .ok && changed.json?["protected"] == .bool(true), "\(changed.text)")
            #expect(!(try await client.call(.get, "/i/\(code)", headers: [.cookie: cookie]).text.contains("Board minutes")))
            #expect(try await Self.post(client, code, "password=correct+horse").0 == .forbidden)
            #expect(try await Self.post(client, code, "password=battery+staple").0 == .seeOther)
            // An edit of another field keeps the password.
            let retitled = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"title": "Board minutes, March"}"#)
            #expect(retitled.json?["protected"] == .bool(true))
            #expect(!(try await client.call(.get, "/i/\(code)").text.contains("Board minutes")))
            let opened = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"password": null}"#)
            #expect(opened.json?["protected"] == .bool(false), "\(opened.text)")
            #expect(try await client.call(.get, "/i/\(code)").text.contains("Board minutes, March"))
            // A form posted to a link with no password just goes to its page.
            let unneeded = try await Self.post(client, code, "password=anything")
            #expect(unneeded.0 == .seeOther && unneeded.1[.location] == "/i/\(code)" && unneeded.1[.setCookie] == nil)
        }
    }

    @Test func triesAreLimitedPerNetworkBeforeAnythingIsHashed() async throws {
        let h = try await Harness.make(extra: Self.cheap + "rateLimit: {passwordPerAddress: {perMinute: 6, burst: 3}, passwordPerLink: {perMinute: 60, burst: 50}}\n")
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink).json?["code"]?.stringValue)
            for _ in 0..<3 { #expect(try await Self.post(client, code, "password=guess").0 == .forbidden) }
            let limited = try await Self.post(client, code, "password=correct+horse")
            #expect(limited.0 == .tooManyRequests && limited.1[.retryAfter] != nil && limited.1[.setCookie] == nil)
            h.clock.advance(11)
            #expect(try await Self.post(client, code, "password=correct+horse").0 == .seeOther)
        }
    }

    @Test func triesAreLimitedPerLinkFromEveryNetwork() async throws {
        let h = try await Harness.make(extra: Self.cheap + "rateLimit: {passwordPerAddress: {perMinute: 60, burst: 50}, passwordPerLink: {perMinute: 6, burst: 2}}\n")
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink).json?["code"]?.stringValue)
            let other = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink).json?["code"]?.stringValue)
            for _ in 0..<2 { #expect(try await Self.post(client, code, "password=guess").0 == .forbidden) }
            #expect(try await Self.post(client, code, "password=guess").0 == .tooManyRequests)
            // Another link's tries are its own.
            #expect(try await Self.post(client, other, "password=correct+horse").0 == .seeOther)
        }
    }

    @Test(arguments: [
        (#"{"deepLink": "plur://group/x", "password": ""}"#, "a password needs at least one character"),
        (#"{"deepLink": "plur://group/x", "password": "\#(String(repeating: "p", count: 129))"}"#, "a password may have at most 128 characters (this one has 129)"),
        (#"{"deepLink": "plur://group/x", "password": "two\nlines"}"#, "a password may not contain control characters"),
        (#"{"deepLink": "plur://group/x", "password": 1234}"#, "password"),
    ] as [(String, String)])
    func passwordsThatCannotBeUsedAreRefused(body: String, words: String) async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let refused = try await client.call(.post, "/api/links", token: h.writer, body: body)
            #expect(refused.status == .badRequest, "\(refused.text)")
            #expect(refused.json?.at("error.field")?.stringValue == "password", "\(refused.text)")
            #expect(refused.json?.at("error.message")?.stringValue?.contains(words) == true, "\(refused.text)")
            #expect(!refused.text.contains("two\\nlines") || words == "password")
        }
    }

    /// An ended protected link tells nothing, not even that it ended, before its password.
    @Test func anEndedProtectedLinkShowsTheFormFirst() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/x", "password": "pw", "expiresIn": 60, "expiredURL": "https://rabble.community/over"}"#).json?["code"]?.stringValue)
            h.clock.advance(120)
            let page = try await client.call(.get, "/i/\(code)")
            #expect(page.status == .ok && page.text.contains("<form") && !page.text.contains("rabble.community/over"))
            let cookie = try Self.cookie(try await Self.post(client, code, "password=pw").1[.setCookie])
            let ended = try await client.call(.get, "/i/\(code)", headers: [.cookie: cookie])
            #expect(ended.status == .found && ended.headers[.location] == "https://rabble.community/over")
        }
    }

    @Test func hashesAreSaltedCheckedInFullAndUnreadableOnesRefuse() throws {
        let a = LinkPassword.hash("pw"), b = LinkPassword.hash("pw")
        #expect(a != b && a.hasPrefix("scrypt$16384$8$1$"), "the default cost: \(a)")
        #expect(LinkPassword.verify("pw", against: a) && LinkPassword.verify("pw", against: b))
        let cheap = LinkPassword.hash("pw", cost: 1 << 10)
        #expect(!LinkPassword.verify("pw ", against: cheap) && !LinkPassword.verify("PW", against: cheap) && !LinkPassword.verify("", against: cheap))
        // The same text in two Unicode forms is one password.
        let composed = LinkPassword.hash("caf\u{E9}", cost: 1 << 10)
        #expect(LinkPassword.verify("cafe\u{301}", against: composed))
        // A stored text that is not a hash, or one that would cost too much, opens nothing.
        for stored in ["", "pw", "scrypt$16384$8$1$AAAA$AAAA", "scrypt$1073741824$8$1$" + Data(count: 16).base64EncodedString() + "$" + Data(count: 32).base64EncodedString(),
                       a.replacingOccurrences(of: "scrypt$16384", with: "scrypt$16383")] {
            #expect(!LinkPassword.verify("pw", against: stored), "\(stored)")
        }
    }

    /// The dashboard sets a password on a new link, replaces it, and removes it; the form never
    /// shows it back.
    @Test func theDashboardSetsReplacesAndRemovesAPassword() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            var browser = DashboardTests.Browser(client: client)
            try await browser.signIn(h.writer)
            let csrf = try await browser.csrf("/admin/new")
            let made = try await browser.post("/admin/links", [("csrf", csrf), ("code", "pwdash"), ("deepLink", "plur://group/dash"), ("title", "Dash secret"), ("password", "open sesame")])
            #expect(made.status == .seeOther, "\(made.text)")
            #expect(try await h.store.link(code: "pwdash")?.passwordHash != nil)
            let page = try await browser.get("/admin/links/pwdash")
            #expect(page.text.contains("asked for before the page shows anything") && !page.text.contains("open sesame"))
            let form = try await browser.get("/admin/links/pwdash/edit")
            #expect(form.text.contains(#"id="f-remove-password""#) && !form.text.contains("open sesame"))
            #expect(!(try await client.call(.get, "/i/pwdash").text.contains("Dash secret")))

            // A refused password is said, and the link stays as it was.
            let refused = try await browser.post("/admin/links/pwdash", [("csrf", csrf), ("password", String(repeating: "x", count: 200))])
            #expect(refused.status == .badRequest && refused.text.contains("at most 128 characters") && !refused.text.contains(String(repeating: "x", count: 200)))
            let before = try #require(try await h.store.link(code: "pwdash")?.passwordHash)
            // An edit of another field keeps it; a new one replaces it.
            #expect(try await browser.post("/admin/links/pwdash", [("csrf", csrf), ("title", "Dash secret 2"), ("password", "")]).status == .seeOther)
            #expect(try await h.store.link(code: "pwdash")?.passwordHash == before)
            #expect(try await browser.post("/admin/links/pwdash", [("csrf", csrf), ("password", "new sesame")]).status == .seeOther)
            let after = try #require(try await h.store.link(code: "pwdash")?.passwordHash)
            #expect(after != before && LinkPassword.verify("new sesame", against: after))
            #expect(try await browser.post("/admin/links/pwdash", [("csrf", csrf), ("removePassword", "yes")]).status == .seeOther)
            #expect(try await h.store.link(code: "pwdash")?.passwordHash == nil)
            #expect(try await client.call(.get, "/i/pwdash").text.contains("Dash secret 2"))
        }
    }

    /// An invite is read by its app through /api/invite/{code}, which asks for no password: it
    /// cannot be given one.
    @Test func anInviteCannotBeProtected() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let invite = try await client.call(.post, "/api/invite", token: h.writer, body: #"{"groupId": "g", "relay": "wss://relay.example"}"#)
            let code = try #require(invite.json?["code"]?.stringValue, "\(invite.text)")
            let refused = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"password": "pw"}"#)
            #expect(refused.status == .badRequest && refused.json?.at("error.code")?.stringValue == "immutable-field", "\(refused.text)")
        }
    }

    /// An import that updates a protected link keeps its password (no import carries one); an
    /// export says how many protected links it wrote without theirs; a `password` column is
    /// refused rather than ignored (its links would be made open).
    @Test func importsKeepPasswordsAndRefuseAPasswordColumn() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "kept01", "deepLink": "plur://group/k", "title": "Kept", "password": "pw"}"#)
        }
        let stored = try #require(try await h.store.link(code: "kept01")?.passwordHash)
        let (csv, count, protected) = try await LinkImport.export(from: h.store)
        #expect(count == 1 && protected == 1 && !csv.contains("scrypt"))
        let importer = LinkImport(configuration: h.service.configuration)
        let plan = try importer.ownLinks(csv.replacingOccurrences(of: ",Kept,", with: ",Kept again,"), now: Date())
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let outcomes = try await h.store.importLinks(plan.links, keeping: plan.keeping)
        #expect(outcomes == [.updated])
        let after = try #require(try await h.store.link(code: "kept01"))
        #expect(after.title == "Kept again" && after.passwordHash == stored)
        // The same file again changes nothing.
        #expect(try await h.store.importLinks(plan.links, keeping: plan.keeping) == [.unchanged])
        #expect(throws: LinkImport.Failure.self) {
            _ = try importer.ownLinks("code,deepLink,password\r\nopen01,plur://group/o,secret\r\n", now: Date())
        }
        do { _ = try importer.ownLinks("code,deepLink,password\r\nopen01,plur://group/o,secret\r\n", now: Date()) } catch {
            #expect(error.message.contains("the column password: import csv does not set passwords"), "\(error.message)")
        }
    }

    /// A protected link's QR code tells nothing its form does not: drawn whatever its state.
    @Test func aProtectedLinksQRCodeDoesNotTellThatItEnded() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/q", "password": "pw", "expiresIn": 60}"#).json?["code"]?.stringValue)
            let open = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/q", "expiresIn": 60}"#).json?["code"]?.stringValue)
            h.clock.advance(120)
            #expect(try await client.call(.get, "/i/\(code)/qr.svg").status == .ok)
            #expect(try await client.call(.get, "/i/\(code)/qr.png").status == .ok)
            #expect(try await client.call(.get, "/i/\(open)/qr.svg").status == .gone)
        }
    }

    /// A tried password with a control character is wrong (no password can hold one), even one
    /// that a normalisation would drop; the visited query goes back percent-encoded.
    @Test func controlCharactersNeverMatchAndTheQueryIsEncoded() async throws {
        let h = try await Harness.make(extra: Self.cheap)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.secretLink).json?["code"]?.stringValue)
            for tried in ["correct+horse%00", "correct+horse%00%00", "%00correct+horse", "correct+horse%0A"] {
                #expect(try await Self.post(client, code, "password=" + tried).0 == .forbidden, "\(tried)")
            }
            let right = try await Self.post(client, code, "password=correct+horse&query=" + "a=<b> c\"#d".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(right.0 == .seeOther && right.1[.location] == "/i/\(code)?a=%3Cb%3E%20c%22%23d", "\(right.1)")
        }
    }

    /// `links.passwordCost` outside 10–20 stops the configuration, with its key and why.
    @Test func aPasswordCostOutsideItsRangeIsRefused() throws {
        for cost in [9, 21] {
            #expect {
                _ = try ServiceConfiguration(document: try StructuredDocument.parse(yaml: "hosts: [a.example]\napple: [{teamId: ABCDE12345, bundleId: a.b}]\nroutes: []\nlinks: {passwordCost: \(cost)}\n"))
            } throws: { error in
                (error as? ConfigurationError)?.message.hasPrefix("links.passwordCost: \(cost) is outside 10–20") == true
            }
        }
    }
}
