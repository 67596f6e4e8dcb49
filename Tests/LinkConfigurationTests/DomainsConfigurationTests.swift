import Foundation
import AssociatedDomains
import LinkConfiguration
import LinkRouting
import SwitchyardCore
import SwitchyardDocuments
import Testing

/// A configuration with a `domains` list: each domain read as a configuration of one domain,
/// its errors named under `domains[i]`, hosts and names unique, every domain with hosts and an app.
@Suite struct DomainsConfigurationTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples").standardized

    static func read(_ yaml: String) throws -> ServiceConfiguration {
        try ServiceConfiguration(document: try StructuredDocument.parse(yaml: yaml))
    }

    static let plur = """
          - name: plur
            hosts: [rabble.community]
            apple: [{teamId: ABCDE12345, bundleId: community.rabble.plur, scheme: plur}]
            routes: [{name: group, pattern: "/g/{id}"}, {name: appGroup, pattern: "plur://group/{id}"}]
        """

    @Test func theExampleServesTwoDomainsEachWithItsOwnAppsAndRoutes() throws {
        let configuration = try ServiceConfiguration(contentsOf: Self.examples.appendingPathComponent("domains-config.yaml").path)
        let domains = configuration.servedDomains
        #expect(domains.map(\.domainName) == ["plur", "shop"])
        #expect(domains.map(\.publicURL) == ["https://rabble.community", "https://go.shop.example"])
        #expect(domains.map { $0.apple.map(\.appID) } == [["ABCDE12345.community.rabble.plur"], ["FGHIJ67890.example.shop.app"]])
        #expect(domains.map { $0.router.routes.map(\.name) } == [["invite", "group", "appGroup"], ["product", "appProduct"]])
        #expect(domains.map(\.defaultTitle) == ["Plur", "Shop"])
        // The service-wide sections are every domain's; the configuration's own keys are the first domain's.
        #expect(domains.allSatisfy { $0.perAddressLimit.perMinute == 300 && $0.codeLength == 8 })
        #expect(configuration.publicURL == "https://rabble.community" && configuration.domainName == "plur")
        // Each domain's association files name its own app only.
        #expect(JSONWriter.compact(domains[1].appSiteAssociation).contains("FGHIJ67890.example.shop.app"))
        #expect(!JSONWriter.compact(domains[1].appSiteAssociation).contains("ABCDE12345"))
        #expect(domains[1].assetLinks.statements.map(\.target.packageName) == ["example.shop.app"])
    }

    /// A prefix is read as browsers read it: a trailing slash is the prefix, a punycode host stays one.
    @Test func firebasePrefixesAreReadAsWritten() throws {
        let configuration = try Self.read("""
            domains:
            \(Self.plur)
                fdlPrefixes: ["https://go.rabble.example/invite/", "https://xn--bcher-kva.example", "https://Plur.Page.Link"]
            """)
        #expect(configuration.fdlPrefixes.map(\.text) == ["https://go.rabble.example/invite", "https://xn--bcher-kva.example", "https://plur.page.link"])
        #expect(configuration.shortLink(host: "go.rabble.example", path: "/invite/abc")?.code == "abc")
        #expect(configuration.shortLink(host: "plur.page.link", path: "/x/abc") == nil)
    }

    @Test func aConfigurationOfOneDomainIsThatDomain() throws {
        let one = try Self.read("""
            hosts: [Links.Example.com]
            apple: [{teamId: ABCDE12345, bundleId: com.example.app}]
            routes: [{name: item, pattern: "/items/{id}"}]
            """)
        #expect(one.domains.isEmpty && one.servedDomains.count == 1 && one.domainName == "links.example.com")
        // Every host is served by the one domain, as before domains.
        #expect(one.domainHosts.domain(authority: "elsewhere.example") == 0 && !one.domainHosts.strict)
    }

    @Test(arguments: [
        ("apple: [{teamId: ABCDE12345, bundleId: a.b}]\ndomains:\n\(plur)", "apple: with a domains list each domain has its own apple; move it into the domain"),
        ("service: {publicURL: \"https://rabble.community\"}\ndomains:\n\(plur)", "service.publicURL: with a domains list each domain has its own publicURL"),
        ("domains: []", "domains: empty; list at least one domain"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example], apple: [{teamId: abc, bundleId: x.y}], routes: []}", "domains[1].apple[0].teamId: \"abc\" is not a team ID"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [], publicURL: \"ftp://x\"}", "domains[1].publicURL: \"ftp://x\""),
        ("domains:\n\(plur)\n  - {hosts: [www.example, Rabble.Community], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}",
         "domains[1].hosts: rabble.community is a host of domains[0] (plur) already; a host belongs to one domain"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example], routes: []}", "domains[1]: no app (apple or android)"),
        ("domains:\n\(plur)\n  - {name: plur, hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}", "domains[1].name: \"plur\" names domains[0] already"),
        ("domains:\n  - {name: Plur!, hosts: [a.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}", "domains[0].name: \"Plur!\" may hold lower-case letters"),
        ("domains:\n  - {apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}", "domains[0].hosts: a domain needs its host names"),
        ("domains:\n  - {hosts: [], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [{name: p, pattern: \"/p/{id}\"}]}", "domains[0].hosts: a domain needs its host names"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example, rabble.community.], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}",
         "domains[1].hosts[1]: \"rabble.community.\" has an empty label in its host"),
        ("domains:\n\(plur)\n  - {hosts: [\"*.shop.example\"], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}",
         "domains[1].hosts[0]: \"*.shop.example\" has a character in its host that browsers reject or rewrite (*)"),
        ("domains:\n\(plur)\n  - {hosts: [\"shop.example?x\"], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}",
         "domains[1].hosts[0]: \"shop.example?x\" is not a host as browsers send it (they would send shop.example); write shop.example"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [{name: p, pattern: \"/p/{id}\"}, {name: a, pattern: \"shop://p/{id}\"}], invites: {route: a, fields: {id: id}}}",
         "domains[1].invites: the invite API makes the first domain's links; move invites to domains[0]"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"http://plur.page.link\"]", "domains[0].fdlPrefixes[0]: \"http://plur.page.link\" is not a Dynamic Links URL prefix"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"https://rabble.community/api\"]", "domains[0].fdlPrefixes[0]: \"https://rabble.community/api\" starts with /api"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"https://go.shop.example/invite\"]\n  - {hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}",
         "domains[0].fdlPrefixes[0]: https://go.shop.example/invite is on a host or prefix of domains[1] (go.shop.example)"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"https://x.page.link\"]\n  - {hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [], fdlPrefixes: [\"https://X.page.link/\"]}",
         "domains[0].fdlPrefixes[0]: https://x.page.link is on a host or prefix of domains[1]"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"https://rabble.community/g\"]", "domains[0].fdlPrefixes[0]: https://rabble.community/g is under the route \"group\"'s path"),
        ("domains:\n\(plur)\n    fdlPrefixes: [\"https://rabble.community/a/..\"]", "domains[0].fdlPrefixes[0]: \"https://rabble.community/a/..\" has a path of other than segments"),
        ("domains:\n\(plur)\n  - {hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [], publicURL: \"https://rabble.community\"}",
         "domains[1].publicURL: rabble.community is a host of domains[0] (plur) already"),
        ("domains:\n  - {name: \"-x\", hosts: [a.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}", "domains[0].name: \"-x\" may hold"),
        ("domains:\n  - {hosts: [a.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [], rateLimit: {}}", "domains[0].rateLimit: unknown key"),
        ("rateLimit: {perAddress: {perMinute: -1}}\ndomains:\n\(plur)", "rateLimit.perAddress"),
    ] as [(String, String)])
    func mistakesAreRefusedWithTheirKey(yaml: String, message: String) {
        #expect {
            _ = try Self.read(yaml)
        } throws: { error in
            let text = (error as? ConfigurationError)?.message ?? "\(error)"
            let ok = text.hasPrefix(message) || (message.hasSuffix("unknown key") && text.contains(message))
            if !ok { Issue.record("\(text)") }
            return ok
        }
    }

    /// The domain of a request is decided from its Host as browsers send it: case, a trailing
    /// dot, a port and a Unicode host (as punycode) do not matter; anything else is no domain.
    @Test func aRequestsHostNamesItsDomain() throws {
        let hosts = try Self.read("""
            domains:
            \(Self.plur)
              - {name: books, hosts: [bücher.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: [], publicURL: "https://xn--bcher-kva.example"}
            """).domainHosts
        #expect(hosts.strict)
        let cases: [(String?, Int?)] = [
            ("rabble.community", 0), ("Rabble.COMMUNITY", 0), ("rabble.community..", 0), ("rabble.community.", 0), ("rabble.community:8443", 0), ("RABBLE.community.:443", 0),
            ("xn--bcher-kva.example", 1), ("bücher.example", 1), ("BÜCHER.example:80", 1),
            ("www.rabble.community", nil), ("evil.example", nil), ("", nil), (nil, nil), ("rabble.community:x", nil),
            ("user@rabble.community", nil), ("rabble.community/x", nil), ("[::1]:8080", nil),
        ]
        for (authority, domain) in cases {
            #expect(hosts.domain(authority: authority) == domain, "\(authority ?? "nil")")
        }
    }
}
