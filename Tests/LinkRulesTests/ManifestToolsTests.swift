import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules

@Suite struct ManifestToolsTests {
    /// Upstream redirect test entries that are themselves wrong (see README): the `s=` stripper
    /// expects `foo=bar` to vanish from `?foo=bar&s=21`, which its own regex cannot do.
    static let knownWrongUpstream: Set<String> = ["https://twitter.com/dabit3/status/1308066681512775682?foo=bar&s=21"]

    @Test(.needsSharedFixtures) func fixturePassesEveryOfflineDecidableTest() async throws {
        let manifest = try Manifest(contentsOf: try Fixtures.require(Fixtures.openerSample))
        let runner = ManifestTestRunner(engine: LinkEngine(manifest: manifest, options: .init(offline: true)))
        let (summary, outcomes) = await runner.run()
        let failures = outcomes.filter { $0.status == .failed }
        #expect(Set(failures.map(\.input)) == Self.knownWrongUpstream, "\(failures.map(\.location))")
        #expect(failures.allSatisfy { $0.location.hasPrefix("redirects[") })
        #expect(summary.passed > 900)
        // Skipped tests are exactly the ones whose scripts needed the network.
        #expect(outcomes.filter { $0.status == .skipped }.allSatisfy { $0.reason == "needs the network (offline)" })
        #expect(summary.skipped > 0)
    }

    @Test func defaultRulesPassTheirOwnTestsAndCoverManyServices() async throws {
        let manifest = try Manifest.defaultRules()
        let (summary, _) = await ManifestTestRunner(engine: LinkEngine(manifest: manifest, options: .init(offline: true))).run()
        #expect(summary.failed == 0 && summary.skipped == 0)
        #expect(summary.passed >= 100)
        let appsWithActions = Set(manifest.actions.flatMap { $0.formats.map(\.appId) })
        #expect(appsWithActions.count >= 25)
        #expect(manifest.actions.allSatisfy { !$0.testInputs.isEmpty })
    }

