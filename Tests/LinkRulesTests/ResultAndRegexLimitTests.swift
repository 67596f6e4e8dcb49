import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules
import PatternMatching

/// What the engine accepts as a link, the size bound on a manifest regex, and how a redirect's
/// Location becomes the next URL.
@Suite struct ResultAndRegexLimitTests {
    /// The byte-level fast path of the result check accepts only what the scalar-level check
    /// accepts, on seeded random text from a pool of the characters that matter.
    @Test func theFastResultCheckNeverAcceptsWhatTheFullCheckRefuses() {
        var rng = SeededGenerator(seed: 20_261_125)
        let pool: [String] = ["a", "Z", "7", "+", "-", ".", ":", "/", " ", "\u{0}", "\n", "\u{7F}", "\u{85}", "\u{9F}", "\u{A0}", "é", "\u{202E}", "😀", "%"]
        var accepted = 0
        for _ in 0..<20_000 {
            // Half start as a link would, so that both answers are well represented.
            let start = Bool.random(using: &rng) ? "ap" + pool.randomElement(using: &rng)! + ":" : ""
            let text = start + (0..<Int.random(in: 0...8, using: &rng)).map { _ in pool.randomElement(using: &rng)! }.joined()
            let full = LinkEngine.checked(.success(text))
            var bytes = text
            if bytes.withUTF8(LinkEngine.isPlainAbsoluteURL) {
                accepted += 1
                #expect(full.failureValue == nil, "\(text.debugDescription)")
            }
        }
        #expect(accepted > 1_000, "\(accepted) accepted by the fast path")
    }

