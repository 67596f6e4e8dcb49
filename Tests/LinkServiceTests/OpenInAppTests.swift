import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
import LinkPages
import SwitchyardCore
import Testing

/// A link made from a web route gets, as its page's "Open in the app", a URL that can open the
/// app: never a link of the page's own domain, which iOS keeps in Safari.
@Suite struct OpenInAppTests {
    static let iPhone = LandingPageTests.iPhone

    static func button(_ html: String) -> String? {
        guard let start = html.range(of: #"id="open-app" class="button" href=""#) else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// One host: a web route with no app route is said at creation (API and dashboard) and its
    /// page has no app button; one the app's scheme mirrors opens that; one `landing.pages`
    /// maps opens its app route.
    @Test func aWebRouteOnThePagesOwnDomainOpensItsAppRouteOrSaysWhyNot() async throws {
        let h = try await Harness.make(extra: "hosts: [rabble.community]\n" + Harness.routes(adding: [
            #"{name: product, pattern: "/p/{id:int}"}"#, #"{name: item, pattern: "/item/{id}"}"#, #"{name: appItem, pattern: "plur://item/{id}"}"#,
        ]))
        try await h.app().test(.router) { client in
            let product = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "product", "parameters": {"id": "42"}}"#)
            #expect(product.status == .created, "\(product.text)")
            let warning = try #require(product.json?["warnings"]?.arrayValue?.first?.stringValue, "\(product.text)")
            #expect(warning.hasPrefix("route product opens https://rabble.community/p/42, a link of the page's own domain (rabble.community)"), "\(warning)")
            #expect(warning.contains("landing.pages: {product: {app: APP_ROUTE}}"), "\(warning)")
            let code = try #require(product.json?["code"]?.stringValue)
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone])
            #expect(page.status == .ok && Self.button(page.text) == nil, "\(page.text)")
            #expect(!page.text.contains(#"href="https://rabble.community/p/42""#), "\(page.text)")
            // The same warning on GET, and on the link's dashboard page.
            let read = try await client.call(.get, "/api/links/\(code)", token: h.reader)
            #expect(read.json?["warnings"]?.arrayValue?.first?.stringValue == warning)
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.admin)
            let detail = try await browser.get("/admin/links/\(code)")
            #expect(detail.text.contains(#"<p class="notice" id="app-button-warning">route product opens https://rabble.community/p/42"#), "\(detail.text)")

