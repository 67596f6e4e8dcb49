import SwitchyardCore
import Foundation
import SwitchyardTestSupport
import Testing
@testable import LinkRules

@Suite struct PatternIndexTests {
    struct LiteralCase: Sendable, CustomStringConvertible {
        let regex: String
        let expected: Set<String>?
        var description: String { regex }
    }

    @Test(arguments: [
        LiteralCase(regex: #"https?://(?:mobile\.|www\.)?twitter\.com/(\d+)"#, expected: ["twitter.com/"]),
        LiteralCase(regex: #"https?://(?:www\.)?(youtube\.com|youtu\.be)/.*"#, expected: ["youtube.com", "youtu.be"]),
        LiteralCase(regex: #"(?i)https?://EXAMPLE\.org/x"#, expected: ["://example.org/x"]),
        LiteralCase(regex: #"https?://[a-z]+\.com/.*"#, expected: nil),  // only common fragments
        LiteralCase(regex: #"https?://(?:foo)?bar\.net"#, expected: ["bar.net"]),
        LiteralCase(regex: #"https?://ab*cdef\.io"#, expected: ["cdef.io"]),
        LiteralCase(regex: #"https?://x{0,3}yzzy\.io"#, expected: ["yzzy.io"]),
        LiteralCase(regex: #"(?x) https?://spaced\.example"#, expected: nil),  // comments mode: give up
        LiteralCase(regex: #"https?://(?!.*\.tumblr\.com)[a-z.]+/post"#, expected: ["/post"]),
        LiteralCase(regex: #"https?://\Qliteral.example\E/"#, expected: nil),
        LiteralCase(regex: #"https?://site\.example|ftp://other\.example"#, expected: ["://site.example", "ftp://other.example"]),
        LiteralCase(regex: #"https?://site\.example|.*"#, expected: nil),
        LiteralCase(regex: #".+"#, expected: nil),
    ])
    func requiredLiterals(_ c: LiteralCase) {
        #expect(RequiredLiterals.of(c.regex) == c.expected)
    }

    /// URLs built from the fixture's test inputs with random edits: case changes, host swaps,
    /// inserted characters (including non-ASCII ones that ICU case folding can equate with ASCII).
    static func randomURLs(from seeds: [String], count: Int, seed: UInt64) -> [String] {
        var rng = SeededGenerator(seed: seed)
        let pieces = ["www.", "m.", "/", "?", "&x=1", "#frag", "%2F", "K", "\u{212A}", "\u{17F}", "é", ".com", "twitter", "youtu.be", "\n{\"a\":\"b\"}", ""]
        var out: [String] = []
        for _ in 0..<count {
            var s = Array(seeds.randomElement(using: &rng)!)
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0 where !s.isEmpty:  // flip case of a character
                    let i = Int.random(in: 0..<s.count, using: &rng)
                    let c = String(s[i])
                    s[i] = Character(c == c.lowercased() ? c.uppercased() : c.lowercased())
                case 1:  // insert a piece
                    let i = Int.random(in: 0...s.count, using: &rng)
                    s.insert(contentsOf: pieces.randomElement(using: &rng)!, at: i)
                case 2 where s.count > 2:  // delete a character
                    s.remove(at: Int.random(in: 0..<s.count, using: &rng))
                default:  // splice with another seed
                    let other = Array(seeds.randomElement(using: &rng)!)
                    s = Array(s.prefix(Int.random(in: 0...s.count, using: &rng))) + other.suffix(Int.random(in: 0...other.count, using: &rng))
                }
            }
            out.append(String(s))
        }
        return out
    }

    @Test(.needsSharedFixtures) func indexAgreesWithLinearScanOnFixtureAndRandomURLs() throws {
        for path in [try Fixtures.require(Fixtures.openerSample), Fixtures.defaultRules] {
            let manifest = try Manifest(contentsOf: path)
            let index = PatternIndex(patterns: manifest.actions.map(\.pattern))
            let real = manifest.actions.flatMap(\.testInputs) + manifest.browsers.flatMap(\.testInputs)
                + manifest.redirects.flatMap { $0.tests.flatMap { [$0.input, $0.expected] } }
            let inputs = real + Self.randomURLs(from: real, count: 5_000, seed: 0x5EED_2026)
            var matchedSomething = 0
            for input in inputs {
                let fast = index.matches(input)
                let slow = index.linearMatches(input)
                #expect(fast == slow, "index and linear scan disagree on \(input.debugDescription)")
                if !slow.isEmpty { matchedSomething += 1 }
            }
            // The comparison is meaningful only if many inputs match something.
            #expect(matchedSomething > real.count / 2)
            // And the index must actually skip work: most patterns are filed under a literal.
            #expect(index.alwaysRun.count * 4 < manifest.actions.count, "\(index.alwaysRun.count) of \(manifest.actions.count) always run")
        }
    }

    @Test func caseFoldingThroughNonASCIIIsHonoured() throws {
        // ICU matches the Kelvin sign (U+212A) case-insensitively with "k": the index must not
        // skip the pattern just because the ASCII literal "kelvin" is absent.
        let p = try Pattern("(?i)https://kelvin\\.example/")
        let index = PatternIndex(patterns: [p])
        let input = "https://\u{212A}elvin.example/"
        #expect(index.linearMatches(input) == [0])
        #expect(index.matches(input) == [0])
    }
}
