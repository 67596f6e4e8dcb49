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

    struct ConjunctionCase: Sendable, CustomStringConvertible {
        let regex: String
        let expected: [Set<String>]
        var description: String { regex }
    }

    @Test(arguments: [
        // One character, or one letter in either case, in a class is that literal.
        ConjunctionCase(regex: #"(?:[Aa]rchiver|[Bb]ot|[Ss][Pp]ider)"#, expected: [["archiver", "bot", "spider"]]),
        ConjunctionCase(regex: #"foo[\)]bar"#, expected: [["foo)bar"]]),
        ConjunctionCase(regex: #"x[ab]yz"#, expected: [["yz"]]),
        // Every requirement, most selective first; two-character literals narrow the others.
        ConjunctionCase(regex: #"; {0,2}(HY5001|X12|I5)(?: Build|\) AppleWebKit)"#, expected: [[" build", ") applewebkit"], ["hy5001", "x12", "i5"]]),
        ConjunctionCase(regex: #"Mozilla.{1,200}Mobile.{1,100}(Phantom/ios|android)"#, expected: [["mozilla"], ["phantom/ios", "android"], ["mobile"]]),
        // (a ∧ b) ∨ c is (a ∨ c) ∧ (b ∨ c).
        ConjunctionCase(regex: #"^.{0,9}?(?:(?:iPhone|Android).{0,30}(?:Yeti|YRSpider)|AdsBot-Mobile)"#,
                        expected: [["iphone", "android", "adsbot-mobile"], ["yeti", "yrspider", "adsbot-mobile"]]),
        // A branch with nothing required leaves the group nothing.
        ConjunctionCase(regex: #"(?:Android.{0,9}Build|\d+)"#, expected: []),
        ConjunctionCase(regex: #"(?x) spaced"#, expected: []),
    ])
    func everyRequirement(_ c: ConjunctionCase) {
        #expect(RequiredLiterals.all(c.regex) == c.expected)
    }

    @Test func aPatternIsACandidateOnlyWhenEveryRequirementIsMet() throws {
        let p = try Pattern(#"; (HY5001|X12)(?: Build|\) AppleWebKit)"#)
        let index = PatternIndex(patterns: [p])
        #expect(index.candidates("Linux; Android 9; X12 Build/1") == [0])
        #expect(index.candidates("Linux; Android 9; X12) Gecko") == [])
        #expect(index.candidates("Linux; Android 9; Pixel Build/1") == [])
        #expect(index.matches("Linux; Android 9; X12 Build/1") == [0])
    }

    @Test func preparedInputGivesTheGroupsAStringDoes() throws {
        let patterns = try [#"(An)droid ([0-9]+)(?:\.([0-9]+))?"#, #"(é+)(\S*)"#, #"(x)?y"#, #"(?i)(k)elvin"#, #"^$"#, #"(\p{So})(.)"#]
            .map { try Pattern($0, watched: false) }
        let inputs = ["Mozilla Android 14 Build", "Android 9.1", "café éé👩‍👩‍👧!", "y", "\u{212A}ELVIN and kelvin", "", "a 👍🏽b 😀c", "no match at all"]
        for pattern in patterns {
            for input in inputs {
                let plain = try pattern.captures(in: input).get()
                let prepared = try pattern.captures(in: PatternInput(input)).get()
                #expect(plain == prepared, "\(pattern.source) on \(input)")
            }
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

    /// The example in the module's DocC overview.
    @Test func theOverviewExampleHolds() throws {
        let patterns = try ["^https://example\\.com/(\\w+)$", "^https://www\\.youtube\\.com/watch"].map { try Pattern($0) }
        let index = PatternIndex(patterns: patterns)
        #expect(index.matches("https://example.com/abc") == [0])
        #expect(index.matches("https://www.youtube.com/watch?v=1") == [1])
        #expect(patterns[0].replace(in: "https://example.com/abc", with: "app://$1") == "app://abc")
    }
}
