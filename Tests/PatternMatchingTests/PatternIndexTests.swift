import Foundation
import Testing
@testable import PatternMatching

/// Which literals a regex requires, and the index built on them.
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

    @Test func caseFoldingThroughNonASCIIIsHonoured() throws {
        // ICU matches the Kelvin sign (U+212A) case-insensitively with "k": the index must not
        // skip the pattern just because the ASCII literal "kelvin" is absent.
        let p = try Pattern("(?i)https://kelvin\\.example/")
        let index = PatternIndex(patterns: [p])
        let input = "https://\u{212A}elvin.example/"
        #expect(index.linearMatches(input) == [0])
        #expect(index.matches(input) == [0])
    }

    /// The example in the module's DocC overview.
    @Test func theOverviewExampleHolds() throws {
        let patterns = try ["^https://example\\.com/(\\w+)$", "^https://www\\.youtube\\.com/watch"].map { try Pattern($0) }
        let index = PatternIndex(patterns: patterns)
        #expect(index.matches("https://example.com/abc") == [0])
        #expect(index.matches("https://www.youtube.com/watch?v=1") == [1])
        #expect(patterns[0].replace(in: "https://example.com/abc", with: "app://$1") == "app://abc")
    }
}
