import SwitchyardCore
import Foundation
import SwitchyardTestSupport
import Testing
import LinkRules
import PatternMatching

/// The literal index over the real manifests' regexes gives what a linear scan gives.
@Suite struct ManifestIndexTests {

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
}
