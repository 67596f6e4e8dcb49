import SwitchyardTestSupport
import SwitchyardCore
import Testing
@testable import LinkRules
import PatternMatching

@Suite struct ManifestLoaderTests {
    @Test func acceptsOlderKeyNames() throws {
        // v1-style keys everywhere: displayName, storeIdentifier (number), appIdentifier,
        // includeHeaders, redirectRules; scheme with "://"; unknown keys ignored.
        let manifest = try Manifest(json: """
            {"apps": [{"identifier": "tw", "displayName": "Tweeter", "storeIdentifier": 333903271, "scheme": "twitter://", "futureKey": [1]}],
             "actions": [{"title": "T", "regex": "https?://t\\\\.example/(\\\\d+)", "includeHeaders": true,
                          "formats": [{"appIdentifier": "tw", "format": "twitter://status?id=$1"}]}],
             "redirectRules": {"https?://r\\\\.example/.*": {"param": "u"}},
             "somethingNew": {"ignored": true}}
            """)
        let app = try #require(manifest.app("tw"))
        #expect(app.name == "Tweeter")
        #expect(app.storeId == "333903271")
        #expect(app.scheme == "twitter")
        #expect(manifest.actions[0].includeHeaders)
        #expect(manifest.actions[0].formats[0].appId == "tw")
        #expect(manifest.redirects.count == 1)
    }

    @Test func acceptsNewerKeyNames() throws {
        let manifest = try Manifest(json: """
            {"apps": [{"identifier": "a", "name": "A", "storeId": "12", "scheme": "a"}],
             "actions": [{"title": "T", "regex": "x", "headers": 1, "formats": [{"appId": "a", "format": "a://"}]}],
             "redirects": {}}
            """)
        #expect(manifest.app("a")?.storeId == "12")
        #expect(manifest.actions[0].includeHeaders)
    }

    struct ErrorCase: Sendable, CustomStringConvertible {
        let json: String
        let code: String
        let path: String
        let message: String
        var description: String { code }
    }

