import Testing
@testable import LinkRules

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
            json: #"{"apps": [{"identifier": "a", "name": 5, "scheme": "a"}]}"#,
            code: "wrong-type", path: "apps[0].name", message: "expected a string, found number"),
        ErrorCase(
            json: #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}, {"identifier": "a", "name": "B", "scheme": "b"}]}"#,
            code: "duplicate-identifier", path: "apps[1].identifier", message: "used by an earlier app"),
        ErrorCase(
            json: #"{"apps": [{"identifier": "a", "name": "A", "scheme": "a"}], "actions": [{"title": "T", "regex": "x", "testInputs": ["x", "y"], "formats": [{"appId": "a", "format": "a://", "testResults": ["a://"]}]}]}"#,
            code: "test-count-mismatch", path: "actions[0].formats[0].testResults", message: "has 1 results for 2 testInputs"),
        ErrorCase(
            json: #"{"redirects": {"x": {"tests": {}}}}"#,
            code: "missing-key", path: #"redirects["x"]"#, message: #"needs "param" or "format""#),
        ErrorCase(json: #"[1, 2]"#, code: "wrong-type", path: "$", message: "must be a JSON object"),
    ])
    func semanticErrorsSayWhere(_ c: ErrorCase) {
        do {
            _ = try Manifest(json: c.json)
            Issue.record("expected \(c.code)")
        } catch {
            #expect(error.code == c.code)
            #expect(error.location?.path == c.path)
            #expect(error.message.contains(c.message), "\(error.message)")
            #expect(error.description.hasPrefix("\(c.path): "))
        }
    }

    @Test func syntaxErrorsSayLineAndColumn() {
        do {
            _ = try Manifest(json: "{\n  \"apps\": [\n    {\"identifier\": \"a\",}\n  ]\n}")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.code == "json-syntax")
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

    @Test func fixtureLoadsWithItsRedirectsInFileOrder() throws {
        let manifest = try Manifest(contentsOf: try Fixtures.require(Fixtures.openerSample))
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
    ])
    func explainsWhyARegexDoesNotCompile(_ pattern: String, _ reason: String) {
        #expect((try? Pattern(pattern)) == nil, "ICU should reject \(pattern)")
        #expect(Pattern.diagnose(pattern) == reason)
    }
}
