import AssociatedDomains
import Foundation
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
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

    static func service(backend: Backend = .sqlite) async throws -> LinkService {
        let configuration = try ServiceConfiguration(contentsOf: config)
        return try LinkService(configuration: configuration, store: try await backend.freshStore())
    }

    /// One GET of `path` on `host`, answered over a new connection: status and body.
    static func get(_ port: Int, _ path: String, host: String, userAgent: String = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0") async throws -> (status: Int, body: String) {
        let raw = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: \(userAgent)\r\nConnection: close\r\n\r\n"
        let answers = try await blocking(limited: false) { try RawConnection.exchange(port: port, raw, expecting: 1) }
        return try #require(answers.first, "no answer to \(path) on \(host)")
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
    @Test func linksBelongToTheDomainTheyAreMadeOn() async throws {
        let service = try await Self.service()
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
            #expect(listShop["links"]?.arrayValue?.compactMap { $0["domain"]?.stringValue } == ["shop", "shop"])
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
            #expect(listed["links"]?.arrayValue?.allSatisfy { $0["domain"] == .string("shop") } == true && listed["links"]?.arrayValue?.count == 3)
            #expect(try await Self.send(port, "GET", "/api/stats?by=platform", token: shopOnly.token).status == 403)

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
                #expect(stranger.status == 421 && stranger.body == "421 Misdirected Request: this service serves no domain at evil.example.\n", "\(path): \(stranger)")
            }
            // The service's own paths answer on any host.
            #expect(try await Self.get(port, "/healthz", host: "evil.example").status == 200)
            #expect(try await Self.get(port, "/openapi.json", host: "evil.example").status == 200)
            #expect(try await Self.get(port, "/api/links", host: "evil.example").status == 401)
        }
    }
}
