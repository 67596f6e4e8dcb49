import AssociatedDomains
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
import LinkImport
@testable import LinkRequests
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Two domains on one service (`Examples/domains-config.yaml`), asked over a real socket with
/// the Host header a browser sends: each host gets its own domain's association files and route
/// pages, on the event-loop lane and through the router alike, and a host no domain names gets 421.
@Suite struct DomainsTests {
    static let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/domains-config.yaml").standardized.path

    static func service(backend: Backend = .sqlite, extra: String = "") async throws -> LinkService {
        var configuration = try ServiceConfiguration(contentsOf: config)
        if !extra.isEmpty {
            let path = Backend.temporaryPath("domains") + "/config.yaml"
            try (try String(contentsOfFile: config, encoding: .utf8) + "\n" + extra + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            configuration = try ServiceConfiguration(contentsOf: path)
        }
        return try LinkService(configuration: configuration, store: try await backend.freshStore())
    }

    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

    /// The claim token a phone's page carries (its `/d/…` URL), and that URL's host.
    static func claim(in page: String) throws -> (host: String, token: String) {
        let match = try #require(page.firstMatch(of: /https:\/\/([a-z.]+)\/d\/([A-Za-z0-9_-]{43})/), "no claim URL in the page")
        return (String(match.1), String(match.2))
    }

    /// A phone's visit to one domain's page gets a claim of that domain: its claim page answers on
    /// that domain's hosts only, with that domain's app; a probabilistic match is made only by
    /// the domain the app asks, so one domain's app never takes another's visit.
    @Test(arguments: [false, true])
    func claimsStayOnTheirDomain(probabilistic: Bool) async throws {
        let service = try await Self.service(extra: "deferred: {probabilisticMatching: \(probabilistic)}")
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        try await service.store.insert(all.record)
        try await service.application(port: 0).test(.live) { client in
            let port = try #require(client.port)
            #expect(try await Self.send(port, "POST", "/api/links", token: all.token, body: #"{"code": "shoplnk", "domain": "shop", "deepLink": "shop://product/l1"}"#).status == 201)
            // A route page's claim (stored) and a link page's claim (signed, without matching).
            for path in ["/p/sku-9", "/i/shoplnk"] {
                let page = try await Self.get(port, path, host: "go.shop.example", userAgent: Self.iPhone)
                #expect(page.status == 200, "\(path)")
                let (host, token) = try Self.claim(in: page.body)
                #expect(host == "go.shop.example")
                let own = try await Self.get(port, "/d/\(token)", host: "go.shop.example", userAgent: Self.iPhone)
                #expect(own.status == 200 && own.body.contains("shop://product/") && !own.body.contains("rabble.community") && !own.body.contains("1234567890"),
                        "\(path): \(own.status) \(own.body.prefix(300))")
                let other = try await Self.get(port, "/d/\(token)", host: "rabble.community", userAgent: Self.iPhone)
                #expect(other.status == 404 && !other.body.contains("shop://"), "\(path): \(other.status)")
            }
            guard probabilistic else { return }
            // The shop page's visit is the shop's: Plur's app finds nothing, the shop's app finds it.
            let plurAsks = try await Self.send(port, "POST", "/api/deferred/match", host: "rabble.community", body: #"{"platform": "ios"}"#)
            #expect(plurAsks.status == 404 && plurAsks.body.contains("no-match"), "\(plurAsks.body)")
            let strangerAsks = try await Self.send(port, "POST", "/api/deferred/match", host: "evil.example", body: #"{"platform": "ios"}"#)
            #expect(strangerAsks.status == 404 && strangerAsks.body.contains("no domain is served at this request's host"), "\(strangerAsks.body)")
            let shopAsks = try await Self.send(port, "POST", "/api/deferred/match", host: "go.shop.example", body: #"{"platform": "ios"}"#)
            #expect(shopAsks.status == 200 && shopAsks.body.contains("shop://product/") && shopAsks.body.contains(#""match":"probabilistic""#), "\(shopAsks.body)")
        }
    }

    /// One GET of `path` on `host`, answered over a new connection: status and body.
    static func get(_ port: Int, _ path: String, host: String, userAgent: String = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0") async throws -> (status: Int, body: String) {
        let raw = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(userAgent)\r\nConnection: close\r\n\r\n"
        let answers = try await blocking(limited: false) { try RawConnection.exchange(port: port, raw, expecting: 1) }
        return try #require(answers.first, "no answer to \(path) on \(host)")
    }

    /// Firebase short links map to the domain whose URL prefix (or host) they are under, their
    /// code the segment after it: imported, they answer at their old path on that domain's
    /// hosts; the REST API makes them under the prefix asked; long links answer at a prefix too.
    @Test func firebasePrefixesMapToTheirDomain() async throws {
        let service = try await Self.service()
        let plan = try LinkImport(configuration: service.configuration).firebase("""
            shortLink,longLink
            https://shop.page.link/abc,https://shop.page.link/?link=https://go.shop.example/p/1&ibi=example.shop.app
            https://go.shop.example/invite/xyz,https://go.shop.example/invite?link=https://go.shop.example/p/2&ibi=example.shop.app
            https://rabble.page.link/abc,https://rabble.page.link/?link=https://rabble.community/g/1&ibi=community.rabble.plur
            https://go.shop.example/root1,https://go.shop.example/?link=https://go.shop.example/p/3&ibi=example.shop.app
            https://elsewhere.page.link/q1,https://elsewhere.page.link/?link=https://rabble.community/g/2
            https://shop.page.link/deep/er,https://shop.page.link/?link=https://go.shop.example/p/4
            """, now: Date())
        #expect(plan.links.map(\.code) == ["shop/abc", "shop/xyz", "abc", "shop/root1", "q1"], "\(plan.problems)")
        #expect(plan.problems.map(\.line) == [7])
        #expect(plan.notes.contains { $0.contains("elsewhere.page.link") } && !plan.notes.contains { $0.contains("shop.page.link") })
        _ = try await service.store.importLinks(plan.links)
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        try await service.store.insert(all.record)
        try await service.application(port: 0).test(.live) { client in
            let port = try #require(client.port)
            // Imported links at their old paths, on their domain's hosts only.
            for (path, host, status) in [("/abc", "go.shop.example", 200), ("/invite/xyz", "go.shop.example", 200), ("/root1", "go.shop.example", 200),
                                         ("/abc", "rabble.community", 200), ("/invite/xyz", "rabble.community", 404), ("/xyz", "rabble.community", 404),
                                         ("/root1", "rabble.community", 404), ("/invite/abc", "go.shop.example", 200)] {
                let page = try await Self.get(port, path, host: host)
                #expect(page.status == status, "\(host)\(path): \(page.status)")
            }
            let shopAbc = try await Self.get(port, "/abc", host: "go.shop.example")
            #expect(shopAbc.body.contains("go.shop.example/p/1") && !shopAbc.body.contains("rabble.community/g/1"))
            // The API shows an imported link at its domain's first prefix on its hosts.
            let read = try Self.json(try await Self.send(port, "GET", "/api/links/xyz?domain=shop", token: all.token).body)
            #expect(read["url"] == .string("https://go.shop.example/invite/xyz") && read["kind"] == .string("fdl"))

            // Firebase's REST API: a short link under the prefix asked, served there.
            for (prefix, host, path) in [("https://go.shop.example/invite", "go.shop.example", "/invite/"), ("https://go.shop.example", "go.shop.example", "/")] {
                let made = try await Self.send(port, "POST", "/v1/shortLinks?key=\(all.token)", body: """
                    {"dynamicLinkInfo": {"domainUriPrefix": "\(prefix)", "link": "https://go.shop.example/p/9", "iosInfo": {"iosBundleId": "example.shop.app"}}}
                    """)
                #expect(made.status == 200, "\(made.body)")
                let short = try #require(try Self.json(made.body)["shortLink"]?.stringValue)
                #expect(short.hasPrefix(prefix + "/"))
                let code = String(short.dropFirst(prefix.count + 1))
                #expect(try await Self.get(port, path + code, host: host).status == 200, "\(short)")
                #expect(try await Self.get(port, path + code, host: "rabble.community").status == 404)
                let stats = try await Self.send(port, "GET", "/v1/\(short.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)/linkStats?durationDays=7&key=\(all.token)")
                #expect(stats.status == 200, "\(stats.body)")
            }
            let pageLink = try await Self.send(port, "POST", "/v1/shortLinks?key=\(all.token)", body: #"{"longDynamicLink": "https://shop.page.link/?link=https://go.shop.example/p/1"}"#)
            #expect(pageLink.status == 400 && pageLink.body.contains("not on one of its hosts"), "\(pageLink.body)")
            let unknown = try await Self.send(port, "POST", "/v1/shortLinks?key=\(all.token)", body: #"{"longDynamicLink": "https://nope.page.link/?link=https://go.shop.example/p/1"}"#)
            #expect(unknown.status == 400 && unknown.body.contains("does not serve the Dynamic Links domain"), "\(unknown.body)")

            // A long link at a prefix's path is the domain's.
            let long = try await Self.get(port, "/invite?link=https%3A%2F%2Fgo.shop.example%2Fp%2F5&ibi=example.shop.app", host: "go.shop.example")
            #expect(long.status == 200 && long.body.contains("shop://product/5") || long.body.contains("go.shop.example/p/5"), "\(long.status) \(long.body.prefix(300))")
        }
    }

    /// `export csv` writes each link's domain beside its code, and `import csv` puts it back on
    /// that domain (a file without the column, or an empty cell, is the first domain's).
    @Test func exportsKeepEachLinksDomain() async throws {
        let service = try await Self.service()
        let configuration = service.configuration
        var plur = try LinkInput(configuration: configuration).read(try JSONParser.parse(#"{"deepLink": "plur://group/e"}"#), now: Date())
        plur.code = "same1"
        var shop = try LinkInput(configuration: configuration.servedDomains[1]).read(try JSONParser.parse(#"{"route": "appProduct", "parameters": {"sku": "e1"}}"#), now: Date())
        shop.code = "shop/same1"
        try await service.store.insert(plur)
        try await service.store.insert(shop)
        let (csv, count, _) = try await LinkImport.export(from: service.store)
        #expect(count == 2)
        let rows = csv.split(separator: "\r\n").map(String.init)
        #expect(rows[0].hasSuffix(",tags,expiredURL,domain"))
        #expect(rows.dropFirst().contains { $0.hasPrefix("same1,link,plur://group/e,") && $0.hasSuffix(",") })
        #expect(rows.dropFirst().contains { $0.hasPrefix("same1,link,,appProduct,") && $0.hasSuffix(",shop") })
        let plurRow = try #require(rows.first { $0.hasPrefix("same1,link,plur://") })
        let plan = try LinkImport(configuration: configuration).ownLinks(csv + plurRow.replacingOccurrences(of: "same1", with: "other1") + "\r\n"
            + plurRow.replacingOccurrences(of: "same1", with: "lost1") + "nope\r\n", now: Date())
        #expect(Set(plan.links.map(\.code)) == ["same1", "shop/same1", "other1"], "\(plan.problems)")
        #expect(plan.problems.map(\.message) == [#"domain "nope" is no domain of this configuration (domains: plur, shop)"#])
    }

    /// The dashboard lists one domain's links at a time and switches between them; another
    /// domain's link is `name:code` in its paths, shown, made, edited and deleted as its own
    /// domain has it (its routes, its QR images).
    @Test func theDashboardSwitchesBetweenDomains() async throws {
        let service = try await Self.service()
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        try await service.store.insert(all.record)
        var plur = try LinkInput(configuration: service.configuration).read(try JSONParser.parse(#"{"deepLink": "plur://group/d", "title": "Plur same"}"#), now: Date())
        plur.code = "same1"
        var shop = try LinkInput(configuration: service.configuration.servedDomains[1]).read(try JSONParser.parse(#"{"deepLink": "shop://product/d", "title": "Shop same"}"#), now: Date())
        shop.code = "shop/same1"
        try await service.store.insert(plur)
        try await service.store.insert(shop)
        try await service.application(port: 0).test(.router) { client in
            var browser = DashboardTests.Browser(client: client)
            try await browser.signIn(all.token)
            let plurList = try await browser.get("/admin")
            #expect(plurList.text.contains(#"href="/admin/links/same1""#) && plurList.text.contains("Plur same") && !plurList.text.contains("Shop same"))
            #expect(plurList.text.contains(#"<b aria-current="page">plur</b> <a href="/admin?domain=shop">shop</a>"#), "\(plurList.text)")
            let shopList = try await browser.get("/admin?domain=shop")
            #expect(shopList.text.contains(#"href="/admin/links/shop:same1""#) && shopList.text.contains("Shop same") && !shopList.text.contains("Plur same"))
            #expect(shopList.text.contains(#"<input type="hidden" name="domain" value="shop">"#) && shopList.text.contains(#"href="/admin/new?domain=shop""#))
            let detail = try await browser.get("/admin/links/shop:same1")
            #expect(detail.status == .ok && detail.text.contains("Shop same") && detail.text.contains(#"src="https://go.shop.example/i/same1/qr.svg""#))
            #expect(detail.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("img-src 'self' https://go.shop.example;") == true)
            // With several domains every link's QR image is on its own domain's host, the first's too.
            let plurDetail = try await browser.get("/admin/links/same1")
            #expect(plurDetail.text.contains("Plur same") && plurDetail.text.contains(#"src="https://rabble.community/i/same1/qr.svg""#))
            #expect(try await browser.get("/admin?domain=nope").status == .notFound)

            // Made, edited and deleted on its domain, with its domain's routes.
            let form = try await browser.get("/admin/new?domain=shop")
            #expect(form.text.contains("New link on shop") && form.text.contains(#"<option value="appProduct">"#) && !form.text.contains(#"<option value="appGroup">"#))
            let csrf = try await browser.csrf("/admin/new?domain=shop")
            let made = try await browser.post("/admin/links", [("csrf", csrf), ("domain", "shop"), ("code", "made1"), ("route", "appProduct"), ("parameters", "sku=9")])
            #expect(made.status == .seeOther && made.headers[.location] == "/admin/links/shop:made1?saved=1", "\(made.status) \(made.text.prefix(400))")
            let stored = try await service.store.link(code: "shop/made1")
            #expect(stored?.route == "appProduct" && stored?.parameters.first?.1 == "9")
            let edited = try await browser.post("/admin/links/shop:made1", [("csrf", csrf), ("title", "Edited")])
            let after = try await service.store.link(code: "shop/made1")
            #expect(edited.status == .seeOther && after?.title == "Edited")
            let deleted = try await browser.post("/admin/links/shop:made1/delete", [("csrf", csrf), ("confirm", "yes")])
            #expect(deleted.status == .seeOther && deleted.headers[.location] == "/admin?deleted=shop:made1&domain=shop")
            let gone = try await service.store.link(code: "shop/made1"), kept = try await service.store.link(code: "same1")
            #expect(gone == nil && kept != nil)
        }
    }

    /// Two nodes on one PostgreSQL database: a link made on one domain through one node is that
    /// domain's on the other (its page on its hosts only), and a deletion on either reaches both.
    @Test(.enabled(if: Backend.available.contains(.postgres), "needs PostgreSQL (SWITCHYARD_TEST_POSTGRES)"))
    func twoNodesServeEachDomainsLinks() async throws {
        let location = try await Backend.postgres.freshLocation()
        let configuration = try ServiceConfiguration(contentsOf: Self.config)
        let a = try LinkService(configuration: configuration, store: try await LinkStore.open(location))
        let b = try LinkService(configuration: configuration, store: try await LinkStore.open(location))
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        try await a.store.insert(all.record)
        try await a.application(port: 0).test(.live) { nodeA in
            try await b.application(port: 0).test(.live) { nodeB in
                let (portA, portB) = (try #require(nodeA.port), try #require(nodeB.port))
                for (domain, deepLink) in [("plur", "plur://group/two"), ("shop", "shop://product/two")] {
                    let made = try await Self.send(portA, "POST", "/api/links", token: all.token, body: #"{"code": "twonode1", "domain": "\#(domain)", "deepLink": "\#(deepLink)"}"#)
                    #expect(made.status == 201, "\(made.body)")
                }
                let shopPage = try await Self.get(portB, "/i/twonode1", host: "go.shop.example")
                #expect(shopPage.status == 200 && shopPage.body.contains("shop://product/two"))
                let plurPage = try await Self.get(portB, "/i/twonode1", host: "rabble.community")
                #expect(plurPage.status == 200 && plurPage.body.contains("plur://group/two"))
                let read = try Self.json(try await Self.send(portB, "GET", "/api/links/twonode1?domain=shop", token: all.token).body)
                #expect(read["domain"] == .string("shop") && read["url"] == .string("https://go.shop.example/i/twonode1"))
                #expect(try await Self.send(portB, "DELETE", "/api/links/twonode1?domain=shop", token: all.token).status == 204)
                // Node A forgets it when the deletion is announced (or its cached copy expires).
                var status = 200
                for _ in 0..<50 where status == 200 {
                    status = try await Self.get(portA, "/i/twonode1", host: "go.shop.example").status
                    if status == 200 { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(status == 404)
                #expect(try await Self.get(portA, "/i/twonode1", host: "rabble.community").status == 200)
            }
        }
        await a.store.close()
        await b.store.close()
    }

    /// Firebase's REST API takes a domain's punycode host as browsers write it.
    @Test func theRESTAPITakesAPunycodeHost() async throws {
        let path = Backend.temporaryPath("puny") + "/config.yaml"
        try """
            domains:
              - {name: plur, hosts: [rabble.community], apple: [{teamId: ABCDE12345, bundleId: community.rabble.plur, scheme: plur}], routes: [{name: g, pattern: "plur://g/{id}"}]}
              - {name: books, hosts: [bücher.example], apple: [{teamId: FGHIJ67890, bundleId: example.books, scheme: books}], routes: [{name: b, pattern: "books://b/{id}"}],
                 fdlPrefixes: ["https://bücher.example/go"]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let service = try LinkService(configuration: try ServiceConfiguration(contentsOf: path), store: try await Backend.sqlite.freshStore())
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        try await service.store.insert(all.record)
        try await service.application(port: 0).test(.live) { client in
            let port = try #require(client.port)
            for prefix in ["https://xn--bcher-kva.example", "https://xn--bcher-kva.example/go"] {
                let made = try await Self.send(port, "POST", "/v1/shortLinks?key=\(all.token)", body: """
                    {"dynamicLinkInfo": {"domainUriPrefix": "\(prefix)", "link": "https://xn--bcher-kva.example/x", "iosInfo": {"iosBundleId": "example.books"}}}
                    """)
                #expect(made.status == 200 && made.body.contains(#""shortLink":"\#(prefix)/"#), "\(made.body)")
            }
        }
    }

    /// The comparison with Apple's CDN covers every host of every domain, each with its own AASA.
    @Test func appleCDNComparisonCoversEveryDomainsHosts() throws {
        let configuration = try ServiceConfiguration(contentsOf: Self.config)
        let watch = AppleCDNWatch(settings: AppleCDNSettings(), configuration: configuration, metrics: ServiceMetrics())
        #expect(watch.health.hosts.map(\.host) == ["rabble.community", "www.rabble.community", "go.shop.example"])
        #expect(watch.health.hosts.allSatisfy { $0.state == "not checked yet" })
    }

    /// One request over a new connection: status and body.
    static func send(_ port: Int, _ method: String, _ path: String, host: String = "api.example", token: String? = nil, body: String? = nil) async throws -> (status: Int, body: String) {
        var raw = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let token { raw += "Authorization: Bearer \(token)\r\n" }
        if let body { raw += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        raw += "\r\n" + (body ?? "")
        let request = raw
        let answers = try await blocking(limited: false) { try RawConnection.exchange(port: port, request, expecting: 1) }
        return try #require(answers.first, "no answer to \(method) \(path)")
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    /// A code belongs to the domain it was made on: the same code on two domains is two links,
    /// each with its own domain's URL, routes and page, found only on its own hosts; a token
    /// limited to one domain makes, reads and lists that domain's links and is refused (403) on
    /// the other's.
    @Test(arguments: Backend.available)
    func linksBelongToTheDomainTheyAreMadeOn(backend: Backend) async throws {
        let service = try await Self.service(backend: backend)
        let all = APIToken.issue(name: "all", scopes: [.linksWrite, .linksRead])
        let shopOnly = APIToken.issue(name: "shop-only", scopes: [.linksWrite, .linksRead], domains: ["shop"])
        try await service.store.insert(all.record)
        try await service.store.insert(shopOnly.record)
        #expect(shopOnly.record.scopes == ["links:write@shop", "links:read@shop"])
        try await service.application(port: 0).test(.live) { client in
            let port = try #require(client.port)
            let plur = try await Self.send(port, "POST", "/api/links", token: all.token,
                                           body: #"{"code": "same1", "route": "appGroup", "parameters": {"groupId": "g1"}, "title": "Plur same"}"#)
            #expect(plur.status == 201, "\(plur.body)")
            let plurLink = try Self.json(plur.body)
            #expect(plurLink["domain"] == .string("plur") && plurLink["code"] == .string("same1"))
            #expect(plurLink["url"] == .string("https://rabble.community/i/same1") && plurLink["deepLink"] == .string("plur://group/g1"))
            let shop = try await Self.send(port, "POST", "/api/links", token: all.token,
                                           body: #"{"code": "same1", "domain": "shop", "route": "appProduct", "parameters": {"sku": "s1"}, "title": "Shop same"}"#)
            #expect(shop.status == 201, "\(shop.body)")
            let shopLink = try Self.json(shop.body)
            #expect(shopLink["domain"] == .string("shop") && shopLink["code"] == .string("same1"))
            #expect(shopLink["url"] == .string("https://go.shop.example/i/same1") && shopLink["deepLink"] == .string("shop://product/s1"))
            // Taken on its domain; checked against its domain's routes; a domain no one has.
            let again = try await Self.send(port, "POST", "/api/links", token: all.token, body: #"{"code": "same1", "domain": "shop", "deepLink": "shop://product/x"}"#)
            #expect(again.status == 409 && again.body.contains("code same1 is already taken"), "\(again.body)")
            let wrongRoute = try await Self.send(port, "POST", "/api/links", token: all.token, body: #"{"domain": "shop", "route": "appGroup", "parameters": {"groupId": "g"}}"#)
            #expect(wrongRoute.status == 400 && wrongRoute.body.contains("invalid-route"), "\(wrongRoute.body)")
            let nowhere = try await Self.send(port, "POST", "/api/links", token: all.token, body: #"{"domain": "nope", "deepLink": "plur://group/x"}"#)
            #expect(nowhere.status == 400 && nowhere.body.contains(#""code":"invalid-domain""#) && nowhere.body.contains("domains: plur, shop"), "\(nowhere.body)")
            // The domain in the query, as the other endpoints take it; one that disagrees with the body is refused.
            let queried = try Self.json(try await Self.send(port, "POST", "/api/links?domain=shop", token: all.token, body: #"{"deepLink": "shop://product/q"}"#).body)
            #expect(queried["domain"] == .string("shop"))
            let disagreeing = try await Self.send(port, "POST", "/api/links?domain=shop", token: all.token, body: #"{"domain": "plur", "deepLink": "plur://group/q"}"#)
            #expect(disagreeing.status == 400 && disagreeing.body.contains("in the body and"), "\(disagreeing.body)")
            // A generated code on another domain.
            let generated = try Self.json(try await Self.send(port, "POST", "/api/links", token: all.token, body: #"{"domain": "shop", "deepLink": "shop://product/g"}"#).body)
            let generatedCode = try #require(generated["code"]?.stringValue)
            #expect(!generatedCode.contains("/") && generated["url"] == .string("https://go.shop.example/i/\(generatedCode)"))

            // Each domain's page on its own hosts.
            let plurPage = try await Self.get(port, "/i/same1", host: "rabble.community")
            #expect(plurPage.status == 200 && plurPage.body.contains("Plur same") && !plurPage.body.contains("Shop same"))
            let shopPage = try await Self.get(port, "/i/same1", host: "go.shop.example")
            #expect(shopPage.status == 200 && shopPage.body.contains("Shop same") && shopPage.body.contains("shop://product/s1"), "\(shopPage.body.prefix(400))")
            #expect(try await Self.get(port, "/i/\(generatedCode)", host: "rabble.community").status == 404)
            #expect(try await Self.get(port, "/i/\(generatedCode)", host: "go.shop.example").status == 200)
            #expect(try await Self.get(port, "/i/same1/qr.svg", host: "go.shop.example").status == 200)

            // The API: each link by its domain.
            let readShop = try Self.json(try await Self.send(port, "GET", "/api/links/same1?domain=shop", token: all.token).body)
            #expect(readShop["title"] == .string("Shop same"))
            let readPlur = try Self.json(try await Self.send(port, "GET", "/api/links/same1", token: all.token).body)
            #expect(readPlur["title"] == .string("Plur same"))
            let listShop = try Self.json(try await Self.send(port, "GET", "/api/links?domain=shop", token: all.token).body)
            #expect(listShop["links"]?.arrayValue?.compactMap { $0["domain"]?.stringValue } == ["shop", "shop", "shop"])
            let listAll = try Self.json(try await Self.send(port, "GET", "/api/links", token: all.token).body)
            #expect(Set(listAll["links"]?.arrayValue?.compactMap { $0["domain"]?.stringValue } ?? []) == ["plur", "shop"])
            #expect(try await Self.send(port, "PATCH", "/api/links/same1?domain=shop", token: all.token, body: #"{"domain": "plur"}"#).body.contains("immutable-field"))

            // A token of one domain: its domain by default, refused on the other.
            let own = try Self.json(try await Self.send(port, "GET", "/api/links/same1", token: shopOnly.token).body)
            #expect(own["domain"] == .string("shop"))
            let other = try await Self.send(port, "GET", "/api/links/same1?domain=plur", token: shopOnly.token)
            #expect(other.status == 403 && other.body.contains("may use links:read on shop only, not on plur") && !other.body.contains("Plur same"), "\(other.body)")
            #expect(try await Self.send(port, "GET", "/api/links/same1/stats?domain=plur", token: shopOnly.token).status == 403)
            #expect(try await Self.send(port, "GET", "/api/links/same1/visits?domain=plur", token: shopOnly.token).status == 403)
            #expect(try await Self.send(port, "DELETE", "/api/links/same1?domain=plur", token: shopOnly.token).status == 403)
            #expect(try await Self.send(port, "POST", "/api/links", token: shopOnly.token, body: #"{"domain": "plur", "deepLink": "plur://group/x"}"#).status == 403)
            let made = try Self.json(try await Self.send(port, "POST", "/api/links", token: shopOnly.token, body: #"{"deepLink": "shop://product/own"}"#).body)
            #expect(made["domain"] == .string("shop"))
            let listed = try Self.json(try await Self.send(port, "GET", "/api/links", token: shopOnly.token).body)
            #expect(listed["links"]?.arrayValue?.allSatisfy { $0["domain"] == .string("shop") } == true && listed["links"]?.arrayValue?.count == 4)
            // The stats across links: one domain's with `domain`, a limited token's domains only.
            try await service.flushClicks()
            func visits(_ query: String, _ token: String) async throws -> Int64? {
                guard case .number(let n, _)? = try Self.json(try await Self.send(port, "GET", "/api/stats?by=platform" + query, token: token).body)["visits"] else { return nil }
                return Int64(n)
            }
            let (everyDomain, shopVisits, plurVisits) = (try await visits("", all.token), try await visits("&domain=shop", all.token), try await visits("&domain=plur", all.token))
            #expect((shopVisits ?? 0) > 0 && (plurVisits ?? 0) > 0 && everyDomain == (shopVisits ?? 0) + (plurVisits ?? 0), "\(String(describing: everyDomain)) \(String(describing: shopVisits)) \(String(describing: plurVisits))")
            #expect(try await visits("", shopOnly.token) == shopVisits)
            #expect(try await Self.send(port, "GET", "/api/stats?by=platform&domain=plur", token: shopOnly.token).status == 403)
            // The QR code `link qr` writes is the link's, on its domain.
            let qr = try await LinkService.qrImage(code: "same1", domain: "shop", in: service.store, configuration: service.configuration, png: false)
            #expect(qr.url == "https://go.shop.example/i/same1")
            await #expect(throws: QRRefusal.self) { try await LinkService.qrImage(code: "shop/same1", in: service.store, configuration: service.configuration, png: false) }
            // What covers every domain refuses it: the invite API, Firebase's REST API, the dashboard.
            let invite = try await Self.send(port, "POST", "/api/invite", token: shopOnly.token, body: #"{"groupId": "g"}"#)
            #expect(invite.status == 403 && invite.body.contains("has links:write on shop only"), "\(invite.body)")
            let rest = try await Self.send(port, "POST", "/v1/shortLinks?key=\(shopOnly.token)", body: #"{"longDynamicLink": "https://go.shop.example/?link=https://go.shop.example/p/1"}"#)
            #expect(rest.status == 403 && rest.body.contains("it has links:write@shop links:read@shop only, and this covers every domain"), "\(rest.body)")
            #expect(try await Self.send(port, "GET", "/v1/https%3A%2F%2Frabble.community%2Fsame1/linkStats?durationDays=7&key=\(shopOnly.token)").status == 403)
            var signIn = "POST /admin/sign-in HTTP/1.1\r\nHost: api.example\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            let form = "token=" + shopOnly.token
            signIn += "Content-Length: \(form.utf8.count)\r\nSec-Fetch-Site: same-origin\r\n\r\n" + form
            let request = signIn
            let signedIn = try await blocking(limited: false) { try RawConnection.exchange(port: port, request, expecting: 1) }.first
            #expect(signedIn?.status == 403 && signedIn?.body.contains("has links:read on shop only") == true, "\(signedIn?.status ?? 0) \(signedIn?.body.prefix(200) ?? "")")

            // Deleting one domain's link leaves the other's.
            #expect(try await Self.send(port, "DELETE", "/api/links/same1?domain=shop", token: all.token).status == 204)
            #expect(try await Self.get(port, "/i/same1", host: "go.shop.example").status == 404)
            #expect(try await Self.get(port, "/i/same1", host: "rabble.community").status == 200)
        }
    }

    @Test(arguments: [true, false])
    func eachHostGetsItsOwnDomainsFilesAndPages(lane: Bool) async throws {
        let service = try await Self.service()
        var link = try LinkInput(configuration: service.configuration).read(try JSONParser.parse(#"{"deepLink": "plur://group/g1", "title": "A link of Plur's"}"#), now: Date())
        link.code = "plurlnk1"
        try await service.store.insert(link)
        try await service.application(port: 0, lane: lane).test(.live) { client in
            let port = try #require(client.port)
            // Each domain's AASA names its own app and its own routes' paths.
            for (host, app, other, url) in [("rabble.community", "ABCDE12345.community.rabble.plur", "FGHIJ67890", "https://rabble.community/g/abc"),
                                            ("GO.Shop.Example.:8080", "FGHIJ67890.example.shop.app", "ABCDE12345", "https://go.shop.example/p/abc")] {
                for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                    let answer = try await Self.get(port, path, host: host)
                    #expect(answer.status == 200, "\(host)\(path)")
                    #expect(AppSiteAssociation.validate(bytes: Array(answer.body.utf8)).filter { $0.severity == .error }.isEmpty)
                    let aasa = try AppSiteAssociation(bytes: Array(answer.body.utf8))
                    #expect(aasa.decide(url, for: app) == .match, "\(host): \(url)")
                    #expect(!answer.body.contains(other), "\(host)'s AASA names the other domain's app")
                }
            }
            let shopLinks = try await Self.get(port, "/.well-known/assetlinks.json", host: "go.shop.example")
            #expect(shopLinks.status == 200 && shopLinks.body.contains("example.shop.app") && !shopLinks.body.contains("community.rabble.plur"))
            let plurLinks = try await Self.get(port, "/.well-known/assetlinks.json", host: "www.rabble.community")
            #expect(plurLinks.status == 200 && plurLinks.body.contains("community.rabble.plur") && !plurLinks.body.contains("example.shop.app"))

            // Route pages follow the host's route table, apps and landing settings.
            let product = try await Self.get(port, "/p/sku-1", host: "go.shop.example")
            #expect(product.status == 200 && product.body.contains("<title>Product sku-1</title>") && product.body.contains("shop://product/sku-1"), "\(product.body.prefix(300))")
            #expect(try await Self.get(port, "/p/sku-1", host: "rabble.community").status == 404)
            let group = try await Self.get(port, "/g/abc", host: "rabble.community")
            #expect(group.status == 200 && group.body.contains("A Plur community") && group.body.contains("plur://group/abc"))
            #expect(try await Self.get(port, "/g/abc", host: "go.shop.example").status == 404)

            // A link of the first domain: found on its hosts, not on another's.
            let page = try await Self.get(port, "/i/plurlnk1", host: "rabble.community")
            #expect(page.status == 200 && page.body.contains("A link of Plur&#39;s") || page.body.contains("A link of Plur's"), "\(page.status)")
            let elsewhere = try await Self.get(port, "/i/plurlnk1", host: "go.shop.example")
            #expect(elsewhere.status == 404 && !elsewhere.body.contains("Plur"), "\(elsewhere.status) \(elsewhere.body.prefix(200))")
            #expect(try await Self.get(port, "/i/plurlnk1/qr.svg", host: "go.shop.example").status == 404)
            #expect(try await Self.get(port, "/i/plurlnk1/qr.svg", host: "rabble.community").status == 200)

            // A host no domain names: 421 for the domains' paths, never another domain's answer.
            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json", "/i/plurlnk1", "/g/abc", "/", "/i/plurlnk1/qr.svg"] {
                let stranger = try await Self.get(port, path, host: "evil.example")
                #expect(stranger.status == 421 && stranger.body == "421 Misdirected Request: this service serves no domain at the host \"evil.example\"\n", "\(path): \(stranger)")
            }
            // The service's own paths answer on any host.
            #expect(try await Self.get(port, "/healthz", host: "evil.example").status == 200)
            #expect(try await Self.get(port, "/openapi.json", host: "evil.example").status == 200)
            #expect(try await Self.get(port, "/api/links", host: "evil.example").status == 401)
        }
    }
}
