import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules
import PatternMatching

/// Every regex evaluation has a time budget; a catastrophic one fails what it was for with
/// `regex-timeout` and leaves the rest of the answer intact. `manifest lint` warns about the
/// shapes that backtrack catastrophically.
@Suite struct RegexBudgetTests {
    static let hostileInput = "https://ok.example/" + String(repeating: "a", count: 160) + "!"

    @Test func aCatastrophicEvaluationIsStoppedWithinItsBudget() throws {
        let pattern = try Pattern("(a+)+$")
        let start = ContinuousClock.now
        #expect(pattern.match(Self.hostileInput, budget: 0.05) == .failure(RegexTimeout(seconds: 0.05)))
        #expect(ContinuousClock.now - start < .seconds(2))
        // The same pattern on an ordinary input answers normally.
        #expect(pattern.match("https://ok.example/aaa", budget: 0.05) == .success(true))
        #expect(pattern.match("https://ok.example/", budget: 0.05) == .success(false))
        #expect(!pattern.matches(Self.hostileInput, budget: 0.05))
        #expect(pattern.replace(in: Self.hostileInput, with: "x", budget: 0.05) == Self.hostileInput)
    }

    @Test func theEngineFailsOnlyTheActionBrowserOrPreviewWhoseRegexRanOut() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "app", "name": "App", "scheme": "app"}],
             "actions": [
                {"title": "Hostile", "regex": "(a+)+$", "formats": [{"appId": "app", "format": "app://x"}, {"appId": "app", "format": "app://y"}]},
                {"title": "Fine", "regex": "^https://ok\\.example/", "formats": [{"appId": "app", "format": "app://ok"}]},
                {"title": "Polynomial", "regex": "(.*a){20}", "formats": [{"appId": "app", "format": "app://z"}]}],
             "browsers": [{"name": "Slow", "identifier": "slow", "scheme": "https", "regex": "(a+)+$", "format": "$0"},
                          {"name": "Web", "identifier": "web", "scheme": "https", "regex": "^https?://.+$", "format": "$0"}],
             "previews": [{"regex": "(a|aa)+$", "format": "https://img.example/x.jpg"}],
             "redirects": {}}
            """#)
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true, regexTimeLimit: 0.05))
        let start = ContinuousClock.now
        let r = await engine.resolve(Self.hostileInput)
        // Without budgets this never ends; with them it is four stopped evaluations. The bound is
        // loose because the whole suite shares two cores with 100,000-line batches.
        #expect(ContinuousClock.now - start < .seconds(120))
        #expect(r.actions.map(\.action) == [0, 0, 1, 2])
        #expect(r.actions.map { $0.error?.code.name } == ["regex-timeout", "regex-timeout", nil, "regex-timeout"])
        #expect(r.actions[2].url == "app://ok" + String(repeating: "a", count: 160) + "!")
        #expect(r.browsers.map(\.appId) == ["slow", "web"])
        #expect(r.browsers[0].error?.code == .regexTimeout && r.browsers[0].url == nil)
        #expect(r.browsers[1].url == Self.hostileInput)
        let previews = await engine.previews(for: Self.hostileInput)
        #expect(previews.map { $0.error?.code.name } == ["regex-timeout"])
        // The budget is configurable: with a generous one, shorter runs of the same shapes finish.
        let shorter = "https://ok.example/" + String(repeating: "a", count: 10) + "!"
        let patient = LinkEngine(manifest: manifest, options: .init(offline: true, regexTimeLimit: 30))
        let finished = await patient.resolve(shorter)
        #expect(finished.actions.map(\.action) == [1])
        #expect(finished.browsers.map(\.appId) == ["web"])
    }

    @Test(arguments: [
        #"(a+)+$"#, #"(.*a){20}"#, #"(?:[^/]+\.)+webex\.com"#, #"https?://((?:.+\.)+webex\.com/.*)$"#, #"(\w|\d)+x"#,
        #"(a|aa)*b"#, #"^(([a-z])+.)+[A-Z]([a-z])+$"#, #"(?:.*/)*story"#, #"^(?:x(?:\d+)+)$"#,
    ])
    func catastrophicShapesAreNamed(_ source: String) throws {
        _ = try Pattern(source)
        let problem = try #require(Pattern.catastrophicShape(source), "\(source) not flagged")
        #expect(problem.contains("repeated group"))
    }

    @Test(arguments: [
        #"^https?://(?:www\.)?twitter\.com/(\w+)/status/(\d+)"#, #"(?:[^/]+/)*status/(\d+)"#, #"^https?://(?:\w+\.)*example\.com/"#,
        #"(?:www\.|m\.)*x"#, #"(\d+)"#, #"[a-z]+"#, #"^https://(?:[a-zA-Z0-9_\-]+\.)*zoom\.us/j/(\d+)"#, #"(ab)+"#, #"(?:a{2})*"#,
        #"(?i)^https?://(?:[a-z0-9-]+\.)?medium\.com/@([^/]+)/([^/?#]+)"#, #"[(a+)+]"#, #"\(a+\)+"#,
    ])
    func ordinaryShapesAreNotFlagged(_ source: String) throws {
        _ = try Pattern(source)
        #expect(Pattern.catastrophicShape(source) == nil, "\(Pattern.catastrophicShape(source) ?? "")")
    }

    /// What the heuristic flags in the real sample is really slow: each flagged action regex is
    /// made to run out of a 50 ms budget by an input built for it.
    @Test(.needsSharedFixtures) func theSampleShapesItFlagsAreReallySlow() throws {
        let manifest = try Manifest(contentsOf: try Fixtures.require(Fixtures.openerSample))
        let flagged = manifest.actions.filter { Pattern.catastrophicShape($0.pattern.source) != nil }
        #expect(!flagged.isEmpty)
        for a in flagged where a.pattern.source.contains("webex") || a.pattern.source.contains("story") {
            let input = a.pattern.source.contains("webex")
                ? "https://" + String(repeating: "a.", count: 40) + "webex.com/x"
                : "https://apps.apple.com/" + String(repeating: "a/", count: 40) + "story/idx"
            #expect(a.pattern.match(input, budget: 0.05) == .failure(RegexTimeout(seconds: 0.05)), "\(a.pattern.source)")
        }
    }
}