    /// A result is a link only if it is a string, has a scheme and holds no control character
    /// (C0, DEL, C1): anything else fails its format with `invalid-result`, in both isolation modes.
    @Test(arguments: [ScriptIsolation.inProcess])
    func resultsThatAreNotLinksFailTheirFormat(_ isolation: ScriptIsolation) async throws {
        func script(_ body: String) -> String { "\"function process(u, c) { \(body) }\"" }
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "app", "name": "App", "scheme": "app"}],
             "actions": [{"title": "R", "regex": "^https://r\\.example/", "formats": [
                {"appId": "app", "script2": \#(script("c(12345);"))},
                {"appId": "app", "script2": \#(script("c(true);"))},
                {"appId": "app", "script2": \#(script("c({url: 'app://x'});"))},
                {"appId": "app", "script2": \#(script("c('app://x\\\\u001b[2J');"))},
                {"appId": "app", "script2": \#(script("c('app://x\\\\u009b2J');"))},
                {"appId": "app", "script2": \#(script("c('app://x\\\\nforged');"))},
                {"appId": "app", "script2": \#(script("c('');"))},
                {"appId": "app", "script2": \#(script("c('12345');"))},
                {"appId": "app", "script2": \#(script("c(null);"))},
                {"appId": "app", "script2": \#(script("c('app://fine?q=a b');"))},
                {"appId": "app", "format": "app://t/\u001b$0"}
             ]}],
             "previews": [{"regex": "^https://r\\.example/", "script2": \#(script("c('no scheme');"))}]}
            """#)
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true, scriptIsolation: isolation))
        let r = await engine.resolve("https://r.example/")
        #expect(r.actions.map { $0.error?.code.name } == Array(repeating: "invalid-result", count: 8) + [nil, nil, "invalid-result"], "\(r.actions)")
        #expect(r.actions.map(\.url) == Array(repeating: nil, count: 9) + ["app://fine?q=a b", nil])
        #expect(r.actions[0].error?.message == "the script passed a number to completionHandler; it takes a URL string or null")
        #expect(r.actions[3].error?.message == "the result contains the control character U+001B at character 7; a link is one line of printable text")
        #expect(r.actions[4].error?.message.contains("U+009B") == true)
        #expect(r.actions[7].error?.message == #"the result "12345" is not an absolute URL (it needs a scheme such as app:)"#)
        let previews = await engine.previews(for: "https://r.example/")
        #expect(previews.map { $0.error?.code.name } == ["invalid-result"])
    }

    /// A result that runs code or reads files (`javascript:`, `data:`, `file:` in any case) is no
    /// app link, from a format or a script, as `open` and the relay refuse them too.
    @Test func aResultThatRunsCodeOrReadsFilesFailsItsFormat() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "app", "name": "App", "scheme": "app"}],
             "actions": [{"title": "R", "regex": "^https://r\\.example/(\\w+)", "formats": [
                {"appId": "app", "format": "javascript:alert($1)"},
                {"appId": "app", "format": "JavaScript:alert($1)"},
                {"appId": "app", "script2": "function process(u, c) { c('file:///etc/passwd'); }"},
                {"appId": "app", "format": "data:text/html,$1"},
                {"appId": "app", "format": "app://$1"}
             ]}]}
            """#)
        let r = await LinkEngine(manifest: manifest, options: .init(offline: true, scriptIsolation: .inProcess)).resolve("https://r.example/abc")
        #expect(r.actions.map { $0.error?.code.name } == Array(repeating: "invalid-result", count: 4) + [nil], "\(r.actions)")
        #expect(r.actions.map(\.url) == [nil, nil, nil, nil, "app://abc"])
        #expect(r.actions[1].error?.message == "the result is a javascript: URL, which runs code or reads files instead of opening an app")
        #expect(r.actions[2].error?.message.contains("a file: URL") == true)
    }

    static func manifest(regex: String) -> String {
        #"""
        {"apps": [{"identifier": "app", "name": "App", "scheme": "app"}],
         "actions": [{"title": "Long", "regex": \#(JSONWriter.quote(regex)), "formats": [{"appId": "app", "format": "app://long"}]},
                     {"title": "Fine", "regex": "^https://fine\\.example/", "formats": [{"appId": "app", "format": "app://fine"}]}],
         "redirects": {\#(JSONWriter.quote(regex)): {"param": "u"}, "^https://wrap\\.example/": {"param": "u"}}}
        """#
    }

    /// A regex over `Pattern.maximumLength` is neither compiled nor indexed: its entry is skipped
    /// with a located `regex-too-long`, the others work, and lint lists it.
    @Test func aRegexOverTheLengthLimitSkipsItsEntry() async throws {
        let long = String(repeating: "a", count: Pattern.maximumLength + 1)
        let manifest = try Manifest(json: Self.manifest(regex: long))
        #expect(manifest.actions.map(\.title) == ["Fine"])
        #expect(manifest.redirects.count == 1)
        #expect(manifest.skipped.map(\.code) == [.regexTooLong, .regexTooLong])
        #expect(manifest.skipped.map { $0.location.path ?? "" } == ["actions[0].regex", #"redirects[""# + String(repeating: "a", count: 40) + #"…"]"#])
        #expect(manifest.skipped.first?.message == "the regex is \(Pattern.maximumLength + 1) bytes; the limit is 32768; entry skipped")
        let findings = await ManifestLinter.lint(data: Array(Self.manifest(regex: long).utf8))
        #expect(findings.filter { $0.code == .regexTooLong }.map(\.severity) == [.error, .error])

        // At the limit it is an ordinary regex.
        let atLimit = try Manifest(json: Self.manifest(regex: String(repeating: "a", count: Pattern.maximumLength)))
        #expect(atLimit.skipped.isEmpty)
        #expect(atLimit.actions.count == 2)
    }

    @Test(arguments: [
        ("/text?x=a%2Fb c", "http://h.example/text?x=a%2Fb%20c"),
        ("/a b/%41%zz", "http://h.example/a%20b/%41%25zz"),
        ("https://o.example/é?q=1|2", "https://o.example/%C3%A9?q=1%7C2"),
        ("../up?k=%2F", "http://h.example/up?k=%2F"),
        ("  /trimmed  ", "http://h.example/trimmed"),
    ])
    func aRedirectLocationKeepsItsEscapesAndEncodesTheRest(_ location: String, _ expected: String) {
        #expect(RedirectLocation.resolve(location, against: "http://h.example/dir/page") == expected)
    }
}
