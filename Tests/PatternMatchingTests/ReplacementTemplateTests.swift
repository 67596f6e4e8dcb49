import SwitchyardCore
import Foundation
import SwitchyardTestSupport
import Testing
@testable import PatternMatching

/// Templates are applied by our own reader of NSRegularExpression's template rules (Foundation's
/// `replacementString` per match was 15% of a batch resolve). It must give exactly what
/// Foundation's `stringByReplacingMatches(in:options:range:withTemplate:)` gives — the semantics
/// the manifest's own tests are written against.
@Suite struct ReplacementTemplateTests {
    static func foundation(_ regex: String, _ input: String, _ template: String) throws -> String {
        let expression = try NSRegularExpression(pattern: regex)
        return expression.stringByReplacingMatches(in: input, range: NSRange(location: 0, length: (input as NSString).length), withTemplate: template)
    }

    static func ours(_ regex: String, _ input: String, _ template: String) throws -> String {
        try Pattern(regex).replace(in: input, with: template)
    }

    @Test(arguments: [
        ("https?://(www\\.)?example\\.com/(\\w+)", "https://example.com/abc?x", "app://$2/$1/$0"),
        ("(a)(b)?", "ab a", "[$1|$2|$3|$9]"),
        ("(a)", "a", "$ $$ $x \\$1 \\\\$1 \\"),
        ("(a)", "a", "$"),
        ("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "abcdefghijk", "$11-$10-$1$0-$12-$111"),
        ("(a)(b)(c)(d)(e)(f)(g)(h)(i)", "abcdefghi", "$10-$9$1"),
        ("x*", "abc", "-"),
        ("(é)(👍)?", "aé👍b é", "<$2$1>"),
        ("^(.*)$", "https://t.co/x", "googlechrome://$1"),
        ("(b)", "abc", ""),
    ])
    func matchesFoundationOnChosenCases(regex: String, input: String, template: String) throws {
        #expect(try Self.ours(regex, input, template) == Self.foundation(regex, input, template))
    }

    /// Random templates over the characters that mean something (`$`, backslash, digits) against
    /// regexes with 1, 3 and 12 groups, some of which do not take part in a match.
    @Test func matchesFoundationOnRandomTemplates() throws {
        var rng = SeededGenerator(seed: 7)
        let regexes = ["(o)", "(o)(x)?(b)", "(f)(o)(o)(b)(a)(r)(x)?(y)?(1)(2)(3)(4)", "o+", "(?:(o)|(b))"]
        let inputs = ["foobar1234 foo", "", "oo", "bob"]
        let alphabet: [Character] = ["$", "$", "\\", "0", "1", "2", "9", "a", "/", ":"]
        var compared = 0
        for _ in 0..<4_000 {
            let template = String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            let regex = regexes.randomElement(using: &rng)!
            let input = inputs.randomElement(using: &rng)!
            let expected = try Self.foundation(regex, input, template)
            let got = try Self.ours(regex, input, template)
            #expect(got == expected, "regex \(regex) input \(input) template \(template)")
            if got != expected { return }
            compared += 1
        }
        #expect(compared == 4_000)
    }
}
