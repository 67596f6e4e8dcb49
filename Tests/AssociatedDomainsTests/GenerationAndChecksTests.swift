import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore
import Testing

@Suite struct GenerationAndChecksTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let appID = "ABCDE12345.community.rabble.plur"

    static func plur() throws -> LinkRouter { try LinkRouter(contentsOf: root.appendingPathComponent("Examples/plur-routes.yaml").path) }

    /// `aasa generate`'s app IDs: each mistake names its option; a generated assetlinks.json with
    /// a malformed fingerprint comes with its errors (it is not written).
    @Test func generationArgumentsSayWhichOptionIsWrong() throws {
        #expect(AssociationGenerator.appIDProblem(teamID: "ABCDE12345", bundleIDs: ["com.example.app"], appClips: ["ABCDE12345.com.example.app.Clip"]) == nil)
        #expect(AssociationGenerator.appIDProblem(teamID: "abc", bundleIDs: ["a.b"], appClips: [])?.hasPrefix("--team-id ") == true)
        #expect(AssociationGenerator.appIDProblem(teamID: "ABCDE12345", bundleIDs: ["ABCDE12345.a.b"], appClips: [])?.hasPrefix("--bundle-id ABCDE12345.a.b starts with the team ID") == true)
        #expect(AssociationGenerator.appIDProblem(teamID: "ABCDE12345", bundleIDs: ["com..x"], appClips: [])?.hasPrefix("--bundle-id: ") == true)
        #expect(AssociationGenerator.appIDProblem(teamID: "ABCDE12345", bundleIDs: ["a.b", "a.b"], appClips: []) == "--bundle-id a.b is given twice")
        #expect(AssociationGenerator.appIDProblem(teamID: "ABCDE12345", bundleIDs: ["a.b"], appClips: ["clip"])?.hasPrefix("--app-clip ") == true)

        let good = AssociationGenerator.assetLinksFile(packageName: "com.example.app", fingerprints: [String(repeating: "AB:", count: 31) + "AB"], loginCredentials: false, router: try Self.plur())
        #expect(good.errors.isEmpty, "\(good.errors)")
        #expect(AssetLinks.validate(bytes: Array(good.text.utf8)).0?.statements.first?.dynamicRules != nil)
        let bad = AssociationGenerator.assetLinksFile(packageName: "com.example.app", fingerprints: ["AB:CD"], loginCredentials: true, router: nil)
        #expect(!bad.errors.isEmpty && bad.errors.allSatisfy { $0.severity == .error })
    }

    /// A route written as a full URL (`https://links.example/g/{id}`) routes its path; the AASA
    /// claims that path (it claimed `/https:/links.example/g/*`, which iOS never matches).
    @Test func aFullURLPatternIsClaimedByItsPath() throws {
        let router = try LinkRouter(hosts: ["links.example"], routes: [
            Route(name: "full", pattern: "https://links.example/g/{id}"), Route(name: "embedded", pattern: "https://links.example/i/{target:url}"),
        ])
        #expect(router.route("https://links.example/g/42").match?.route == "full")
        let json = AssociationGenerator.appSiteAssociation(router: router, appIDs: [Self.appID])
        let aasa = try AppSiteAssociation(json: JSONWriter.compact(json))
        #expect(aasa.decide("https://links.example/g/42", for: Self.appID) == .match, "\(JSONWriter.compact(json))")
        #expect(router.routes.map(AssociationGenerator.pathPattern) == ["/g/*", "/i/*"])
        // What the AASA hands over, the full route handles (the embedded-URL route is checked
        // by the sample URL the coverage check makes up, "x", which is not a URL: left out).
        let full = try LinkRouter(hosts: ["links.example"], routes: [Route(name: "full", pattern: "https://links.example/g/{id}")])
        let fullAASA = try AppSiteAssociation(json: JSONWriter.compact(AssociationGenerator.appSiteAssociation(router: full, appIDs: [Self.appID])))
        #expect(RouteCoverage.check(router: full, aasa: fullAASA, appID: Self.appID).isEmpty)
    }

    @Test func generatedAASACoversEveryRouteBothWays() throws {
        let router = try Self.plur()
        let json = AssociationGenerator.appSiteAssociation(router: router, appIDs: [Self.appID], webcredentials: true)
        let aasa = try AppSiteAssociation(json: JSONWriter.compact(json))
        #expect(AppSiteAssociation.validate(bytes: Array(JSONWriter.compact(json).utf8)).filter { $0.severity == .error }.isEmpty)
        // Only what no file can say: an embedded URL's segments are any text to a pattern.
        let findings = RouteCoverage.check(router: router, aasa: aasa, appID: Self.appID)
        #expect(findings.map(\.code) == [.patternWiderThanRoute] && findings.allSatisfy { $0.severity == .warning }, "\(findings)")
        #expect(findings.first?.message.hasPrefix("route inviteEmbedded: the AASA also hands https://rabble.community/i/x/x") == true, "\(findings)")
        #expect(findings.first?.message.contains("{target:url}") == true, "\(findings)")
        // An app ID the file does not list is said once, not as every route not covered.
        let unlisted = RouteCoverage.check(router: router, aasa: aasa, appIDs: ["ZZZZZ99999.x.y", Self.appID])
        #expect(unlisted.map(\.code) == [.unknownApp, .patternWiderThanRoute], "\(unlisted)")
        #expect(unlisted.first?.message == "the AASA lists no app ID ZZZZZ99999.x.y (it lists \(Self.appID)): no URL opens in that app")
        #expect(aasa.webcredentials == [Self.appID])
        // Every universal Plur link opens the app; required query items are enforced.
        #expect(aasa.decide("https://rabble.community/join/G?code=C", for: Self.appID) == .match)
        #expect(aasa.decide("https://rabble.community/join/G", for: Self.appID) == .noMatch)
        #expect(aasa.decide("https://rabble.community/i/plur://join-community?group-id=G&code=C", for: Self.appID) == .match)
    }

    /// Typed parameters (int, uuid, an enum) refuse the "x" a wildcard is usually filled with;
    /// the generated AASA still covers exactly its routes.
    @Test func aGeneratedAASAWithTypedParametersPassesItsOwnCoverageCheck() throws {
        let router = try LinkRouter(yaml: """
            hosts: [go.widgetly.example]
            routes:
              - {name: product, pattern: "/p/{id:int}"}
              - {name: user, pattern: "/u/{id:uuid}"}
              - {name: tab, pattern: "/t/{tab:home|search}", query: {ref: ref}}
            """)
        let appID = "K9XJ27LM4P.com.widgetly.app"
        let aasa = try #require(AppSiteAssociation.read(AssociationGenerator.appSiteAssociation(router: router, appIDs: [appID])).0)
        // Every route covered and no error. The int and the UUID are wider than their routes,
        // said once per route, naming the type (an AASA cannot say "digits only"); the enum is
        // exact (one component per value).
        let findings = RouteCoverage.check(router: router, aasa: aasa, appID: appID)
        #expect(findings.allSatisfy { $0.code == .patternWiderThanRoute && $0.severity == .warning }, "\(findings)")
        #expect(findings.map { $0.message.prefix { $0 != ":" } } == ["route product", "route user"], "\(findings)")
        #expect(findings[0].message.contains("{id:int}") && findings[1].message.contains("{id:uuid}"), "\(findings)")
        // A hand-written `/p/*` also hands over `/p` and `/p/1/extra`, which no route takes
        // (not a type's width: an error), and a pattern no route backs is reported too.
        let wider = try #require(AppSiteAssociation.read(try JSONParser.parse(#"{"applinks":{"details":[{"appIDs":["\#(appID)"],"components":[{"/":"/p/*"},{"/":"/blog/*"}]}]}}"#)).0)
        let gaps = RouteCoverage.check(router: router, aasa: wider, appID: appID).filter { $0.code == .urlWithoutRoute }
        #expect(gaps.map(\.path) == ["applinks.details[0].components[0]", "applinks.details[0].components[1]"], "\(gaps)")
        #expect(gaps[0].message.contains("https://go.widgetly.example/p ") && gaps[0].message.contains("narrow the pattern"), "\(gaps)")
    }

    /// Route text that URLs carry percent-encoded (non-ASCII, a space) is written as the route
    /// has it on both platforms: the AASA says `percentEncoded: false`, so iOS decodes the URL
    /// first, as Android and the router do; a URL decides the same however it is spelt
    /// (`%61` is `a`, lower-case hex too).
    @Test func routeTextURLsCarryEncodedIsEncodedInTheAASAAndKeptForAndroid() throws {
        let router = try LinkRouter(yaml: """
            hosts: [e.example]
            routes:
              - {name: cafe, pattern: "/café/{id}"}
              - {name: spaced, pattern: "/a b/{id}"}
            """)
        let appID = "K9XJ27LM4P.com.e.app"
        let json = AssociationGenerator.appSiteAssociation(router: router, appIDs: [appID])
        let text = JSONWriter.compact(json)
        #expect(text.contains(#""defaults":{"percentEncoded":false}"#) && text.contains(#""/":"/café/?*""#) && text.contains(#""/":"/a b/?*""#), "\(text)")
        let aasa = try #require(AppSiteAssociation.read(json).0)
        for url in ["https://e.example/caf%C3%A9/1", "https://e.example/café/1", "https://e.example/a%20b/2", "https://e.example/a b/2", "https://e.example/caf%c3%a9/1"] {
            #expect(aasa.decide(url, for: appID) == .match, "\(url)")
        }
        let rows = PlatformComparison.compare(router: router, aasa: aasa, appID: appID, assetLinks: nil, package: nil,
                                              urls: ["https://e.example/caf%c3%a9/1", "https://e.example/%61%20b/2", "https://e.example/caf%C3%A9/%31"])
        #expect(rows.allSatisfy { $0.verdict == .same && $0.ios == .match }, "\(rows.map(\.line))")
        #expect(RouteCoverage.check(router: router, aasa: aasa, appID: appID).isEmpty)
        #expect(AppSiteAssociation.validate(bytes: Array(text.utf8)).isEmpty)
        let rules = AssociationGenerator.dynamicRules(router: router).rules.compactMap(\.path)
        #expect(rules == ["/?*/?*/?*", "//?*/?*/?*", "/?*//?*/?*", "/?*/?*//?*", "/café/?*", "/a b/?*"], "\(rules)")
    }

    /// Findings the validator owes: a raw non-ASCII pattern compared encoded, a catch-all with
    /// wildcard keys, every component excluding (through `defaults` too), and the root alone is
    /// no catch-all.
    @Test(arguments: [
        (#"[{"/": "/café/*"}]"#, "", "unencoded-pattern @ applinks.details[0].components[0]./"),
        (##"[{"/": "/*", "#": "*"}, {"/": "/x"}]"##, "", "unreachable-component @ applinks.details[0].components[1]"),
        (#"[{"/": "*", "?": {"a": "*"}}, {"/": "/x"}]"#, "", "unreachable-component @ applinks.details[0].components[1]"),
        (#"[{"/": "/*"}]"#, #""defaults": {"exclude": true}, "#, "only-exclusions @ applinks.details[0].components"),
        (#"[{"/": "/a", "exclude": true}, {"/": "/b", "exclude": true}]"#, "", "only-exclusions @ applinks.details[0].components"),
    ] as [(String, String, String)])
    func validationFindings(components: String, domainExtra: String, expected: String) {
        let json = #"{"applinks": {\#(domainExtra)"details": [{"appIDs": ["ABCDE12345.com.e.app"], "components": \#(components)}]}}"#
        let got = AppSiteAssociation.validate(bytes: Array(json.utf8)).map { "\($0.code) @ \($0.path)" }
        #expect(got.contains(expected), "\(got)")
    }

    @Test(arguments: [
        #"[{"/": "/café/*", "percentEncoded": false}]"#,
        #"[{"/": "/"}, {"/": "/x"}]"#,
        ##"[{"/": "/*", "#": "top"}, {"/": "/x"}]"##,
        #"[{"/": "/a", "exclude": true}, {"/": "/*"}]"#,
    ])
    func validationStaysQuiet(components: String) {
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.e.app"], "components": \#(components)}]}}"#
        let got = AppSiteAssociation.validate(bytes: Array(json.utf8))
        #expect(got.isEmpty, "\(got.map { "\($0.code) @ \($0.path): \($0.message)" })")
    }

    @Test func coverageFindsGapsInBothDirections() throws {
        let router = try Self.plur()
        let aasa = try AppSiteAssociation(json: """
            {"applinks": {"details": [{"appIDs": ["\(Self.appID)"], "components": [
              {"/": "/g/*"}, {"/": "/blog/*"}
            ]}]}}
            """)
        let findings = RouteCoverage.check(router: router, aasa: aasa, appID: Self.appID)
        let uncovered = findings.filter { $0.code == .routeNotCovered }.map(\.path)
        // routes[4] (`/g/{groupId}`) too: a hand-written file compares the URL as sent, so
        // `/%67/sample`, which the router reads as `/g/sample`, is not matched by `/g/*`.
        #expect(uncovered == ["routes[0]", "routes[1]", "routes[2]", "routes[3]", "routes[4]"])
        #expect(findings.first { $0.path == "routes[4]" }?.message.contains("https://rabble.community/%67/sample") == true, "\(findings)")
        // `/g/*` also hands over the bare `/g` (iOS matches it), which no route takes.
        let orphans = findings.filter { $0.code == .urlWithoutRoute }
        #expect(orphans.map(\.path) == ["applinks.details[0].components[0]", "applinks.details[0].components[1]"], "\(orphans)")
        #expect(orphans[0].message.contains("https://rabble.community/g "), "\(orphans)")
        #expect(orphans[1].message.contains("https://rabble.community/blog/x"), "\(orphans)")
    }

    @Test func assetLinksGenerationValidates() {
        let links = AssociationGenerator.assetLinks(packageName: "community.rabble.plur", fingerprints: [String(repeating: "AB:", count: 31) + "CD"], loginCredentials: true)
        let (read, findings) = AssetLinks.validate(bytes: Array(JSONWriter.compact(links.json).utf8))
        #expect(findings.isEmpty)
        #expect(read == links)
    }

    struct PackageCase: Sendable, CustomStringConvertible {
        let name: String
        let valid: Bool
        var description: String { name }
    }

    @Test(arguments: [
        PackageCase(name: "com.example.app", valid: true), PackageCase(name: "a.b_c.d9", valid: true),
        PackageCase(name: "app", valid: false), PackageCase(name: "com..app", valid: false), PackageCase(name: "com.1app", valid: false),
        PackageCase(name: "com.ex-ample", valid: false),
    ])
    func packageNames(_ c: PackageCase) {
        let json = #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "\#(c.name)", "sha256_cert_fingerprints": ["\#(String(repeating: "AB:", count: 31))CD"]}}]"#
        let codes = AssetLinks.validate(bytes: Array(json.utf8)).1.map(\.code.name)
        #expect(codes.contains("invalid-package-name") == !c.valid)
    }

    /// A package named twice in one target: another reader may take the other one.
    @Test func aKeyRepeatedInAnAssetLinksObjectIsAWarningWithItsPath() {
        let json = #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.a.b", "package_name": "com.evil.app", "sha256_cert_fingerprints": ["\#(String(repeating: "AB:", count: 31))CD"]}}]"#
        let findings = AssetLinks.validate(bytes: Array(json.utf8)).1
        #expect(findings.map(\.code.name) == ["duplicate-key"], "\(findings)")
        #expect(findings.first?.path == "[0].target.package_name" && findings.first?.severity == .warning, "\(findings)")
    }

    @Test func validationFindsEachProblemWithAPath() {
        let json = """
            {"applinks": {"apps": [], "details": [
              {"appIDs": ["TEAMID.com.example.app", "com.example.bare", "ABCDE12345.ok.app", "ABCDE1234.short"], "paths": ["/a"], "components": [
                {"/": "*"}, {"/": "/never"}, {"/": "/$(nope)/x"}, {"?": {"a": 1}}, {"exclude": "yes"}
              ]},
              {"appIDs": ["ABCDE12345.legacy"], "paths": ["*", "NOT /x", "/y"]},
              {"appIDs": ["ABCDE12345.legacy2"], "paths": ["/a/*", "NOT /b"]},
              {"appIDs": []}
            ]}}
            """
        let findings = AppSiteAssociation.validate(bytes: Array(json.utf8))
        let got = Set(findings.map { "\($0.code) @ \($0.path)" })
        for expected in [
            "placeholder-app-id @ applinks.details[0].appIDs[0]",
            "missing-team-id @ applinks.details[0].appIDs[1]",
            "malformed-app-id @ applinks.details[0].appIDs[3]",
            "paths-and-components @ applinks.details[0]",
            "unreachable-component @ applinks.details[0].components[1]",
            "unknown-variable @ applinks.details[0].components[2]./",
            "query-value-not-string @ applinks.details[0].components[3].?.a",
            "wrong-type @ applinks.details[0].components[4].exclude",
            "unreachable-not @ applinks.details[1].paths[1]",
            "unreachable-path @ applinks.details[1].paths[2]",
            "useless-not @ applinks.details[2].paths[1]",
            "no-app-ids @ applinks.details[3]",
            "no-patterns @ applinks.details[3]",
        ] {
            #expect(got.contains(expected), "missing \(expected); got \(got.sorted())")
        }
        #expect(!got.contains { $0.contains("appIDs[2]") })
        #expect(findings.first?.severity == .error)
    }

    @Test func oversizedFilesAndHostileBytesNeverCrash() {
        let big = "{\"applinks\": {\"details\": [{\"appIDs\": [\"ABCDE12345.a.b\"], \"paths\": [" + Array(repeating: "\"/a/very/long/path/pattern/*\"", count: 5_000).joined(separator: ",") + "]}]}}"
        #expect(AppSiteAssociation.validate(bytes: Array(big.utf8)).contains { $0.code == .fileTooLarge })
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = AppSiteAssociation.validate(bytes: bytes)
            _ = AssetLinks.validate(bytes: bytes)
        }
    }
}
