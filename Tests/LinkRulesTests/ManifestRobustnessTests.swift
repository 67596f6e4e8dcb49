import Foundation
import SwitchyardCore
import SwitchyardTestSupport
import Testing
@testable import LinkRules
import PatternMatching

/// A manifest from the wild may carry any shape in any entry. Replacing one entry of the real
/// sample with random JSON must leave every other entry working exactly as before.
@Suite struct ManifestRobustnessTests {
    /// Random JSON, biased towards shapes that look almost right (objects with the keys a rule
    /// has, holding values of the wrong type).
    static func randomValue(_ rng: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        let keys = ["regex", "formats", "appId", "identifier", "name", "format", "script2", "testInputs", "testResults", "param", "tests", "app", "scheme", "storeId", "x"]
        switch Int.random(in: 0..<(depth > 2 ? 5 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            let n = Double(Int.random(in: -1000...1000, using: &rng))
            return .number(n, text: String(Int(n)))
        case 3: return .string(["", "(unclosed", "https://x.example/", "a", "[", "\\", "function process(u, c) { c(u) }"].randomElement(using: &rng)!)
        case 4: return .string(String((0..<Int.random(in: 0..<12, using: &rng)).map { _ in Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &rng))) }))
        case 5: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var members: [(key: String, value: JSONValue)] = []
            for key in keys.shuffled(using: &rng).prefix(Int.random(in: 0..<6, using: &rng)) {
                members.append((key, randomValue(&rng, depth: depth + 1)))
            }
            return .object(members)
        }
    }

    /// The document with `section[index]` (or the redirect rule at `index`) replaced by `value`.
    static func replacing(_ document: JSONValue, section: String, index: Int, with value: JSONValue) -> JSONValue {
        guard case .object(var members) = document, let s = members.firstIndex(where: { $0.key == section }) else { return document }
        switch members[s].value {
        case .array(var items):
            items[index] = value
            members[s].value = .array(items)
        case .object(var rules):
            rules[index].value = value
            members[s].value = .object(rules)
        default: break
        }
        return .object(members)
    }

    @Test(.needsSharedFixtures, arguments: [("actions", 175), ("browsers", 22), ("previews", 11), ("redirects", 11)])
    func oneBrokenEntryLeavesEveryOtherEntryAsItWas(section: String, count: Int) async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try Fixtures.require(Fixtures.openerSample))))
        let original = try Manifest(data: bytes, strict: true)
        let baseline = await ManifestTestRunner(engine: LinkEngine(manifest: original, options: .init(offline: true))).run().1
        var rng = SeededGenerator(seed: UInt64(count) &* 7919 &+ UInt64(section.utf8.count))
        for _ in 0..<4 {
            let index = Int.random(in: 0..<count, using: &rng)
            let value = Self.randomValue(&rng)
            let text = JSONWriter.compact(Self.replacing(original.document, section: section, index: index, with: value))
            // Redirect rules are keyed by their regex, so the replaced one is named by its key.
            let prefix: String
            if section == "redirects", case .object(let rules)? = original.document["redirects"] {
                prefix = "redirects[\(JSONWriter.quote(rules[index].key))]"
            } else {
                prefix = "\(section)[\(index)]"
            }
            let broken = try Manifest(json: text)
            #expect(broken.skipped.allSatisfy { $0.location.path?.hasPrefix(prefix) == true }, "\(broken.skipped)")
            let outcomes = await ManifestTestRunner(engine: LinkEngine(manifest: broken, options: .init(offline: true))).run().1
            let testPrefix = section == "redirects" ? "redirects[\(original.redirects[index].index)]" : "\(section)[\(index)]"
            // The redirect table is applied as a whole (first match wins), so a redirect test
            // whose input the replaced rule matches may legitimately change; every other test may not.
            func independent(_ o: ManifestTestRunner.Outcome) -> Bool {
                guard !o.location.hasPrefix(testPrefix) else { return false }
                return section != "redirects" || !original.redirects[index].pattern.matches(o.input)
            }
            let others = outcomes.filter(independent)
            let expected = baseline.filter(independent)
            #expect(!expected.isEmpty)
            #expect(others == expected, "replacing \(prefix) with \(JSONWriter.compact(value)) changed other entries' tests")
        }
    }
}
