import Foundation
@testable import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// `BrowserURL` gives an http(s) link the structure a browser gives it, checked against the URL
/// Standard's conformance data (../shared/fixtures/url/urltestdata.json) and cases of our own.
@Suite struct BrowserURLTests {
    struct Case: Sendable, CustomStringConvertible {
        let input: String
        var base: String? = nil
        let expected: String?
        var description: String { base.map { "\(input) against \($0)" } ?? input }
    }

    /// Expected values are what node's WHATWG `URL` gives (checked by hand).
    @Test(arguments: [
        Case(input: "https://rabble.community\\g\\G", expected: "https://rabble.community/g/G"),
        Case(input: "HTTPS://TWITTER.COM/jack/status/20", expected: "https://twitter.com/jack/status/20"),
        Case(input: "https://twitter.com:443/jack/status/20", expected: "https://twitter.com/jack/status/20"),
        Case(input: "http://twitter.com:443/x", expected: "http://twitter.com:443/x"),
        Case(input: "https://twitter.com/a/../jack/status/20", expected: "https://twitter.com/jack/status/20"),
        Case(input: "https:\\\\twitter.com\\jack", expected: "https://twitter.com/jack"),
        Case(input: "https:twitter.com/x", expected: "https://twitter.com/x"),
        Case(input: "https://shop.example\\help\\x?q=a\\b#c\\d", expected: "https://shop.example/help/x?q=a\\b#c\\d"),
        Case(input: "https://e.com", expected: "https://e.com/"),
        Case(input: "https://e.com/a/%2e%2E/b/.", expected: "https://e.com/b/"),
        Case(input: "plur://group/G\\x", expected: "plur://group/G\\x"),
        Case(input: "mailto:A@B.com", expected: "mailto:A@B.com"),
        Case(input: "/\\twitter.com/jack/status/20", base: "http://127.0.0.1:47600/goto", expected: "http://twitter.com/jack/status/20"),
        Case(input: "https://%5C%5Ctwitter.com/x", base: "http://s.example/r", expected: nil),
        Case(input: "https://EX%41MPLE.com/x", expected: "https://example.com/x"),
        Case(input: "https:x/y", base: "https://s.example/a/b", expected: "https://s.example/a/x/y"),
        Case(input: "../c?d", base: "https://s.example/a/b/", expected: "https://s.example/a/c?d"),
        Case(input: "?q", base: "https://s.example/a?x#f", expected: "https://s.example/a?q"),
        Case(input: "#f", base: "https://s.example/a?x#g", expected: "https://s.example/a?x#f"),
        Case(input: "javascript:alert(1)", base: "https://s.example/", expected: "javascript:alert(1)"),
    ])
    func readsLikeABrowser(_ c: Case) {
        let got = c.base.map { BrowserURL.resolve(c.input, against: $0) } ?? BrowserURL.normalized(c.input)
        #expect(got == c.expected)
    }

    /// The host a browser goes to, for every entry of the conformance data with a special scheme
    /// (non-ASCII, percent-encoded, IPv4 and IPv6 forms included): the same host, or nil where
    /// browsers fail to parse the URL.
    @Test(.needsSharedFixtures) func readsTheHostAsBrowsersDo() throws {
        let special = ["http:", "https:", "ws:", "wss:", "ftp:"]
        var compared = 0, refused = 0
        var disagreements: [String] = []
        for entry in try WebURLTests.conformanceData() {
            guard let input = entry["input"]?.stringValue else { continue }
            let base = entry["base"]?.stringValue
            if let base, !special.contains(where: { base.hasPrefix($0) }) { continue }
            let absolute = base.map { BrowserURL.resolve(input, against: $0) } ?? input
            if entry["failure"] != nil {
                // Absolute inputs only (a special scheme): then the base plays no part.
                guard special.contains(where: { input.lowercased().hasPrefix($0) }) else { continue }
                refused += 1
                if let host = BrowserURL.host(input) { disagreements.append("\(input.debugDescription): \(host), browsers fail") }
                continue
            }
            guard let href = entry["href"]?.stringValue, special.contains(where: { href.hasPrefix($0) }),
                  let hostname = entry["hostname"]?.stringValue, !hostname.isEmpty else { continue }
            compared += 1
            let got = absolute.flatMap(BrowserURL.host)
            if got != hostname { disagreements.append("\(input.debugDescription) base \(base ?? "none"): \(got ?? "nil"), browsers \(hostname)") }
        }
        #expect(compared >= 80 && refused >= 10, "\(compared) hosts and \(refused) failures compared")
        #expect(disagreements.isEmpty, "\(disagreements.count): \(disagreements.joined(separator: "\n"))")
    }