    @Test(arguments: [
        ErrorCase(
            json: #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}], "actions": [{"title": "T", "regex": "x", "formats": [{"appId": "a", "format": "a://"}, {"appId": "foo", "format": "f://"}]}]}"#,
            code: "unknown-app", path: "actions[0].formats[1].appId", message: #""foo" names no app"#),
        ErrorCase(
            json: #"{"apps": [], "actions": [{"title": "T", "regex": "(unclosed", "formats": []}]}"#,
            code: "regex-invalid", path: "actions[0].regex", message: "regex does not compile"),
        ErrorCase(
            json: #"{"apps": [{"identifier": 5, "name": "A", "scheme": "a"}]}"#,
            code: "wrong-type", path: "apps[0].identifier", message: "expected a string, found number"),
        ErrorCase(
            json: #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}, {"identifier": "a", "name": "B", "scheme": "b"}]}"#,
            code: "duplicate-identifier", path: "apps[1].identifier", message: "used by an earlier app"),
        ErrorCase(
            json: #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}], "actions": [{"title": "T", "regex": "x", "formats": [{"appId": "a", "note": "no transform"}]}]}"#,
            code: "missing-key", path: "actions[0].formats[0]", message: #"a format needs "format" or "script2""#),
        ErrorCase(
            json: #"{"actions": [{"title": "T", "formats": []}]}"#,
            code: "missing-key", path: "actions[0]", message: #"missing required key "regex""#),
        ErrorCase(
            json: #"{"redirects": {"x": {"tests": {}}}}"#,
            code: "missing-key", path: #"redirects["x"]"#, message: #"needs "param" or "format""#),
    ])
    func unusableEntriesAreSkippedWithTheirLocationOrRefusedWhenStrict(_ c: ErrorCase) throws {
        // Lenient (the default, as Opener): the manifest loads, the one entry is skipped and
        // reported with its path and reason.
        let lenient = try Manifest(json: c.json)
        #expect(lenient.skipped.count == 1)
        let skipped = try #require(lenient.skipped.first)
        #expect(skipped.code.name == c.code)
        #expect(skipped.location.path == c.path)
        #expect(skipped.message.contains(c.message), "\(skipped.message)")
        // Strict: the same entry refuses the manifest, with the same location.
        do {
            _ = try Manifest(json: c.json, strict: true)
            Issue.record("expected \(c.code)")
        } catch {
            #expect(error.code.name == c.code)
            #expect(error.location?.path == c.path)
            #expect(error.message.contains(c.message), "\(error.message)")
            #expect(error.description.hasPrefix("\(c.path): "))
        }
    }

    @Test func aDocumentThatIsNotAnObjectIsRefused() {
        #expect(throws: ManifestError.self) { try Manifest(json: "[1, 2]") }
        do { _ = try Manifest(json: "[1, 2]") } catch {
            #expect(error.code == .notAnObject)
            #expect(error.message.contains("must be a JSON object"))
        }
    }

    @Test func oddValuesAreIgnoredWithAWarningAndTheEntryKept() throws {
        // Shapes seen in the wild: null for optional strings, numbers for names, tests of the
        // wrong shape, a note where a key was expected, unknown keys.
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "a", "name": 5, "scheme": null, "platform": ["ios"], "storeId": {"x": 1}, "new": true}],
             "actions": [{"title": 7, "regex": "https://a\\.example/(\\d+)", "testInputs": ["https://a.example/1", 2],
                          "formats": [{"appId": "a", "format": "a://$1", "testResults": ["a://1", "a://2"]}]},
                         {"title": "T2", "regex": "https://b\\.example/", "testInputs": ["https://b.example/"],
                          "formats": [{"appId": "a", "format": "a://b", "testResults": ["a://b", "extra"]}]}],
             "browsers": "not a list",
             "redirects": {"https://r\\.example/.*": {"param": "u", "tests": ["wrong"]}}}
            """#)
        #expect(manifest.skipped.isEmpty)
        let app = try #require(manifest.app("a"))
        #expect(app.name == "a")
        #expect(app.scheme == "")
        #expect(app.storeId == nil)
        #expect(manifest.actions.count == 2)
        #expect(manifest.actions[0].title == "")
        #expect(manifest.actions[0].testInputs.isEmpty)
        #expect(manifest.actions[1].formats[0].testResults == nil)
        #expect(manifest.redirects.count == 1)
        let paths = Set(manifest.warnings.compactMap(\.location.path))
        for expected in ["apps[0].name", "apps[0].platform", "apps[0].storeId", "actions[0].title",
                         "actions[0].testInputs[1]", "actions[1].formats[0].testResults", "browsers", #"redirects["https://r\\.example/.*"].tests"#] {
            #expect(paths.contains(expected), "no warning at \(expected): \(paths.sorted())")
        }
    }

    @Test func aFormatMayDefineItsAppInline() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "known", "name": "Known", "scheme": "known"}],
             "actions": [{"title": "T", "regex": "https://i\\.example/(\\d+)",
                          "formats": [{"appId": {"identifier": "inline", "name": "Inline", "storeId": 123, "scheme": "inline://"}, "format": "inline://$1"},
                                      {"app": {"identifier": "other", "name": "Other", "scheme": "other"}, "format": "other://$1"},
                                      {"appId": {"name": "no identifier"}, "format": "x://"},
                                      {"appId": "known", "format": "known://$1"}]}]}
            """#)
        #expect(manifest.app("inline")?.name == "Inline")
        #expect(manifest.app("inline")?.storeId == "123")
        #expect(manifest.app("inline")?.scheme == "inline")
        #expect(manifest.app("other")?.name == "Other")
        #expect(manifest.skipped.map(\.location.path) == ["actions[0].formats[2].appId"])
        let r = await LinkEngine(manifest: manifest, options: .init(offline: true)).resolve("https://i.example/7")
        #expect(r.actions.map(\.appId) == ["inline", "other", "known"])
        #expect(r.actions.map(\.url) == ["inline://7", "other://7", "known://7"])
        #expect(r.actions.map(\.format) == [0, 1, 3])
    }

    /// Two inline definitions of one app that differ: the first is used, and the warning says
    /// which one that is (it said "the one in apps" when apps had none).
    @Test func aSecondDifferentInlineAppIsAWarningThatNamesTheFirst() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "known", "name": "Known", "scheme": "known"}],
             "actions": [{"title": "A", "regex": "https://a\\.example/(\\d+)",
                          "formats": [{"app": {"identifier": "in1", "name": "In1", "scheme": "in1"}, "format": "in1://$1"}]},
                         {"title": "B", "regex": "https://b\\.example/(\\d+)",
                          "formats": [{"app": {"identifier": "in1", "name": "Other", "scheme": "other"}, "format": "other://$1"},
                                      {"app": {"identifier": "known", "name": "Changed", "scheme": "known"}, "format": "known://$1"}]}]}
            """#)
        let messages = manifest.warnings.filter { $0.code == .inlineAppDiffers }.map { "\($0.location.path ?? ""): \($0.message)" }
        #expect(messages == [
            #"actions[1].formats[0].app: inline app "in1" differs from its first inline definition (actions[0].formats[0].app); that one is used"#,
            #"actions[1].formats[1].app: inline app "known" differs from the one in apps; that one is used"#,
        ])
        #expect(manifest.app("in1")?.name == "In1")
    }

    @Test func syntaxErrorsSayLineAndColumn() {
        do {
            _ = try Manifest(json: "{\n  \"apps\": [\n    {\"identifier\": \"a\",}\n  ]\n}")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.code == .jsonSyntax)
            #expect(error.location?.line == 3)
            #expect(error.location?.column == 24)
            #expect(error.description.hasPrefix("line 3, column 24: invalid JSON"))
        }
    }

    @Test func redirectsKeepFileOrder() throws {
        // Both rules match; alphabetical or hash order would pick the other one.
        let manifest = try Manifest(json: """
            {"redirects": {
              "https?://z\\\\.example/.*": {"format": "https://first.example/"},
              "https?://(a|z)\\\\.example/.*": {"format": "https://second.example/"},
              "https?://a\\\\.example/.*": {"param": "u"}
            }}
            """)
        #expect(manifest.redirects.map(\.index) == [0, 1, 2])
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        #expect(engine.unwrap("https://z.example/x") == "https://first.example/")
        #expect(engine.unwrap("https://a.example/x?u=https%3A%2F%2Fdest.example%2F") == "https://second.example/")
        #expect(engine.unwrap("https://b.example/x") == "https://b.example/x")
    }

    @Test func redirectTablePassesOnlyOnce() throws {
        // The output of the first rule matches the second rule, but the table is applied once.
        let manifest = try Manifest(json: """
            {"redirects": {
              "https?://one\\\\.example/.*": {"param": "u"},
              "https?://two\\\\.example/.*": {"param": "v"}
            }}
            """)
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        let wrapped = "https://one.example/?u=" + "https://two.example/?v=https%3A%2F%2Fend.example%2F".addingPercentEncodingForQuery()
        #expect(engine.unwrap(wrapped) == "https://two.example/?v=https%3A%2F%2Fend.example%2F")
    }

    @Test(.needsSharedFixtures) func fixtureLoadsWithItsRedirectsInFileOrder() throws {
        let manifest = try Manifest(contentsOf: try Fixtures.require(Fixtures.openerSample), strict: true)
        #expect(manifest.skipped.isEmpty)
        #expect(manifest.actions.count == 175)
        #expect(manifest.browsers.count == 22)
        #expect(manifest.redirects.count == 11)
        // The first rule in the file is Google's /url unwrapper, the last the app.link one.
        #expect(manifest.redirects.first?.regex.contains("google") == true)
        #expect(manifest.redirects.last?.regex.contains("app\\.link") == true)
    }
}

extension String {
    func addingPercentEncodingForQuery() -> String {
        var out = ""
        for b in utf8 {
            let c = Character(Unicode.Scalar(b))
            if c.isLetter || c.isNumber || "-._~".contains(c) { out.append(c) } else { out += String(format: "%%%02X", b) }
        }
        return out
    }
}

import Foundation

@Suite struct RegexDiagnosisTests {
    @Test(arguments: [
        ("^https://a\\.example/(\\d+", "the group opened at offset 20 is never closed"),
        ("abc)", "')' at offset 3 closes no group"),
        ("[a-z", "the character class opened at offset 0 is never closed"),
        ("*abc", "'*' at offset 0 has nothing to repeat"),
        ("ab\\", "a trailing backslash escapes nothing (offset 2)"),
        ("a{3,1}", "the repetition {3,1} at offset 1 has its minimum above its maximum"),
        ("", "the pattern is empty"),
    ])
    func explainsWhyARegexDoesNotCompile(_ pattern: String, _ reason: String) {
        #expect((try? Pattern(pattern)) == nil, "ICU should reject \(pattern)")
        #expect(Pattern.diagnose(pattern) == reason)
    }

    /// What ICU refuses for a rule this reader does not check still gets a list of where to look.
    @Test(arguments: ["(?<=a+)b", "[z-a]", "\\p{Bogus}"])
    func otherRefusalsSayWhereToLook(_ pattern: String) {
        #expect((try? Pattern(pattern)) == nil, "ICU should reject \(pattern)")
        #expect(Pattern.diagnose(pattern).contains("unbounded look-behind, a reversed range such as [z-a], an unknown"))
    }
}
