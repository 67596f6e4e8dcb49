import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// One route table, one answer: for every URL, the router, the AASA and the assetlinks.json
/// generated from the table agree on whether the app opens (up to what no pattern can say: a
/// parameter's type).
@Suite struct OneAnswerTests {
    static let appID = "ABCDE12345.com.example.app"
    static let package = "com.example.app"

    /// The table of the issue: an excluded drafts subtree, a search route with a query item, a
    /// profile with a UUID and an enum, a step with an int, the root.
    static let cook = """
        hosts: [cook.example, www.cook.example]
        routes:
          - {name: drafts, pattern: "/recipes/drafts/{rest:*}", exclude: true}
          - {name: recipe, pattern: "/recipes/{id}"}
          - {name: step, pattern: "/recipes/{id}/steps/{n:int}"}
          - {name: search, pattern: /search, query: {q: q}}
          - {name: profile, pattern: "/u/{user:uuid}/{tab:posts|likes}"}
          - {name: home, pattern: /}
          - {name: appRecipe, pattern: "cook://recipe/{id}"}
        """

    static func files(_ router: LinkRouter) throws -> (AppSiteAssociation, AssetLinks) {
        let aasa = try #require(AppSiteAssociation.read(AssociationGenerator.appSiteAssociation(router: router, appIDs: [appID])).0)
        return (aasa, AssociationGenerator.assetLinks(packageName: package, fingerprints: [], router: router))
    }

    /// The rows that are no agreement: a platform against the other, or both against the router
    /// for another reason than a parameter's type.
    static func disagreements(_ router: LinkRouter, _ aasa: AppSiteAssociation, _ links: AssetLinks, _ urls: [String]) -> [PlatformComparison.Row] {
        PlatformComparison.compare(router: router, aasa: aasa, appID: appID, assetLinks: links, package: package, urls: urls).filter(\.disagree)
    }

