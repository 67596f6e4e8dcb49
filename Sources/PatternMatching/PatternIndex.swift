import SwitchyardCore
/// Finds which of an ordered list of patterns match an input, without running all of them.
///
/// Each pattern is filed under the literal text its regex requires (see `RequiredLiterals`): up
/// to eight requirements, each a set of alternatives of which the input must contain one.
/// Patterns with no usable literal are always run. One Aho–Corasick pass over the input yields
/// the candidates — the patterns all of whose requirements it meets — and only those regexes
/// run, in their original order. Inputs with non-ASCII characters also run every
/// case-insensitive pattern, because ICU case folding can match an ASCII literal with a
/// non-ASCII character (K, the Kelvin sign).
///
/// The result is the same as `linearMatches` (a property test checks this on real and random URLs).
public struct PatternIndex: Sendable {
    /// The indexed patterns, in the order given; results are positions in this array.
    public let patterns: [Pattern]
    private let scanner: LiteralScanner
    /// The patterns each literal serves: literal id l's are `owners[ownerStart[l]..<ownerStart[l + 1]]`,
    /// each the pattern's index shifted left by 3 with the bit of the requirement it meets.
    private let ownerStart: [Int32]
    private let owners: [UInt32]
    /// pattern index → one bit per requirement (0 for a pattern that always runs).
    private let required: [UInt8]
    /// Patterns run for every input.
    public let alwaysRun: [Int]
    private let caseInsensitive: [Int]

    /// Files each of `patterns` under the literal text its regex requires; their order is kept.
    public init(patterns: [Pattern]) {
        self.patterns = patterns
        var literalIDs: [String: Int] = [:]
        var literals: [String] = []
        var owners: [[(pattern: Int32, bit: UInt8)]] = []
        var required = [UInt8](repeating: 0, count: patterns.count)
        var always: [Int] = []
        var folded: [Int] = []
        for (i, p) in patterns.enumerated() {
            if RequiredLiterals.mayBeCaseInsensitive(p.source) { folded.append(i) }
            let requirements = RequiredLiterals.all(p.source)
            guard !requirements.isEmpty else {
                always.append(i)
                continue
            }
            for (bit, requirement) in requirements.enumerated() {
                required[i] |= 1 << UInt8(bit)
                for literal in requirement.sorted() {
                    let id: Int
                    if let existing = literalIDs[literal] { id = existing } else {
                        id = literals.count
                        literalIDs[literal] = id
                        literals.append(literal)
                        owners.append([])
                    }
                    owners[id].append((Int32(i), UInt8(bit)))
                }
            }
        }
        self.scanner = LiteralScanner(literals: literals)
        var start: [Int32] = [0]
        for list in owners { start.append(start[start.count - 1] + Int32(list.count)) }
        self.ownerStart = start
        self.owners = owners.flatMap { $0.map { UInt32($0.pattern) << 3 | UInt32($0.bit) } }
        self.required = required
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
        // Each pattern's requirements met so far, one bit each (a pattern that always runs
        // needs none), and the patterns the scan touched, so that an ASCII input's answer is
        // read from those alone rather than from every pattern.
        var met = [UInt8](repeating: 0, count: patterns.count)
        var touched: [Int] = []
        let ascii = met.withUnsafeMutableBufferPointer { met in
            ownerStart.withUnsafeBufferPointer { starts in
                owners.withUnsafeBufferPointer { owners in
                    scanner.scan(input) { id in
                        var k = Int(starts[Int(id)])
                        let end = Int(starts[Int(id) + 1])
                        while k < end {
                            let owner = owners[k]
                            let pattern = Int(owner >> 3)
                            if met[pattern] == 0 { touched.append(pattern) }
                            met[pattern] |= 1 << UInt8(owner & 7)
                            k &+= 1
                        }
                    }
                }
            }
        }
        guard ascii else {
            for i in caseInsensitive { met[i] = required[i] }
            var found: [Int] = []
            for i in met.indices where met[i] == required[i] { found.append(i) }
            return found
        }
        var found = alwaysRun
        for pattern in touched where met[pattern] == required[pattern] { found.append(pattern) }
        found.sort()
        return found
    }

    /// The first pattern in order whose regex matches `input`, with its match's groups (see
    /// `Pattern.captures(in:budget:)`); nil when none does. A pattern that runs out of `budget`
    /// is passed over, as one that does not match. `linear` tries every pattern, not only the
    /// candidates (the reference the index must agree with).
    public func firstMatch(_ input: String, budget: Double = Pattern.defaultTimeLimit, linear: Bool = false) -> (index: Int, groups: [String?])? {
        firstMatch(PatternInput(input), budget: budget, linear: linear)
    }

    /// `firstMatch` for an input prepared once for several indexes.
    public func firstMatch(_ input: PatternInput, budget: Double = Pattern.defaultTimeLimit, linear: Bool = false) -> (index: Int, groups: [String?])? {
        for i in linear ? Array(patterns.indices) : candidates(input.text) {
            if case .success(let groups?) = patterns[i].captures(in: input, budget: budget) { return (i, groups) }
        }
        return nil
    }

    /// The reference: every pattern tried in order, as Opener does.
    public func linearMatches(_ input: String, budget: Double = Pattern.defaultTimeLimit) -> [Int] {
        evaluate(Array(patterns.indices), input, budget: budget).matched
    }
}
