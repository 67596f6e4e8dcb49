import SwitchyardCore
import AssociatedDomains
import Foundation
import SwitchyardTestSupport
import Testing

/// Seeded property test: compiled matching agrees with a plain reference matcher, with and
/// without case, on random patterns that mix literal letters of both cases, wildcards, built-in
/// classes and a custom variable whose values hold capitals and a wildcard.
@Suite struct CaseFoldingPropertyTests {
    static let variable = ["Xy", "q*"]
    static let classes: [String: @Sendable (Character) -> Bool] = [
        "upper": { $0.isASCII && $0.isUppercase }, "lower": { $0.isASCII && $0.isLowercase },
        "alpha": { $0.isASCII && $0.isLetter }, "xdigit": { $0.isHexDigit }, "digit": { $0.isASCII && $0.isNumber },
    ]

    /// The reference: substitute the variable's values as text, then match character by
    /// character; without case, letters compare lower-cased and a class accepts a character
    /// when it accepts either case of it.
    static func referenceMatches(_ pattern: String, _ text: String, caseSensitive: Bool) -> Bool {
        var expanded = [pattern]
        while let i = expanded.firstIndex(where: { $0.contains("$(v)") }) {
            let p = expanded.remove(at: i)
            let r = p.range(of: "$(v)")!
            expanded += variable.map { p.replacingCharacters(in: r, with: $0) }
        }
        return expanded.contains { match(Array(tokens($0)), Array(text), caseSensitive) }
    }

    enum Token { case literal(Character), any, one, cls(@Sendable (Character) -> Bool) }

    static func tokens(_ p: String) -> [Token] {
        var out: [Token] = []
        var rest = Substring(p)
        while let c = rest.first {
            if c == "$", rest.hasPrefix("$("), let close = rest.firstIndex(of: ")"), let cls = classes[String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])] {
                out.append(.cls(cls))
                rest = rest[rest.index(after: close)...]
                continue
            }
            out.append(c == "*" ? .any : c == "?" ? .one : .literal(c))
            rest = rest.dropFirst()
        }
        return out
    }

    static func match(_ p: [Token], _ t: [Character], _ cs: Bool) -> Bool {
        guard let first = p.first else { return t.isEmpty }
        let rest = Array(p.dropFirst())
        switch first {
        case .any: return (0...t.count).contains { match(rest, Array(t[$0...]), cs) }
        case .one: return !t.isEmpty && match(rest, Array(t.dropFirst()), cs)
        case .literal(let c):
            guard let x = t.first else { return false }
            let same = cs ? x == c : x.lowercased() == c.lowercased()
            return same && match(rest, Array(t.dropFirst()), cs)
        case .cls(let accepts):
            guard let x = t.first else { return false }
            let ok = cs ? accepts(x) : (accepts(x) || accepts(Character(x.lowercased())) || accepts(Character(x.uppercased())))
            return ok && match(rest, Array(t.dropFirst()), cs)
        }
    }

    /// Disagreements between compiled matching and the reference on `patterns` random patterns
    /// made of `pieces` (`pieceCount` of them) against `texts` random texts of `letters` each.
    static func disagreements(seed: UInt64, caseSensitive: Bool, patterns: Int, pieces: [String], pieceCount: ClosedRange<Int>,
                              texts: Int, letters: [Character], textLength: ClosedRange<Int>) throws -> [String] {
        var rng = SeededGenerator(seed: seed)
        var found: [String] = []
        for _ in 0..<patterns {
            var pattern = (0..<Int.random(in: pieceCount, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            if pattern.components(separatedBy: "$(v)").count > 3 { pattern = pattern.replacingOccurrences(of: "$(v)", with: "q") }
            let json = ##"{"applinks": {"substitutionVariables": {"v": ["Xy", "q*"]}, "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"#": "\##(pattern)", "caseSensitive": \##(caseSensitive)}]}]}}"##
            let aasa = try AppSiteAssociation(json: json)
            for _ in 0..<texts {
                let text = String((0..<Int.random(in: textLength, using: &rng)).map { _ in letters.randomElement(using: &rng)! })
                let got = aasa.decide("https://e.com/#" + text, for: "ABCDE12345.com.example.app") == .match
                let want = Self.referenceMatches(pattern, text, caseSensitive: caseSensitive)
                if got != want { found.append("\(pattern) on \(text): compiled \(got), reference \(want)") }
            }
        }
        return found
    }

    @Test(arguments: [false, true])
    func compiledMatchingAgreesWithTheReference(caseSensitive: Bool) throws {
        let found = try Self.disagreements(
            seed: caseSensitive ? 7 : 11, caseSensitive: caseSensitive, patterns: 400,
            pieces: ["a", "A", "x", "Y", "q", "1", "f", "*", "?", "$(upper)", "$(lower)", "$(alpha)", "$(xdigit)", "$(digit)", "$(v)"], pieceCount: 1...5,
            texts: 12, letters: Array("aAxXyYqQfF1z"), textLength: 0...5)
        #expect(found.isEmpty, "\(found.prefix(10))")
    }

    /// Patterns with many stars against longer texts: the linear matchers (one for patterns
    /// without choices, the automaton for patterns with a variable) agree with the reference.
    @Test func manyStarsAgreeWithTheReference() throws {
        let found = try Self.disagreements(
            seed: 23, caseSensitive: true, patterns: 300, pieces: ["a", "b", "*", "*", "?", "$(v)", "$(lower)"], pieceCount: 2...8,
            texts: 10, letters: Array("abqXy"), textLength: 0...12)
        #expect(found.isEmpty, "\(found.prefix(10))")
    }
}
