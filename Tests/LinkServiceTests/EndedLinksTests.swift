import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkCache
import LinkImport
import LinkRequests
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// An expired or used-up link that goes somewhere: its own `expiredURL`, else the domain's
/// `landing.expiredURL` (a 302), else the 410 page with the way on it had; the API still finds
/// it and says which end it met, apart from a code that never existed.
@Suite struct EndedLinksTests {
    @Test(arguments: Backend.available)
    func anEndedLinkSendsVisitorsToItsExpiredURL(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer,
                                                body: #"{"deepLink": "plur://group/s", "expiresIn": 60, "expiredURL": "https://rabble.community/events/past"}"#)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json?["expiredURL"]?.stringValue == "https://rabble.community/events/past")
            #expect(created.json?["state"]?.stringValue == "active")
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.desktop]).status == .ok)
            h.clock.advance(120)
            for (method, agent) in [(HTTPRequest.Method.get, LandingPageTests.desktop), (.get, LandingPageTests.iPhone), (.head, LandingPageTests.desktop),
                                    (.get, "Slackbot-LinkExpanding 1.0")] {
                let ended = try await client.call(method, "/i/\(code)", headers: [.userAgent: agent])
                #expect(ended.status == .found, "\(method) \(agent): \(ended.status) \(ended.text)")
                #expect(ended.headers[.location] == "https://rabble.community/events/past")
                #expect(ended.headers[.cacheControl] == "no-store")
            }
            // The API still finds it, and says it expired; an unknown code is a 404.
            let read = try await client.call(.get, "/api/links/\(code)", token: h.reader)
            #expect(read.status == .ok && read.json?["state"]?.stringValue == "expired", "\(read.text)")
            #expect(try await client.call(.get, "/api/links/never1", token: h.reader).status == .notFound)
            let listed = try await client.call(.get, "/api/links", token: h.reader)
            #expect(listed.json?["links"]?.arrayValue?.first(where: { $0["code"]?.stringValue == code })?["state"]?.stringValue == "expired", "\(listed.text)")

            // Its own page is no place to send its visitors: the 410 page.
            let itself = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"expiredURL": "https://rabble.community/i/\#(code)"}"#)
            #expect(itself.status == .ok, "\(itself.text)")
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.desktop]).status == .gone)

            // Cleared (null): the 410 page with the way on again.
            let cleared = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"expiredURL": null}"#)
            #expect(cleared.status == .ok && cleared.json?["expiredURL"] == .null, "\(cleared.text)")
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.desktop]).status == .gone)

            // Used up: the first visit is the link's, the next goes to its expiredURL.
            let once = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/secret-once", "maxUses": 1, "expiredURL": "https://rabble.community/invites/used"}"#).json?["code"]?.stringValue)
            let first = try await client.call(.get, "/i/\(once)", headers: [.userAgent: LandingPageTests.iPhone])
            #expect(first.status == .ok && first.text.contains("secret-once"))
            let second = try await client.call(.get, "/i/\(once)", headers: [.userAgent: LandingPageTests.iPhone])
            #expect(second.status == .found && second.headers[.location] == "https://rabble.community/invites/used", "\(second.status)")
            #expect(!second.text.contains("secret-once"))
            h.clock.advance(5)
            let state = try await client.call(.get, "/api/links/\(once)", token: h.reader)
            #expect(state.json?["state"]?.stringValue == "used-up", "\(state.text)")
            // The dashboard says where its page sends visitors now.
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let page = try await browser.get("/admin/links/\(once)")
            #expect(page.text.contains("so its page sends visitors to https://rabble.community/invites/used and its QR code answers 410 Gone."), "\(page.text)")
        }
    }

    /// A used-up link's visits are no visits, however many: past the client's visit budget too
    /// (a red-team find: those were folded into the records before the use was refused).
    @Test func visitsToAUsedUpLinkAreNotRecorded() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/x", "maxUses": 1, "expiredURL": "https://rabble.community/used"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.iPhone]).status == .ok)
            for _ in 0..<(VisitBudget.perMinute + 30) {
                #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.iPhone]).status == .found)
            }
            try await h.service.flushClicks()
            let records = try await h.store.visits(code: code)
            #expect(records.reduce(0) { $0 + $1.count } == 1, "\(records)")
            #expect(try await h.store.link(code: code)?.clicks == 1)
        }
    }

    /// `expiredURL` is checked as `webURL` is: an http(s) URL on a host the configuration allows.
    @Test func anExpiredURLIsCheckedAsAWebFallbackIs() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for url in ["https://evil.example/phish", "javascript:alert(1)", "plur://group/x", "not a url"] {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: JSONWriter.compact(.object([
                    ("deepLink", .string("plur://group/s")), ("expiredURL", .string(url)),
                ])))
                #expect(r.status == .badRequest, "\(url): \(r.text)")
                #expect(r.json?.at("error.field")?.stringValue == "expiredURL", "\(url): \(r.text)")
            }
            // Held to 4,096 characters as it is stored: every é is %C3%A9.
            let long = try await client.call(.post, "/api/links", token: h.writer, body: JSONWriter.compact(.object([
                ("deepLink", .string("plur://group/s")), ("expiredURL", .string("https://rabble.community/" + String(repeating: "é", count: 2000))),
            ])))
            #expect(long.status == .badRequest && long.json?.at("error.message")?.stringValue
                == "expiredURL is 12025 characters once written as browsers send it (characters other than ASCII percent-encoded); at most 4096", "\(long.text)")
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/s"}"#).json?["code"]?.stringValue)
            let patched = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"expiredURL": "https://evil.example/x"}"#)
            #expect(patched.status == .badRequest && patched.json?.at("error.field")?.stringValue == "expiredURL", "\(patched.text)")
        }
    }

    /// `expiredURL` goes through `export csv` and `import csv`, checked on the way in.
    @Test func anExpiredURLRoundTripsThroughCSV() async throws {
        let h = try await Harness.make()
        var link = try LinkInput(configuration: h.service.configuration).read(try JSONParser.parse(#"{"deepLink": "plur://group/e", "expiredURL": "https://rabble.community/after"}"#), now: Date())
        link.code = "ends01"
        try await h.store.insert(link)
        let (csv, _, _) = try await LinkImport.export(from: h.store)
        #expect(csv.hasPrefix(LinkImport.columns.joined(separator: ",") + "\r\n") && csv.contains(",https://rabble.community/after,"), "\(csv)")
        let plan = try LinkImport(configuration: h.service.configuration).ownLinks(csv, now: Date())
        #expect(plan.links.map(\.expiredURL) == ["https://rabble.community/after"] && plan.problems.isEmpty, "\(plan.problems)")
        let foreign = try LinkImport(configuration: h.service.configuration).ownLinks(csv.replacingOccurrences(of: "https://rabble.community/after", with: "https://evil.example/x"), now: Date())
        #expect(foreign.links.isEmpty && foreign.problems.first?.message.contains("expiredURL") == true, "\(foreign.problems)")
    }

    /// Without a URL of its own, an ended link sends visitors to the domain's `landing.expiredURL`.
    @Test func theDomainsExpiredURLIsTheDefault() async throws {
        let h = try await Harness.make(extra: "landing:\n  expiredURL: https://rabble.community/ended\n")
        try await h.app().test(.router) { client in
            let own = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/a", "expiresIn": 60, "expiredURL": "https://rabble.community/own"}"#).json?["code"]?.stringValue)
            let plain = try #require(try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"deepLink": "plur://group/b", "expiresIn": 60}"#).json?["code"]?.stringValue)
            h.clock.advance(120)
            #expect(try await client.call(.get, "/i/\(own)").headers[.location] == "https://rabble.community/own")
            let fallback = try await client.call(.get, "/i/\(plain)", headers: [.userAgent: LandingPageTests.desktop])
            #expect(fallback.status == .found && fallback.headers[.location] == "https://rabble.community/ended", "\(fallback.status)")
        }
    }
}
