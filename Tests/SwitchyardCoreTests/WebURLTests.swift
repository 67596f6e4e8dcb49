import SwitchyardTestSupport
import Foundation
import SwitchyardCore
import Testing

/// `WebURL` against the URL Standard's own conformance data (../shared/fixtures/url/urltestdata.json,
/// what every current browser produces): whatever it accepts, it reads as a browser does.
@Suite struct WebURLTests {
    static let dataPath = SharedFixtures.path("url/urltestdata.json")

    struct Entry {
        var input: String
        var failure: Bool
        var href: String, hostname: String, port: String
    }

    /// Every entry whose input is an http(s) URL parsed on its own (base `about:blank` or none).
    /// Every object of the conformance data (comments left out).
    static func conformanceData() throws -> [JSONValue] {
        try #require(FileManager.default.fileExists(atPath: dataPath), "fixture missing: \(dataPath) — the shared fixtures must sit beside the repository")
        // The data has lone surrogate escapes, which JSON parsers refuse; browsers read them as U+FFFD.
        var text = try String(contentsOfFile: dataPath, encoding: .utf8)
        for pattern in [#"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"#, #"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"#] {
            let regex = try NSRegularExpression(pattern: pattern)
            text = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: #"\\uFFFD"#)
        }
        return try #require(try JSONParser.parse(text).arrayValue).filter { $0.objectMembers != nil }
    }

    static func webEntries() throws -> [Entry] {
        let all = try conformanceData()
        return all.compactMap { o -> Entry? in
            guard let input = o["input"]?.stringValue else { return nil }  // comments
            let base = o["base"]?.stringValue
            guard base == nil || base == "about:blank" else { return nil }
            // The standard strips leading and trailing C0 controls and spaces before reading the scheme.
            let trimmed = input.unicodeScalars.drop { $0.value <= 0x20 }
            guard String(String.UnicodeScalarView(trimmed)).lowercased().hasPrefix("http") else { return nil }
            return Entry(input: input, failure: o["failure"] == .bool(true), href: o["href"]?.stringValue ?? "",
                         hostname: o["hostname"]?.stringValue ?? "", port: o["port"]?.stringValue ?? "")
        }
    }

    @Test(.needsSharedFixtures) func everyAcceptedEntryHasTheBrowsersHostPortAndSerialisation() throws {
        let entries = try Self.webEntries()
        #expect(entries.count > 200, "the data has about 255 such entries; found \(entries.count)")
        var accepted = 0, refusedFailures = 0
        for e in entries {
            switch WebURL.parse(e.input) {
            case .success(let url):
                accepted += 1
                #expect(!e.failure, "accepted \(e.input.debugDescription), which browsers refuse")
                #expect(url.host == e.hostname, "\(e.input.debugDescription): host \(url.host), browsers \(e.hostname)")
                #expect(url.port.map(String.init) ?? "" == e.port, "\(e.input.debugDescription): port \(String(describing: url.port)), browsers \(e.port)")
                #expect(url.href == e.href, "\(e.input.debugDescription): href \(url.href), browsers \(e.href)")
            case .failure:
                if e.failure { refusedFailures += 1 }
            }
        }
        // Refusing everything would pass the loop above; the ordinary URLs of the data must pass.
        #expect(accepted >= 60, "only \(accepted) entries accepted")
        #expect(refusedFailures == entries.filter(\.failure).count)
    }

    @Test func ordinaryURLsAreAcceptedAndNormalisedAsBrowsersDo() throws {
        let cases: [(String, String, String, Int?)] = [
            ("https://apps.apple.com/app/id1234567890", "https://apps.apple.com/app/id1234567890", "apps.apple.com", nil),
            ("HTTPS://Play.Google.COM/store/apps/details?id=a.b&hl=de", "https://play.google.com/store/apps/details?id=a.b&hl=de", "play.google.com", nil),
            ("https://rabble.community:443", "https://rabble.community/", "rabble.community", nil),
            ("http://rabble.community:8080/a/../b?q=\"x\"#f<g>", "http://rabble.community:8080/b?q=%22x%22#f%3Cg%3E", "rabble.community", 8080),
            ("https://de.example/wiki/Straße", "https://de.example/wiki/Stra%C3%9Fe", "de.example", nil),
            ("https://127.0.0.1:10100/x", "https://127.0.0.1:10100/x", "127.0.0.1", 10100),
        ]
        for (input, href, host, port) in cases {
            let url = try WebURL.parse(input).get()
            #expect(url.href == href)
            #expect(url.host == host)
            #expect(url.port == port)
        }
    }

    @Test func ambiguousURLsAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("http://evil.com\\@rabble.community/", "backslash"),
            ("https://rabble.community\\.evil.com/", "backslash"),
            ("https://evil.com@rabble.community/", "user info"),
            ("https://rabble.community:x@evil.com/", "user info"),
            (" https://rabble.community/", "space"),
            ("https://rabble.community/\t", "control"),
            ("https://rabble.co\nmmunity/", "control"),
            ("https://rabble%2ecommunity/", "percent-encoded"),
            ("https://rabble.community./", "empty label"),
            ("https://0x7f.1/", "IPv4"),
            ("https://017.0.0.1/", "IPv4"),
            ("https://2130706433/", "IPv4"),
            ("https://[::1]/", "IPv6"),
            ("https://xn--pokxncvks.com/", "xn--"),
            ("https://ráb.example/", "non-ASCII"),
            ("https:rabble.community", "https://"),
            ("https:/rabble.community", "https://"),
            ("https:///rabble.community", "no host"),
            ("https://rabble.community:99999/", "65535"),
            ("javascript://rabble.community/%0aalert(1)", "not an http"),
        ]
        for (input, words) in cases {
            switch WebURL.parse(input) {
            case .success(let url): Issue.record("accepted \(input.debugDescription) as \(url.href)")
            case .failure(let refusal): #expect(refusal.reason.contains(words), "\(input.debugDescription): \(refusal.reason)")
            }
        }
    }

    @Test func aTrustedHostMayBeInternationalised() throws {
        #expect(throws: WebURL.Refusal.self) { try WebURL.parse("https://xn--fa-hia.example/").get() }
        let url = try WebURL.parse("https://XN--fa-hia.example/x", trustedHosts: ["xn--fa-hia.example"]).get()
        #expect(url.href == "https://xn--fa-hia.example/x")
    }
}
