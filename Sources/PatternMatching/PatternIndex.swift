import SwitchyardCore
/// Finds which of an ordered list of patterns match an input, without running all of them.
///
/// Each pattern is filed under the literal text its regex requires (see `RequiredLiterals`);
/// patterns with no usable literal are always run. One Aho–Corasick pass over the input yields
/// the candidates, and only those regexes run, in their original order. Inputs with non-ASCII
/// characters also run every case-insensitive pattern, because ICU case folding can match an
/// ASCII literal with a non-ASCII character (K, the Kelvin sign).
///
/// The result is the same as `linearMatches` (a property test checks this on real and random URLs).
public struct PatternIndex: Sendable {
    /// The indexed patterns, in the order given; results are positions in this array.
    public let patterns: [Pattern]
    private let scanner: LiteralScanner
    /// literal id → pattern indexes.
    private let owners: [[Int]]
    /// Patterns run for every input.
    public let alwaysRun: [Int]
    private let caseInsensitive: [Int]

    /// Files each of `patterns` under the literal text its regex requires; their order is kept.
    public init(patterns: [Pattern]) {
        self.patterns = patterns
        var literalIDs: [String: Int] = [:]
        var literals: [String] = []
        var owners: [[Int]] = []
        var always: [Int] = []
        var folded: [Int] = []
        for (i, p) in patterns.enumerated() {
            if RequiredLiterals.mayBeCaseInsensitive(p.source) { folded.append(i) }
            guard let required = RequiredLiterals.of(p.source) else {
                always.append(i)
                continue
            }
            for literal in required.sorted() {
                let id: Int
                if let existing = literalIDs[literal] { id = existing } else {
                    id = literals.count
                    literalIDs[literal] = id
                    literals.append(literal)
                    owners.append([])
                }
                owners[id].append(i)
            }
        }
        self.scanner = LiteralScanner(literals: literals)
        self.owners = owners
        self.alwaysRun = always
        self.caseInsensitive = folded
    }

    /// Indexes of the patterns matching `input`, ascending.
    public func matches(_ input: String, budget: Double = Pattern.defaultTimeLimit) -> [Int] {
        evaluate(candidates(input), input, budget: budget).matched
    }

    /// The patterns matching `input`, and those whose evaluation ran out of `budget` seconds
    /// (each pattern gets its own budget), both ascending.
    public func evaluate(_ input: String, budget: Double, linear: Bool = false) -> (matched: [Int], timedOut: [Int]) {
        evaluate(linear ? Array(patterns.indices) : candidates(input), input, budget: budget)
    }

    private func evaluate(_ positions: [Int], _ input: String, budget: Double) -> (matched: [Int], timedOut: [Int]) {
        var matched: [Int] = [], timedOut: [Int] = []
        for i in positions {
            switch patterns[i].match(input, budget: budget) {
            case .success(true): matched.append(i)
            case .success(false): break
            case .failure: timedOut.append(i)
            }
        }
        return (matched, timedOut)
    }

    /// The patterns that the literal scan cannot rule out for `input`, ascending.
    public func candidates(_ input: String) -> [Int] {
        var candidate = [Bool](repeating: false, count: patterns.count)
        for i in alwaysRun { candidate[i] = true }
        let ascii = scanner.scan(input) { id in
            for i in owners[Int(id)] { candidate[i] = true }
        }
        if !ascii { for i in caseInsensitive { candidate[i] = true } }
        return candidate.indices.filter { candidate[$0] }
    }

    /// The first pattern in order whose regex matches `input`, with its match's groups (see
    /// ``Pattern/captures(in:budget:)``); nil when none does. A pattern that runs out of `budget`
    /// is passed over, as one that does not match. `linear` tries every pattern, not only the
    /// candidates (the reference the index must agree with).
    public func firstMatch(_ input: String, budget: Double = Pattern.defaultTimeLimit, linear: Bool = false) -> (index: Int, groups: [String?])? {
        for i in linear ? Array(patterns.indices) : candidates(input) {
            if case .success(let groups?) = patterns[i].captures(in: input, budget: budget) { return (i, groups) }
        }
        return nil
    }

    /// The reference: every pattern tried in order, as Opener does.
    public func linearMatches(_ input: String, budget: Double = Pattern.defaultTimeLimit) -> [Int] {
        evaluate(Array(patterns.indices), input, budget: budget).matched
    }
}