    /// Hosts that read one way to a naive check and another to a browser: the host lists of an
    /// open policy compare what the browser goes to.
    @Test(arguments: [
        ("https://ev%C2%ADil.example/", "evil.example"),
        ("https://evil\u{AD}.example/", "evil.example"),
        ("https://evil\u{3002}example/", "evil.example"),
        ("https://evil\u{FF0E}example/", "evil.example"),
        ("https://\u{FF45}vil.example/", "evil.example"),
        ("https://EVIL.example/", "evil.example"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://0177.0.0.1./", "127.0.0.1"),
        ("https://bücher.example/", "xn--bcher-kva.example"),
        ("https://@evil.example/", "evil.example"),
    ])
    func hostsAreReadAsTheBrowserGoes(_ input: String, _ host: String) {
        #expect(BrowserURL.host(input) == host)
    }

    @Test(arguments: ["http://1.2.3.4.5/", "http://256.0.0.1/", "http://0x100000000/", "http://08.0.0.1/", "https://a b.example/",
                      "https://a%20b.example/", "https://a<b.example/", "https://x\u{200E}.example/", "https://x\u{3164}.example/", "https://%FF.example/"])
    func hostsBrowsersRefuseAreRefused(_ input: String) {
        #expect(BrowserURL.host(input) == nil)
    }

    /// Every entry of the conformance data in the part this reads — ASCII input without characters a
    /// browser percent-encodes, no IPv4 number forms, no user info to re-encode — gives the href
    /// browsers give. The rest is not claimed (and is counted).
    @Test(.needsSharedFixtures) func agreesWithTheConformanceData() throws {
        let special = ["http:", "https:", "ws:", "wss:", "ftp:"]
        var compared = 0
        var disagreements: [String] = []
        for entry in try WebURLTests.conformanceData() {
            guard let input = entry["input"]?.stringValue, let href = entry["href"]?.stringValue, entry["failure"] == nil,
                  special.contains(where: { href.hasPrefix($0) }) else { continue }
            let base = entry["base"]?.stringValue
            if let base, !special.contains(where: { base.hasPrefix($0) }) { continue }
            let core = input.trimmingCharacters(in: CharacterSet(charactersIn: " \t\n\r"))
            guard core.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F || $0 == "\t" || $0 == "\n" || $0 == "\r" }),
                  !core.contains(where: { "% \"<>`{}|^[]".contains($0) }),
                  !href.contains("%40"), !href.contains("%3A") else { continue }
            let host = entry["hostname"]?.stringValue ?? ""
            if !host.isEmpty, host.allSatisfy({ $0.isNumber || $0 == "." }) { continue }  // IPv4 forms are not read here
            compared += 1
            let got = base.map { BrowserURL.resolve(input, against: $0) } ?? BrowserURL.normalized(input)
            if got != href { disagreements.append("\(input.debugDescription) base \(base ?? "none"): \(got ?? "nil"), browsers \(href)") }
        }
        #expect(compared >= 60, "\(compared) entries compared")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared): \(disagreements.prefix(12).joined(separator: "\n"))")
    }

    /// The shortcut for links that are already what a browser makes of them: whenever it says
    /// "plainly normal", the full reading gives back the text unchanged. Random links are built
    /// from the pieces that change a link (case, ports, user info, IPv4 forms, dot segments,
    /// backslashes, spaces, trailing dots), and the shortcut must also take the common shape.
    @Test func theShortcutForPlainLinksAgreesWithTheFullReading() {
        var rng = SeededGenerator(seed: 29)
        // Three parts in four are of the plain kind, so that plain links come up often and the
        // odd pieces land in every position of them.
        func pick(_ plain: [String], _ odd: [String]) -> String {
            Int.random(in: 0..<4, using: &rng) > 0 ? plain.randomElement(using: &rng)! : odd.randomElement(using: &rng)!
        }
        let schemes = (["https://", "http://"], ["HTTPS://", "https:/", "https:///", "https:\\\\", "ftp://", "https:", "Http://"])
        let hosts = (["example.com", "e.com", "a-b_c.org", "xn--nxasmq6b.com", "www.x9.io"],
                     ["Example.com", "127.0.0.1", "0x7f.1", "host.123", "e.com.", "a..b", "e.com:443", "e.com:8080", "u@e.com", "@e.com", "[::1]", "",
                      "exa%6dple.com", "é.com", "e .com", "e.0x1"])
        let segments = (["a", "B", ".a", "a.", "...", "x%20y", "~!$&'()*+,;=:@", "%2f"],
                        [".", "..", "%2e", "%2E%2e", ".%2E", "a\\b", "", " ", "\t", "é"])
        let tails = (["", "?q=1", "?a=..&b=./", "#frag", "?x#y", "#%2e"], ["? x", "?\\", "?é", "#\n"])
        var plain = 0
        for _ in 0..<5_000 {
            var url = pick(schemes.0, schemes.1) + pick(hosts.0, hosts.1)
            for _ in 0..<Int.random(in: 0...4, using: &rng) { url += "/" + pick(segments.0, segments.1) }
            url += pick(tails.0, tails.1)
            if Int.random(in: 0..<16, using: &rng) == 0 { url = " " + url }
            if Int.random(in: 0..<16, using: &rng) == 0 { url += "\n" }
            guard BrowserURL.isPlainlyNormal(url) else { continue }
            plain += 1
            #expect(BrowserURL.fullyNormalized(url) == url, "\(url.debugDescription) is not what a browser makes of it")
        }
        #expect(plain > 500, "the shortcut took \(plain) of 5,000 links")
        #expect(BrowserURL.isPlainlyNormal("https://twitter.com/jack/status/20?s=21#x"))
        #expect(!BrowserURL.isPlainlyNormal("https://twitter.com"))
    }
}
