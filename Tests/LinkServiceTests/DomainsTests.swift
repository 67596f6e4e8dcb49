import AssociatedDomains
import Foundation
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
@testable import LinkRequests
@testable import LinkService
import LinkStorage
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

            // The stored links are the first domain's: found on its hosts, not on another's.
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
