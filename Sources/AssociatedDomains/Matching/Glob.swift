import SwitchyardCore
/// A compiled AASA pattern: `*` (zero or more characters, `/` included), `?` (exactly one
/// character), `$(name)` substitution variables, everything else literal — no escapes.
///
/// Matching runs over UTF-8 bytes; `?` and character classes consume one whole character.
/// Compiled once; matching allocates nothing for patterns without variables.
public struct Glob: Sendable, Equatable {
    enum Token: Sendable, Equatable {
        case literal([UInt8])
        case one
        case star
        /// One character from a set (built-in variables such as `$(digit)`).
        case characterClass(ClosedRangeSet)
        /// One of several sub-patterns (custom variables, `$(lang)`, `$(region)`).
        case choice([[Token]])
    }

    let tokens: [Token]
    /// The literal text every match starts with (checked before anything else).
    let prefix: [UInt8]
    /// For patterns with a choice (a variable with several values): the pattern as a small
    /// automaton, run over the text once. Nil for every other pattern.
    let program: Program?
    /// The text the pattern was compiled from.
    public let source: String
    /// True when the pattern has no wildcard or variable at all.
    public var isLiteral: Bool { tokens.allSatisfy { if case .literal = $0 { return true } else { return false } } }

    /// Compiles `pattern`; `variables` maps custom names to their values; unknown `$(name)`
    /// stays literal text (the validator reports it).
    ///
    /// With `lowercased`, the pattern is compiled for case-insensitive matching against text
    /// the caller has lower-cased (`String.lowercased()`): its literal text, the values its
    /// variables stand for and its built-in character classes are all folded to lower case, so
    /// `$(upper)` then accepts any ASCII letter and `$(region)` accepts `de` as well as `DE`.
    /// Variable names are never folded: `$(shopName)` still finds the variable `shopName`.
    ///
    /// A variable's value is pattern text put where `$(name)` stands, so a `*` or `?` in it is
    /// a wildcard as anywhere else in a pattern: Apple describes substitution variables as text
    /// substituted into the pattern and gives no way of quoting, so nothing makes them literal.
    /// (Not confirmed against `swcutil`: no value in Apple's examples holds a wildcard.)
    ///
    /// A pattern whose variables expand to more than ``maximumSize`` characters and wildcards in
    /// all (values that name variables again, many occurrences of a long list) is not compiled:
    /// ``isTooLarge`` is true and it matches nothing. Matching time grows with that size, and a
    /// stranger's file must not decide how long a check takes.
    ///
    /// With `substitutions: false` (Android's patterns, which have none) `$(name)` is literal text.
    public init(_ pattern: String, variables: [String: [String]] = [:], lowercased: Bool = false, substitutions: Bool = true) {
        source = pattern
        var budget = Glob.maximumSize
        let compiled = Glob.compile(pattern, variables: variables, lowercased: lowercased, substitutions: substitutions, depth: 0, budget: &budget)
        isTooLarge = budget < 0
        size = isTooLarge ? 0 : Glob.maximumSize - budget
        tokens = isTooLarge ? [] : compiled
        if case .literal(let lit)? = tokens.first { prefix = lit } else { prefix = [] }
        program = tokens.contains { if case .choice = $0 { return true } else { return false } } ? Program(tokens) : nil
    }

    /// The most characters and wildcards a pattern may expand to, its variables' values
    /// included: 10,000 (a list of a hundred languages used a few times is far below it).
    public static let maximumSize = 10_000

    /// The characters and wildcards the pattern expands to, its variables' values included (0
    /// when ``isTooLarge``): matching it against a text takes at most about this many steps per
    /// character of the text.
    public let size: Int

    /// The most matching work one decision may ask for: the sizes of every pattern it may try
    /// times the characters of the text they are tried on. 50 million steps is well under a
    /// second here; the largest real files (a few hundred patterns) against a 2,000-character URL
    /// need a hundredth of it.
    public static let maximumWork = 50_000_000

    /// The matching work of trying patterns of `size` characters in all on `textBytes`
    /// characters (never overflowing).
    public static func work(size: Int, textBytes: Int) -> Int {
        let (product, overflow) = size.multipliedReportingOverflow(by: max(1, textBytes))
        return overflow ? Int.max : product
    }

    /// Why trying patterns of `size` characters in all on `url` is more than ``maximumWork``,
    /// or nil when it is not.
    public static func workProblem(size: Int, url: String) -> String? {
        let length = url.utf8.count
        guard work(size: size, textBytes: length) > maximumWork else { return nil }
        let most = maximumWork / max(1, size)
        return "deciding this URL (\(length) characters) against the file's patterns (\(size) characters and wildcards in all, variables expanded) is more work than one decision may take (\(size) × \(length) is over \(maximumWork)); with this file a URL may have at most \(most) characters"
    }