            let item = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "item", "parameters": {"id": "7"}}"#)
            #expect(item.status == .created && item.json?["warnings"] == .null, "\(item.text)")
            let itemPage = try await client.call(.get, "/i/\(try #require(item.json?["code"]?.stringValue))", headers: [.userAgent: Self.iPhone])
            #expect(Self.button(itemPage.text) == "plur://item/7", "\(itemPage.text)")

            let group = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "group", "parameters": {"groupId": "g1"}}"#)
            let groupPage = try await client.call(.get, "/i/\(try #require(group.json?["code"]?.stringValue))", headers: [.userAgent: Self.iPhone])
            #expect(Self.button(groupPage.text) == "plur://group/g1", "\(groupPage.text)")
        }
    }

    /// The button is never a link of the page's own domain however the target gets there: a
    /// link embedded in a `{x:url}` route, a `landing.pages` pairing with another universal
    /// route, a route the table excludes (no button, and the warning says why). Dot segments
    /// and the service's own paths are refused as targets.
    @Test func noWayRoundLeadsTheButtonToThePagesOwnDomain() async throws {
        let h = try await Harness.make(extra: "hosts: [rabble.community]\n" + Harness.routes(adding: [
            #"{name: product, pattern: "/p/{id:int}"}"#, #"{name: other, pattern: "/o/{id:int}"}"#, #"{name: web, pattern: "/w/{u:url}"}"#,
            #"{name: legal, pattern: "/legal/{id}", exclude: true}"#, #"{name: shelf, pattern: "/s/{cat}/{rest:*}"}"#, #"{name: code, pattern: "/{code}"}"#,
        ]) + "landing:\n  title: Plur\n  pages:\n    other: product\n    group: {app: appGroup}\n")
        try await h.app().test(.router) { client in
            for (body, why) in [(#"{"route": "web", "parameters": {"u": "https://rabble.community/p/1"}}"#, "own domain"),
                                (#"{"route": "other", "parameters": {"id": "42"}}"#, "own domain"),
                                (#"{"route": "legal", "parameters": {"id": "1"}}"#, "excluded route legal")] {
                let made = try await client.call(.post, "/api/links", token: h.writer, body: body)
                #expect(made.status == .created, "\(made.text)")
                let warning = made.json?["warnings"]?.arrayValue?.first?.stringValue ?? ""
                #expect(warning.contains(why), "\(body): \(made.text)")
                let page = try await client.call(.get, "/i/\(try #require(made.json?["code"]?.stringValue))", headers: [.userAgent: Self.iPhone])
                #expect(Self.button(page.text) == nil, "\(body): \(page.text)")
            }
            // The route's own page (no stored link) follows the same rule.
            for path in ["/o/42", "/w/https://rabble.community/p/1"] {
                let page = try await client.call(.get, path, headers: [.userAgent: Self.iPhone])
                #expect(page.status == .ok && Self.button(page.text) == nil, "\(path): \(page.text)")
            }
            for body in [#"{"route": "shelf", "parameters": {"cat": "a", "rest": "../../admin"}}"#, #"{"route": "code", "parameters": {"code": "admin"}}"#,
                         #"{"route": "code", "parameters": {"code": ".."}}"#, #"{"deepLink": "https://rabble.community/api/links"}"#,
                         #"{"deepLink": "https://rabble.community/d/claimtoken"}"#, #"{"deepLink": "https://rabble.community/i/abc/qr.svg"}"#] {
                let refused = try await client.call(.post, "/api/links", token: h.writer, body: body)
                #expect(refused.status == .badRequest && refused.json?["error"]?["code"]?.stringValue == "invalid-deep-link", "\(body): \(refused.text)")
            }
        }
    }

    /// Another spelling of the page's own host (a trailing dot) is no other domain: no button.
    @Test func aTrailingDotIsTheSameDomain() async throws {
        let h = try await Harness.make(extra: "hosts: [rabble.community, rabble.community.]\n" + Harness.routes(adding: [#"{name: product, pattern: "/p/{id:int}"}"#]))
        try await h.app().test(.router) { client in
            let product = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "product", "parameters": {"id": "42"}}"#)
            #expect(product.json?["warnings"]?.arrayValue?.count == 1, "\(product.text)")
            let page = try await client.call(.get, "/i/\(try #require(product.json?["code"]?.stringValue))", headers: [.userAgent: Self.iPhone])
            #expect(Self.button(page.text) == nil, "\(page.text)")
        }
    }

    /// With another of the table's hosts, the unpaired web route opens the app through it.
    @Test func aWebRouteOpensThroughAnotherOfTheTablesHosts() async throws {
        let h = try await Harness.make(extra: Harness.routes(adding: [#"{name: product, pattern: "/p/{id:int}"}"#]))
        try await h.app().test(.router) { client in
            let product = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "product", "parameters": {"id": "42"}}"#)
            #expect(product.status == .created && product.json?["warnings"] == .null, "\(product.text)")
            let page = try await client.call(.get, "/i/\(try #require(product.json?["code"]?.stringValue))", headers: [.userAgent: Self.iPhone])
            #expect(Self.button(page.text) == "https://www.rabble.community/p/42", "\(page.text)")
        }
    }
}

/// The landing defaults are checked once: the configuration refuses one on a host it does not
/// allow, at load, naming the key; the service keeps the checked defaults and every page starts
/// from them.
@Suite struct LandingDefaultsTests {
    @Test func theDefaultsAreCheckedOnceAndEveryPageStartsFromThem() async throws {
        let allowed = try await Harness.make(extra: "landing:\n  title: Plur\n  webURL: https://rabble.community/about\n")
        #expect(allowed.service.routes.landing.pages.defaults.webURL == "https://rabble.community/about")
        let page = allowed.service.routes.landing.pages.basePage(pageURL: "https://rabble.community/i/x")
        #expect(page.pageURL == "https://rabble.community/i/x" && page.webURL == "https://rabble.community/about" && page.title == "Plur")
        await #expect(throws: (any Error).self) { try await Harness.make(extra: "landing:\n  title: Plur\n  webURL: https://elsewhere.example/about\n") }
        do { _ = try await Harness.make(extra: "landing:\n  title: Plur\n  webURL: https://elsewhere.example/about\n") } catch {
            #expect("\(error)".contains("landing.webURL: host elsewhere.example is not one of the configuration's hosts"), "\(error)")
        }
    }
}
