import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore
import Testing

/// Android 15 dynamic App Links rules: reading, findings, decisions, and generation from the
/// same route table as the AASA.
@Suite struct DynamicRulesTests {
    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    /// A file with one statement for `com.example.app` carrying `rules` (JSON text of the list).
    static func file(_ rules: String, package: String = "com.example.app", relation: String = "delegate_permission/common.handle_all_urls") -> String {
        """
        [{"relation": ["\(relation)"],
          "target": {"namespace": "android_app", "package_name": "\(package)", "sha256_cert_fingerprints": ["\(fingerprint)"]},
          "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": \(rules)}}}]
        """
    }

    static func read(_ text: String) -> (AssetLinks?, [Finding]) { AssetLinks.validate(bytes: Array(text.utf8)) }

    struct Case: Sendable, CustomTestStringConvertible {
        let url: String
        let decision: AssetLinks.Decision
        var rule: Int? = nil
        var testDescription: String { "\(url) → \(decision.rawValue)" }
    }

    /// Shaped as the guide's examples: exclusions first (a query map, a fragment), paths that
    /// open the app, a query value that must match, and a final catch-all exclusion.
    static let guideRules = """
        [{"?": {"dl": "*"}, "exclude": true},
         {"#": "no-app", "exclude": true},
         {"/": "/products/*"},
         {"/": "/shoes", "?": {"in_app": "true"}},
         {"/": "/p?"},
         {"/": "/sale/?*"},
         {"/": "*", "exclude": true}]
        """

    @Test(arguments: [
        Case(url: "https://shop.example/products/42", decision: .match, rule: 2),
        Case(url: "https://shop.example/products/", decision: .match, rule: 2),
        Case(url: "https://shop.example/products/42?dl=campaign", decision: .exclude, rule: 0),
        Case(url: "https://shop.example/products/42?a=1&dl=", decision: .exclude, rule: 0),
        Case(url: "https://shop.example/products/42#no-app", decision: .exclude, rule: 1),
        Case(url: "https://shop.example/shoes?in_app=true", decision: .match, rule: 3),
        Case(url: "https://shop.example/shoes?utm=x&in_app=true", decision: .match, rule: 3),
        Case(url: "https://shop.example/shoes?in_app=false", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/shoes", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/p1", decision: .match, rule: 4),
        Case(url: "https://shop.example/p", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/p12", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/sale/", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/sale/x", decision: .match, rule: 5),
        Case(url: "https://shop.example/Products/42", decision: .exclude, rule: 6),
        Case(url: "https://shop.example/products%2F42", decision: .match, rule: 2),
    ])
    func rulesAreTriedInOrderAndTheFirstMatchDecides(_ c: Case) throws {
        let links = try #require(Self.read(Self.file(Self.guideRules)).0)
        let e = links.explain(c.url, package: "com.example.app")
        #expect(e.decision == c.decision, "\(e.reason)")
        #expect(e.rule == c.rule)
    }

    /// Without a catch-all, a URL no rule matches stays in the browser; an app with no rules,
    /// or with malformed ones, is left to its manifest; another app is not associated.
    @Test func unmatchedManifestAndNotAssociated() throws {
        let partial = try #require(Self.read(Self.file(#"[{"/": "/products/*"}]"#)).0)
        #expect(partial.decide("https://shop.example/about", package: "com.example.app") == .noMatch)
        #expect(partial.decide("https://shop.example/products/1", package: "com.other") == .notAssociated)
        // The reason names the packages the file does verify, so a mistyped one is seen.
        #expect(partial.explain("https://shop.example/products/1", package: "com.exmaple.app").reason
                == "no statement grants com.exmaple.app delegate_permission/common.handle_all_urls (the file lists com.example.app)")
        #expect(partial.decide("ftp://shop.example/products/1", package: "com.example.app") == .notAssociated)
        let plain = AssociationGenerator.assetLinks(packageName: "com.example.app", fingerprints: [Self.fingerprint])
        #expect(plain.decide("https://shop.example/anything", package: "com.example.app") == .manifest)
        let broken = try #require(Self.read(Self.file(#"[{"/": "/products/*"}, {"/": ""}]"#)).0)
        #expect(broken.decide("https://shop.example/products/1", package: "com.example.app") == .manifest)
        // Rules in a statement that does not grant handle_all_urls are not used.
        let loginOnly = try #require(Self.read(Self.file(#"[{"/": "/x"}]"#, relation: "delegate_permission/common.get_login_creds")).0)
        #expect(loginOnly.decide("https://shop.example/x", package: "com.example.app") == .notAssociated)
    }

    struct FindingCase: Sendable, CustomTestStringConvertible {
        let name: String
        let rules: String
        let code: ErrorCode
        let severity: Finding.Severity
        let path: String
        var testDescription: String { name }
    }

    static let base = #"[0].relation_extensions["delegate_permission/common.handle_all_urls"].dynamic_app_link_components"#