    /// True when the pattern expands to more than ``maximumSize``: it was not compiled and
    /// matches nothing (the validator reports it as `pattern-too-large`).
    public let isTooLarge: Bool

    static func compile(_ pattern: String, variables: [String: [String]], lowercased: Bool, substitutions: Bool = true, depth: Int, budget: inout Int) -> [Token] {
        budget -= pattern.utf8.count
        guard budget >= 0 else { return [] }
        var tokens: [Token] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty {
                // Folded here, one literal run at a time, and not before parsing: lower-casing the
                // whole pattern would also fold the names inside "$(...)".
                tokens.append(.literal(lowercased ? Array(String(decoding: literal, as: UTF8.self).lowercased().utf8) : literal))
                literal = []
            }
        }
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "*") {
                flush()
                if tokens.last != .star { tokens.append(.star) }  // "**" is "*"
                i += 1
            } else if b == UInt8(ascii: "?") {
                flush()
                tokens.append(.one)
                i += 1
            } else if substitutions, b == UInt8(ascii: "$"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "("),
                      let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ")")) {
                let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                if let cls = SubstitutionVariables.builtInClass(name) {
                    flush()
                    tokens.append(.characterClass(lowercased ? cls.lowercased() : cls))
                } else if let words = SubstitutionVariables.builtInWords(name) {
                    flush()
                    budget -= words.reduce(0) { $0 + $1.utf8.count }
                    guard budget >= 0 else { return [] }
                    tokens.append(.choice(words.map { [.literal(Array((lowercased ? $0.lowercased() : $0).utf8))] }))
                } else if let values = variables[name], depth < 4 {
                    flush()
                    var alternatives: [[Token]] = []
                    for value in values {
                        alternatives.append(compile(value, variables: variables, lowercased: lowercased, depth: depth + 1, budget: &budget))
                        guard budget >= 0 else { return [] }
                    }
                    tokens.append(.choice(alternatives))
                } else {
                    literal.append(contentsOf: bytes[i...close])
                }
                i = close + 1
            } else {
                literal.append(b)
                i += 1
            }
        }
        flush()
        return tokens
    }

    /// Whether the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    /// Whether the whole of the UTF-8 `text` matches, in time that grows with the pattern's
    /// length times the text's, whatever the pattern (`/*a*a*a*a*a*c` on a long path included).
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if isTooLarge { return false }
        if !prefix.isEmpty {
            guard text.count >= prefix.count else { return false }
            for k in 0..<prefix.count where text[k] != prefix[k] { return false }
        }
        if let program { return program.matches(text) }
        return Glob.match(tokens, text)
    }

    /// Length of the UTF-8 character starting with `b`.
    @inline(__always) static func width(_ b: UInt8) -> Int {
        if b < 0x80 { return 1 }
        if b >= 0xF0 { return 4 }
        if b >= 0xE0 { return 3 }
        if b >= 0xC0 { return 2 }
        return 1
    }

    /// Whether `token` (not a star or a choice) matches at `x`, and where it ends.
    @inline(__always) static func step(_ token: Token, _ text: UnsafeBufferPointer<UInt8>, _ x: Int) -> Int? {
        switch token {
        case .literal(let lit):
            guard text.count - x >= lit.count else { return nil }
            for k in 0..<lit.count where text[x + k] != lit[k] { return nil }
            return x + lit.count
        case .one:
            guard x < text.count else { return nil }
            return min(text.count, x + width(text[x]))
        case .characterClass(let set):
            guard x < text.count, width(text[x]) == 1, set.contains(text[x]) else { return nil }
            return x + 1
        case .star, .choice:
            return nil
        }
    }

    /// Matching for patterns without a choice: every token but `*` matches one fixed text at a
    /// given position, so only the most recent `*` ever needs to take one more character (an
    /// earlier one could not do better: the later `*` absorbs anything the earlier one would
    /// have). At most pattern × text steps, nothing allocated.
    static func match(_ tokens: [Token], _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var t = 0, x = 0
        var star = -1, starEnd = 0  // the last `*` seen and where the text it took ends
        while t < tokens.count || x < text.count {
            if t < tokens.count {
                if case .star = tokens[t] {
                    star = t
                    starEnd = x
                    t += 1
                    continue
                }
                if let next = step(tokens[t], text, x) {
                    x = next
                    t += 1
                    continue
                }
            }
            // A mismatch, or text left over at the pattern's end: the last `*` takes one more character.
            guard star >= 0, starEnd < text.count else { return false }
            starEnd += width(text[starEnd])
            x = min(starEnd, text.count)
            t = star + 1
        }
        return true
    }

    /// A pattern with choices as a set of states run over the text position by position
    /// (each state is kept once per position), so alternatives never multiply the work.
    struct Program: Sendable, Equatable {
        enum Instruction: Sendable, Equatable {
            case byte(UInt8, next: Int)
            case anyCharacter(next: Int)
            case characterClass(ClosedRangeSet, next: Int)
            /// Takes one character and stays, or goes on to `next` without taking any.
            case star(next: Int)
            case split([Int])
            case accept
        }
        var instructions: [Instruction] = [.accept]
        var start = 0

        init(_ tokens: [Token]) {
            start = emit(tokens[...], then: 0)
        }

        /// Adds the instructions of `tokens` followed by `next`; returns the first one's index.
        private mutating func emit(_ tokens: ArraySlice<Token>, then next: Int) -> Int {
            var next = next
            for token in tokens.reversed() {
                switch token {
                case .literal(let lit):
                    for b in lit.reversed() { next = add(.byte(b, next: next)) }
                case .one:
                    next = add(.anyCharacter(next: next))
                case .characterClass(let set):
                    next = add(.characterClass(set, next: next))
                case .star:
                    next = add(.star(next: next))
                case .choice(let alternatives):
                    let after = next
                    next = add(.split(alternatives.map { emit($0[...], then: after) }))
                }
            }
            return next
        }

        private mutating func add(_ instruction: Instruction) -> Int {
            instructions.append(instruction)
            return instructions.count - 1
        }

        func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            // States waiting at positions x ..< x + 5 (a character is at most 4 bytes), by x % 5;
            // `seen[slot][state]` is the position a state was last added at.
            var waiting = [[Int]](repeating: [], count: 5)
            var seen = [[Int]](repeating: [Int](repeating: -1, count: instructions.count), count: 5)
            var pending = 0
            func add(_ state: Int, at position: Int) {
                let slot = position % 5
                guard seen[slot][state] != position else { return }
                seen[slot][state] = position
                switch instructions[state] {
                case .split(let targets):
                    for target in targets { add(target, at: position) }
                case .star(let next):
                    waiting[slot].append(state)
                    pending += 1
                    add(next, at: position)
                default:
                    waiting[slot].append(state)
                    pending += 1
                }
            }
            add(start, at: 0)
            var x = 0
            while pending > 0 && x <= text.count {
                let slot = x % 5
                let states = waiting[slot]
                waiting[slot] = []
                pending -= states.count
                for state in states {
                    switch instructions[state] {
                    case .accept:
                        if x == text.count { return true }
                    case .byte(let b, let next):
                        if x < text.count, text[x] == b { add(next, at: x + 1) }
                    case .anyCharacter(let next):
                        if x < text.count { add(next, at: min(text.count, x + Glob.width(text[x]))) }
                    case .characterClass(let set, let next):
                        if x < text.count, Glob.width(text[x]) == 1, set.contains(text[x]) { add(next, at: x + 1) }
                    case .star:
                        if x < text.count { add(state, at: min(text.count, x + Glob.width(text[x]))) }
                    case .split:
                        break
                    }
                }
                x += 1
            }
            return false
        }
    }
}

/// A set of ASCII bytes, for built-in character variables.
public struct ClosedRangeSet: Sendable, Equatable {
    var bits: (UInt64, UInt64) = (0, 0)
    init(_ ranges: [ClosedRange<UInt8>]) {
        for r in ranges { for b in r { if b < 64 { bits.0 |= 1 << UInt64(b) } else if b < 128 { bits.1 |= 1 << UInt64(b - 64) } } }
    }
    func contains(_ b: UInt8) -> Bool {
        b < 64 ? bits.0 & (1 << UInt64(b)) != 0 : (b < 128 ? bits.1 & (1 << UInt64(b - 64)) != 0 : false)
    }

    /// The set as it reads once lower-cased: every upper-case letter in it becomes its
    /// lower-case letter (`[A-Z]` becomes `[a-z]`), for text that is lower-cased too.
    func lowercased() -> ClosedRangeSet {
        var out = self
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") where contains(b) {
            out.bits.1 &= ~(1 << UInt64(b - 64))
            out.bits.1 |= 1 << UInt64(b + 0x20 - 64)
        }
        return out
    }
    /// Two sets are equal when they hold the same bytes.
    public static func == (a: ClosedRangeSet, b: ClosedRangeSet) -> Bool { a.bits == b.bits }
}