    @Test func runnerReportsMismatchesAndSkips() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "a", "name": "A", "scheme": "a"}],
             "actions": [{"title": "T", "regex": "^https://a\\.example/(\\d+)$", "testInputs": ["https://a.example/1", "https://a.example/2", "https://b.example/"],
               "formats": [{"appId": "a", "format": "a://$1", "testResults": ["a://1", "a://WRONG", null]},
                           {"appId": "a", "script2": "function process(url, completionHandler) { completionHandler(httpRequest(url)); }", "testResults": ["x", "y", null]}]}],
             "redirects": {"^https://r\\.example/": {"param": "u", "tests": {"https://r.example/?u=https%3A%2F%2Fz.example%2F": "https://z.example/"}}}}
            """#)
        let (summary, outcomes) = await ManifestTestRunner(engine: LinkEngine(manifest: manifest, options: .init(offline: true))).run()
        #expect(summary == .init(passed: 4, failed: 1, skipped: 2))
        #expect(summary.line == "4 passed, 1 failed, 2 skipped")
        let failed = try #require(outcomes.first { $0.status == .failed })
        #expect(failed.location == "actions[0].formats[0] #1")
        #expect(failed.expected == "a://WRONG" && failed.got == "a://2")
    }

    @Test(.needsSharedFixtures) func lintIsCleanOnFixtureAndDefaultRules() async throws {
        for path in [try Fixtures.require(Fixtures.openerSample), Fixtures.defaultRules] {
            let findings = await ManifestLinter.lint(data: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            #expect(findings.filter { $0.severity == .error }.isEmpty, "\(findings)")
        }
    }

    /// A key twice in one object is said where it is (the loader reads the last one).
    @Test func lintNamesKeysThatAppearTwice() async {
        let json = #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}], "actions": [{"title": "D", "regex": "^https://first\\.example/", "regex": "^https://second\\.example/", "formats": [{"appId": "a", "format": "a://x"}]}], "apps": [{"identifier": "b", "name": "B", "scheme": "b"}]}"#
        let findings = await ManifestLinter.lint(data: Array(json.utf8)).filter { $0.code == .duplicateKey }
        #expect(findings.map(\.location.path) == ["apps", "actions[0].regex"], "\(findings)")
        #expect(findings.allSatisfy { $0.severity == .warning && $0.message.contains("appears 2 times in one object; only the last is used") })
    }

    @Test func lintFindsEachKindOfMistake() async {
        let json = #"""
            {"apps": [{"identifier": "a", "name": "A", "scheme": "a"}, {"identifier": "a", "name": "A2", "scheme": "a2"}],
             "actions": [
               {"title": "bad regex", "regex": "([a-", "formats": [{"appId": "a", "format": "a://"}]},
               {"title": "unknown app", "regex": "x", "formats": [{"appId": "nope", "format": "a://"}]},
               {"title": "count", "regex": "x", "testInputs": ["x"], "formats": [{"appId": "a", "format": "a://", "testResults": []}]},
               {"title": "both", "regex": "x", "formats": [{"appId": "a", "format": "a://", "script2": "function process(u, c) { c(u); }"}]},
               {"title": "no process", "regex": "x", "formats": [{"appId": "a", "script2": "function proc(u, c) { c(u); }"}]},
               {"title": "syntax", "regex": "x", "formats": [{"appId": "a", "script2": "function process(u, c) { c(u); "}]}]}
            """#
        let findings = await ManifestLinter.lint(data: Array(json.utf8))
        let errors = Dictionary(grouping: findings.filter { $0.severity == .error }, by: \.code).mapValues { $0.compactMap(\.location.path) }
        #expect(errors[ErrorCode("duplicate-identifier")] == ["apps[1].identifier"])
        #expect(errors[ErrorCode("regex-invalid")] == ["actions[0].regex"])
        #expect(errors[ErrorCode("unknown-app")] == ["actions[1].formats[0].appId"])
        #expect(errors[ErrorCode("test-count-mismatch")] == ["actions[2].formats[0].testResults"])
        #expect(errors[ErrorCode("format-and-script2")] == ["actions[3].formats[0]"])
        #expect(errors[ErrorCode("script-without-process")] == ["actions[4].formats[0].script2"])
        #expect(errors[ErrorCode("script-syntax")] == ["actions[5].formats[0].script2"])
    }

    @Test(.needsSharedFixtures) func minifiedManifestResolvesExactlyLikeTheOriginal() async throws {
        for path in [try Fixtures.require(Fixtures.openerSample), Fixtures.defaultRules] {
            let original = try Manifest(contentsOf: path)
            let minifiedText = ManifestMinifier.minify(original.document)
            let minified = try Manifest(json: minifiedText)
            #expect(!minifiedText.contains("testInputs") && !minifiedText.contains("\"docs\""))
            #expect(minifiedText.utf8.count < (try Data(contentsOf: URL(fileURLWithPath: path))).count * 3 / 4)
            #expect(minified.redirects.map(\.regex) == original.redirects.map(\.regex))
            // A wall-clock regex budget far above any real match: this compares the two manifests,
            // and a loaded machine must not turn a slow match into a regex-timeout on one side only.
            let a = LinkEngine(manifest: original, options: .init(offline: true, regexTimeLimit: 10))
            let b = LinkEngine(manifest: minified, options: .init(offline: true, regexTimeLimit: 10))
            let inputs = original.actions.flatMap(\.testInputs) + original.browsers.flatMap(\.testInputs) + original.redirects.flatMap { $0.tests.map(\.input) }
            for input in inputs {
                let fromOriginal = await a.resolve(input)
                let fromMinified = await b.resolve(input)
                #expect(fromOriginal == fromMinified, "\(input)")
                #expect(a.unwrap(input) == b.unwrap(input))
            }
        }
    }
}