    @Test(arguments: [
        FindingCase(name: "only exclusions", rules: #"[{"/": "/polycy/*", "exclude": true}]"#, code: .onlyExclusions, severity: .error, path: base),
        FindingCase(name: "exlude", rules: #"[{"/": "/admin/*", "exlude": true}, {"/": "*"}]"#, code: .unknownRuleKey, severity: .warning, path: base + #"[0]["exlude"]"#),
        FindingCase(name: "path key", rules: #"[{"path": "/a/*"}]"#, code: .unknownRuleKey, severity: .warning, path: base + #"[0]["path"]"#),
        FindingCase(name: "query not an object", rules: #"[{"?": "dl=*"}]"#, code: .malformedDynamicRule, severity: .error, path: base + #"[0]["?"]"#),
        FindingCase(name: "empty path", rules: #"[{"/": ""}]"#, code: .malformedDynamicRule, severity: .error, path: base + #"[0]["/"]"#),
        FindingCase(name: "exclude as text", rules: #"[{"/": "/a", "exclude": "true"}]"#, code: .malformedDynamicRule, severity: .error, path: base + #"[0]["exclude"]"#),
        FindingCase(name: "empty list", rules: "[]", code: .malformedDynamicRule, severity: .error, path: base),
        FindingCase(name: "not a list", rules: #"{"/": "*"}"#, code: .malformedDynamicRule, severity: .error, path: base),
        FindingCase(name: "discard note", rules: #"[{"/": 3}]"#, code: .dynamicRulesDiscarded, severity: .warning, path: base),
        FindingCase(name: "after a catch-all", rules: #"[{"/": "/a"}, {}, {"/": "/b"}]"#, code: .unreachableRule, severity: .warning, path: base + "[2]"),
        FindingCase(name: "empty rule", rules: #"[{"/": "/a"}, {}]"#, code: .emptyRule, severity: .warning, path: base + "[1]"),
    ])
    func everyFindingSaysWhereAndWhy(_ c: FindingCase) throws {
        let findings = Self.read(Self.file(c.rules)).1
        #expect(findings.contains { $0.code == c.code && $0.severity == c.severity && $0.path == c.path }, "\(findings.map { "\($0.path) \($0.code) \($0.message)" })")
    }

    /// A misspelt `relation_extensions` is a warning (Android would ignore the rules), and dynamic
    /// rules declared twice for one app are an error.
    @Test func statementLevelMistakes() throws {
        let misspelt = """
            [{"relation": ["delegate_permission/common.handle_all_urls"],
              "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\(Self.fingerprint)"]},
              "relation_extension": {}}]
            """
        let findings = Self.read(misspelt).1
        #expect(findings.contains { $0.code == .unknownKey && $0.message.contains("did you mean \"relation_extensions\"") }, "\(findings)")
        let statement = String(Self.file(#"[{"/": "*"}]"#).dropFirst().dropLast())
        let twice = Self.read("[\(statement), \(statement)]").1
        #expect(twice.contains { $0.code == .duplicateDynamicRules && $0.severity == .error })
    }

    /// The rules generated from a route table are the AASA's components, in order: for every
    /// example URL (and the same with an extra query parameter) both platforms decide alike.
    @Test func generatedRulesDecideAsTheGeneratedAASA() throws {
        let router = try GenerationAndChecksTests.plur()
        let aasa = try #require(AppSiteAssociation.read(AssociationGenerator.appSiteAssociation(router: router, appIDs: [GenerationAndChecksTests.appID])).0)
        let links = AssociationGenerator.assetLinks(packageName: "community.rabble.plur", fingerprints: [Self.fingerprint], router: router)
        #expect(Self.read(JSONWriter.compact(links.json)).1.filter { $0.severity == .error }.isEmpty)
        let urls = PlatformComparison.sampleURLs(router) + ["https://rabble.community/about", "https://rabble.community/g/x"]
        let rows = PlatformComparison.compare(urls, aasa: aasa, appID: GenerationAndChecksTests.appID, assetLinks: links, package: "community.rabble.plur", hosts: router.hosts)
        #expect(rows.count >= 8)
        #expect(rows.allSatisfy { !$0.disagree }, "\(rows.filter(\.disagree))")
        #expect(rows.contains { $0.android == .noMatch && $0.ios == .noMatch }, "an unrouted URL stays in the browser on both")
        #expect(rows.contains { $0.url.contains("sy_extra=1") && $0.android == .match })
    }

    /// The files are served on every host of the table, aliases too; a URL on another host
    /// reaches neither.
    @Test func hostAliasesAreDecidedOnTheirOwnHostAndForeignHostsReachNoFile() throws {
        let router = try GenerationAndChecksTests.plur()
        let aasa = try #require(AppSiteAssociation.read(AssociationGenerator.appSiteAssociation(router: router, appIDs: [GenerationAndChecksTests.appID])).0)
        let links = AssociationGenerator.assetLinks(packageName: "community.rabble.plur", fingerprints: [Self.fingerprint], router: router)
        let rows = PlatformComparison.compare(["https://www.rabble.community/g/ravers", "https://evil.example/g/ravers"], aasa: aasa,
                                              appID: GenerationAndChecksTests.appID, assetLinks: links, package: "community.rabble.plur", hosts: router.hosts)
        #expect(rows.map(\.ios) == [.match, .noMatch])
        #expect(rows.map(\.android) == [.match, .notAssociated])
        #expect(rows.allSatisfy { !$0.disagree })
    }
}