    /// The issue's URLs: each decided alike by the three.
    @Test func theIssuesTableGivesOneAnswer() throws {
        let router = try LinkRouter(yaml: Self.cook)
        let (aasa, links) = try Self.files(router)
        let rows = PlatformComparison.compare(router: router, aasa: aasa, appID: Self.appID, assetLinks: links, package: Self.package, urls: [
            "https://cook.example/recipes/drafts", "https://cook.example/recipes", "https://cook.example/search/?q=soup",
            "https://cook.example/u/00000000-0000-4000-8000-000000000000/posts", "https://cook.example/u/00000000-0000-4000-8000-000000000000/other",
            "https://cook.example/u/x/posts", "https://www.cook.example/recipes/1/steps/2/", "https://cook.example/recipes/1/x",
        ])
        #expect(rows.map(\.verdict) == [.same, .same, .same, .same, .same, .same, .same, .same], "\(rows.map(\.line))")
        #expect(rows.map { $0.router?.opensApp } == [false, false, true, true, false, false, true, false])
        // A doubled slash is one to the router and iOS; on Android an exclusion covers its
        // spellings with one slash doubled, so the app never opens for an excluded path spelt so.
        for url in ["https://cook.example//recipes/drafts/x/y", "https://cook.example//recipes/drafts", "https://cook.example/recipes//drafts",
                    "https://cook.example/recipes/drafts//x/y"] {
            #expect(links.decide(url, package: Self.package) == .exclude, "\(url)")
        }
        // A decomposed "é" is other text than the route's precomposed one, to all three.
        let cafe = try LinkRouter(yaml: "hosts: [f.example]\nroutes:\n  - {name: c, pattern: \"/café/{x}\"}\n  - {name: g, pattern: \"/g/{id}\", query: {relay: relay?}}\n")
        let (cafeAASA, cafeLinks) = try Self.files(cafe)
        let same = PlatformComparison.compare(router: cafe, aasa: cafeAASA, appID: Self.appID, assetLinks: cafeLinks, package: Self.package,
                                              urls: ["https://f.example/cafe%CC%81/x", "https://f.example/caf%C3%A9/x", "https://f.example/g/1?relay=", "https://f.example/g/1?relay"])
        #expect(same.map(\.verdict) == [.same, .same, .same, .same] && same.map { $0.router?.opensApp } == [false, true, true, true], "\(same.map(\.line))")
        // A wrong int is opened by both (no pattern says "digits"), and said so.
        let wide = try #require(PlatformComparison.compare(router: router, aasa: aasa, appID: Self.appID, assetLinks: links, package: Self.package,
                                                           urls: ["https://cook.example/recipes/1/steps/x"]).first)
        #expect(wide.verdict == .wider && wide.widerThan?.contains("{n:int}") == true, "\(wide.line)")
        // The generated AASA passes the coverage check: the int and the UUID, once per route.
        let findings = RouteCoverage.check(router: router, aasa: aasa, appID: Self.appID)
        #expect(findings.map(\.code) == [.patternWiderThanRoute, .patternWiderThanRoute], "\(findings)")
        #expect(findings.map { $0.message.prefix { $0 != ":" } } == ["route step", "route profile"])
    }

    /// Random tables of other shapes (literals, strings, ints, UUIDs, enums, rest and url tails,
    /// required and optional query items, exclusions, the root), asked about their near misses
    /// and random paths made of the table's own words: the three answers agree on every URL.
    @Test(arguments: 0..<40)
    func randomTablesGiveOneAnswer(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x9E37 &+ seed)
        let router = Self.randomTable(&random)
        let (aasa, links) = try Self.files(router)
        var urls = RouteCoverage.probeURLs(router)
        let words = ["a", "b", "p", "docs", "1", "x", "00000000-0000-4000-8000-000000000000", "red", "blue", "https:", "h.example", "A", "%61", "%2e%2e"]
        for _ in 0..<300 {
            let path = (0..<Int.random(in: 0...5, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: "/")
            let slash = Bool.random(using: &random) && !path.isEmpty ? "/" : ""
            let query = ["", "?q=1", "?q=x", "?r=1&q=2", "?z=1"].randomElement(using: &random)!
            urls.append("https://\(router.hosts.randomElement(using: &random)!)/\(path)\(slash)\(query)")
        }
        let bad = Self.disagreements(router, aasa, links, urls)
        #expect(bad.isEmpty, "\(router.routes.map { "\($0.name): \($0.pattern)\($0.exclude ? " (excluded)" : "")\($0.query.isEmpty ? "" : " ?" + $0.query.map { "\($0.item)\($0.optional ? "?" : "")" }.joined(separator: "&"))" })\n\(bad.prefix(5).map(\.line).joined(separator: "\n"))")
    }

    /// Tables where each exclusion the generator writes is needed: an excluded subtree's root,
    /// an excluded route before an overlapping one, the guards of each segment count (a
    /// string's `?*` and a UUID's `?` run would take longer URLs). Without any one of them,
    /// some probe gets another answer on that platform than the router's: the probes (and so
    /// the property test above) fail if the generator drops one.
    static let needy = [cook, """
        hosts: [docs.example]
        routes:
          - {name: intro, pattern: /docs/intro}
          - {name: private, pattern: "/docs/private/{rest:*}", exclude: true}
          - {name: page, pattern: "/docs/{page:*}"}
          - {name: user, pattern: "/{name}"}
          - {name: post, pattern: "/{name}/{post:int}", query: {share: share}}
        """]

    /// What no file can say is refused or said: route text a pattern would read as a wildcard
    /// or variable is refused; an enum of too many combinations is written as `*` and reported
    /// as wider than its route (not as a URL without a route).
    @Test func whatNoPatternCanSayIsRefusedOrSaid() throws {
        let dollar = try LinkRouter(yaml: "hosts: [e.example]\nroutes:\n  - {name: d, pattern: \"/v/$(digit)\"}\n  - {name: s, pattern: \"/a*b/{x}\"}\n")
        #expect(AssociationGenerator.patternTextProblems(dollar).map { $0.prefix(14) } == ["routes[0] (d):", "routes[1] (s):"])
        let values = (0..<9).map { "v\($0)" }.joined(separator: "|")
        let wide = try LinkRouter(yaml: "hosts: [e.example]\nroutes:\n  - {name: grid, pattern: \"/e/{x:\(values)}/{y:\(values)}\"}\n")
        let (aasa, links) = try Self.files(wide)
        let rows = PlatformComparison.compare(router: wide, aasa: aasa, appID: Self.appID, assetLinks: links, package: Self.package,
                                              urls: RouteCoverage.probeURLs(wide) + ["https://e.example/e/v1/zz", "https://e.example/e/v1/v2/x"])
        #expect(rows.filter(\.disagree).isEmpty, "\(rows.map(\.line))")
        #expect(rows.contains { $0.verdict == .wider && $0.url.hasSuffix("/e/v1/zz") && $0.widerThan?.contains("{y}") == true }, "\(rows.map(\.line))")
        let findings = RouteCoverage.check(router: wide, aasa: aasa, appID: Self.appID)
        #expect(findings.map(\.code) == [.patternWiderThanRoute], "\(findings)")
        #expect(AssociationGenerator.platformDifferences(router: wide).contains { $0.message.contains("more than 64 combinations") })
        // A required enum query item is one entry per value; an optional one's value is never in
        // a pattern (wider).
        let query = try LinkRouter(yaml: "hosts: [e.example]\nroutes:\n  - {name: en, pattern: /en, query: {k: \"k:a|b\"}}\n  - {name: op, pattern: /op, query: {k: \"k:a|b?\"}}\n")
        let (queryAASA, queryLinks) = try Self.files(query)
        let asked = PlatformComparison.compare(router: query, aasa: queryAASA, appID: Self.appID, assetLinks: queryLinks, package: Self.package,
                                               urls: ["https://e.example/en?k=a", "https://e.example/en?k=c", "https://e.example/op?k=c", "https://e.example/op"])
        #expect(asked.map(\.verdict) == [.same, .same, .wider, .same], "\(asked.map(\.line))")
    }

    @Test func everyGeneratedExclusionIsNeeded() throws {
        var checked = 0
        for yaml in Self.needy {
            let router = try LinkRouter(yaml: yaml)
            let (aasa, links) = try Self.files(router)
            var urls = RouteCoverage.probeURLs(router)
            urls += urls.map { $0.replacingOccurrences(of: "/extra", with: "/extra/more") }
            #expect(Self.disagreements(router, aasa, links, urls).isEmpty, "\(yaml)")
            let json = AssociationGenerator.appSiteAssociation(router: router, appIDs: [Self.appID])
            let components = json["applinks"]?["details"]?.arrayValue?.first?["components"]?.arrayValue ?? []
            for (i, component) in components.enumerated() where component["exclude"] == .bool(true) {
                var fewer = components
                fewer.remove(at: i)
                let text = #"{"applinks":{"details":[{"appIDs":["\#(Self.appID)"],"components":"# + JSONWriter.compact(.array(fewer)) + "}]}}"
                let weaker = try #require(AppSiteAssociation.read(try JSONParser.parse(text)).0)
                #expect(!Self.disagreements(router, weaker, links, urls).isEmpty, "iOS without \(JSONWriter.compact(component)) still agrees: \(yaml)")
                checked += 1
            }
            let rules = links.statements[0].dynamicRules?.rules ?? []
            // The `//` spellings of exclusions guard a documented exception: not probed.
            for (i, rule) in rules.enumerated() where rule.exclude && rule.path?.contains("//") != true {
                var weaker = links
                weaker.statements[0].dynamicRules?.rules.remove(at: i)
                #expect(!Self.disagreements(router, aasa, weaker, urls).isEmpty, "Android without \(JSONWriter.compact(rule.json)) still agrees: \(yaml)")
                checked += 1
            }
        }
        #expect(checked >= 15, "\(checked) exclusions checked")
    }

    /// A table of 2 to 7 routes on two hosts.
    static func randomTable(_ random: inout SeededGenerator) -> LinkRouter {
        while true {
            var routes: [Route] = []
            for n in 0..<Int.random(in: 2...7, using: &random) {
                var parts: [String] = []
                let count = Int.random(in: 0...3, using: &random)
                for i in 0..<count {
                    let last = i == count - 1
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0...3: parts.append(["a", "b", "p", "docs"].randomElement(using: &random)!)
                    case 4: parts.append("{s\(i)}")
                    case 5: parts.append("{n\(i):int}")
                    case 6: parts.append("{u\(i):uuid}")
                    case 7: parts.append("{e\(i):red|blue}")
                    case 8 where last: parts.append("{rest:*}")
                    case 9 where last: parts.append("{target:url}")
                    default: parts.append("{s\(i)}")
                    }
                }
                var query: [(item: String, spec: String)] = []
                switch Int.random(in: 0..<4, using: &random) {
                case 0: query = [("q", "q")]
                case 1: query = [("q", "q?")]
                default: break
                }
                if let route = try? Route(name: "r\(n)", pattern: "/" + parts.joined(separator: "/"), query: query, exclude: Int.random(in: 0..<5, using: &random) == 0) {
                    routes.append(route)
                }
            }
            if let router = try? LinkRouter(hosts: ["shop.example", "www.shop.example"], routes: routes), routes.contains(where: { !$0.exclude }) { return router }
        }
    }
}
