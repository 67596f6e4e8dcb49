import SwitchyardCore
/// Finds literal text that every match of an ICU regex must contain, so that an index can skip
/// regexes whose literals are absent from the input.
///
/// The analysis is conservative: whatever it cannot prove required (classes of more than one
/// letter's cases, optional parts, escapes it does not know, `(?x)` patterns) is treated as
/// unknown, never as a literal. A requirement is a set of alternatives — at least one of them
/// occurs (ASCII-lowercased) in any input the regex matches; a regex may have several, all of
/// which hold (`all(_:)`), or none when no useful literal is known.
public enum RequiredLiterals {
    /// Most requirements kept for one regex (the most selective ones).
    static let maximumRequirements = 8

    /// Literals shorter than this, or common URL fragments, are not selective enough to index.
    static let minimumLength = 3
    static let commonFragments: [String] = ["http://", "https://", "https://www.", "http://www.", "www.", ".com", ".com/", "://", "http", "https"]
    /// Every piece of text the common fragments contain.
    static let commonSubstrings: Set<String> = {
        var pieces: Set<String> = []
        for fragment in commonFragments {
            let bytes = Array(fragment.utf8)
            for start in bytes.indices {
                for end in (start + 1)...bytes.count { pieces.insert(String(decoding: bytes[start..<end], as: UTF8.self)) }
            }
        }
        return pieces
    }()

    /// The most selective requirement: alternatives of which one must occur, lowercased, or nil
    /// if none could be derived.
    public static func of(_ pattern: String) -> Set<String>? {
        var parser = Parser(bytes: Array(pattern.utf8))
        guard let alternatives = parser.parseAlternation(), parser.index == parser.bytes.count, !parser.extended else { return nil }
        return best(ofAlternatives: alternatives.map(\.requirements))
    }

    /// Every requirement found (up to `maximumRequirements`, the most selective first): each
    /// is a set of lowercased alternatives, and an input the regex matches contains one of each
    /// set. Empty when none could be derived.
    public static func all(_ pattern: String) -> [Set<String>] {
        var parser = Parser(bytes: Array(pattern.utf8))
        guard let alternatives = parser.parseAlternation(), parser.index == parser.bytes.count, !parser.extended else { return [] }
        return conjunction(ofAlternatives: alternatives.map(\.requirements))
    }

    /// The useful requirements of a regex or group with these branches, most selective first.
    /// With several branches, (a ∧ b) ∨ c is kept as (a ∨ c) ∧ (b ∨ c): each requirement takes
    /// one of each branch's, so every branch meets it. Empty when a branch has none.
    static func conjunction(ofAlternatives alternatives: [[Set<String>]]) -> [Set<String>] {
        var result: [Scored]?
        for branch in alternatives {
            let own = ranked(branch.map { Scored(literals: $0, score: score($0, minimum: 2)) })
            guard !own.isEmpty else { return [] }
            guard let sofar = result else {
                result = own
                continue
            }
            result = ranked(sofar.flatMap { r in own.map { Scored(literals: r.literals.union($0.literals), score: min(r.score, $0.score)) } })
        }
        return (result ?? []).map(\.literals)
    }

    /// A requirement and its score with two-character literals allowed (see `score`).
    struct Scored {
        var literals: Set<String>
        var score: Int
    }

    /// `requirements` that say something, without repeats, the most selective first (ties keep
    /// their order), at most `maximumRequirements`. A requirement of two-character literals
    /// counts here (a regex filed under one still runs for fewer inputs than one that always
    /// runs), though `of` does not offer one.
    static func ranked(_ requirements: [Scored]) -> [Scored] {
        var kept: [Scored] = []
        for r in requirements where r.score > 0 && !kept.contains(where: { $0.literals == r.literals }) { kept.append(r) }
        let order = kept.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }
        return order.prefix(maximumRequirements).map(\.element)
    }

    /// True if the pattern turns on case-insensitive matching anywhere (`(?i)` or `(?i:…)`).
    public static func mayBeCaseInsensitive(_ pattern: String) -> Bool {
        let u = Array(pattern.utf8)
        var k = 0
        while k + 2 < u.count {
            if u[k] == UInt8(ascii: "\\") { k += 2; continue }
            if u[k] == UInt8(ascii: "("), u[k + 1] == UInt8(ascii: "?") {
                var j = k + 2
                while j < u.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(u[j]) || u[j] == UInt8(ascii: "-") {
                    if u[j] == UInt8(ascii: "i") { return true }
                    j += 1
                }
            }
            k += 1
        }
        return false
    }

    /// How selective `literal` is: its length, or 0 when shorter than `minimum` or part of a
    /// common URL fragment.
    static func score(_ literal: String, minimum: Int = minimumLength) -> Int {
        if literal.utf8.count < minimum { return 0 }
        if commonSubstrings.contains(literal) { return 0 }
        return literal.utf8.count
    }

    /// The score of a set's least selective literal.
    static func score(_ set: Set<String>, minimum: Int = minimumLength) -> Int { set.map { score($0, minimum: minimum) }.min() ?? 0 }

    /// Of a sequence's requirements, the most selective one.
    static func best(_ requirements: [Set<String>]) -> Set<String>? {
        var chosen: Set<String>?
        var chosenScore = 0
        for r in requirements {
            let s = score(r)
            if s > chosenScore || (s == chosenScore && s > 0 && r.count < (chosen?.count ?? Int.max)) {
                chosen = r
                chosenScore = s
            }
        }
        return chosenScore > 0 ? chosen : nil
    }

    /// An alternation requires one literal from each branch; nil if any branch has none.
    static func best(ofAlternatives alternatives: [[Set<String>]]) -> Set<String>? {
        var union: Set<String> = []
        for branch in alternatives {
            guard let b = best(branch) else { return nil }
            union.formUnion(b)
        }
        return union.isEmpty ? nil : union
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0
        var extended = false
        var depth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        func peek(_ offset: Int = 0) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

        /// A parsed branch: its requirements and the literal text every match of it starts with.
        struct Branch {
            var requirements: [Set<String>]
            var leading: String
        }

        /// alternation := sequence ('|' sequence)*; returns each branch.
        mutating func parseAlternation() -> [Branch]? {
            var branches: [Branch] = []
            while true {
                guard let seq = parseSequence() else { return nil }
                branches.append(seq)
                if peek() == UInt8(ascii: "|") {
                    index += 1
                    continue
                }
                return branches
            }
        }

        enum Quantity { case one, optional, oneOrMore }

        /// Reads a quantifier after an atom, if any.
        mutating func parseQuantifier() -> Quantity? {
            guard let c = peek() else { return .one }
            var q: Quantity
            switch c {
            case UInt8(ascii: "?"), UInt8(ascii: "*"):
                index += 1
                q = .optional
            case UInt8(ascii: "+"):
                index += 1
                q = .oneOrMore
            case UInt8(ascii: "{"):
                // {n}, {n,}, {n,m}; anything else is a parse failure (bail out).
                var j = index + 1
                var n = 0
                var digits = 0
                while j < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j]) {
                    n = min(n * 10 + Int(bytes[j] - 48), 1_000_000)
                    j += 1
                    digits += 1
                }
                guard digits > 0 else { return nil }
                if j < bytes.count, bytes[j] == UInt8(ascii: ",") {
                    j += 1
                    while j < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j]) { j += 1 }
                }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "}") else { return nil }
                index = j + 1
                q = n == 0 ? .optional : (n == 1 ? .oneOrMore : .oneOrMore)
            default:
                return .one
            }
            if let c = peek(), c == UInt8(ascii: "?") || c == UInt8(ascii: "+") { index += 1 }  // lazy / possessive
            return q
        }

        /// Most strings a run followed by a group may expand to before it is not worth indexing.
        static let maximumExpansion = 256

        /// sequence := (atom quantifier?)*, up to '|' or ')' or the end.
        mutating func parseSequence() -> Branch? {
            var requirements: [Set<String>] = []
            var run: [UInt8] = []
            var leading: [UInt8] = []
            var leadingDone = false
            func flush() {
                leadingDone = true
                if !run.isEmpty {
                    requirements.append([String(decoding: run, as: UTF8.self)])
                    run = []
                }
            }
            func literal(_ c: UInt8, _ q: Quantity) {
                let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) ? c | 0x20 : c
                switch q {
                case .one:
                    run.append(lower)
                    if !leadingDone { leading.append(lower) }
                case .oneOrMore:
                    run.append(lower)
                    if !leadingDone { leading.append(lower) }
                    flush()
                case .optional: flush()
                }
            }
            while let c = peek(), c != UInt8(ascii: "|"), c != UInt8(ascii: ")") {
                switch c {
                case UInt8(ascii: "("):
                    guard let group = parseGroup() else { return nil }
                    guard let q = parseQuantifier() else { return nil }
                    switch group {
                    case .flags:
                        continue  // (?i) and friends consume nothing: the run goes on
                    case .zeroWidth:
                        flush()
                    case .consuming(let required, let prefixes):
                        if q != .optional {
                            // The run is immediately followed by one of the branches' leading texts.
                            if !run.isEmpty, let prefixes, prefixes.count <= Self.maximumExpansion {
                                let head = String(decoding: run, as: UTF8.self)
                                requirements.append(Set(prefixes.map { head + $0 }))
                            }
                            flush()
                            requirements.append(contentsOf: required)
                        } else {
                            flush()
                        }
                    }
                case UInt8(ascii: "["):
                    if let single = parseSingleClass() {
                        // `[x]`, `[\)]`, `[Bb]`: one character, or one letter in either case
                        // (the literals are lowercased, so both cases are the same literal).
                        guard let q = parseQuantifier() else { return nil }
                        literal(single, q)
                    } else {
                        flush()
                        guard skipClass(), parseQuantifier() != nil else { return nil }
                    }
                case UInt8(ascii: "\\"):
                    guard let escaped = parseEscape() else { return nil }
                    guard let q = parseQuantifier() else { return nil }
                    if let escaped {
                        literal(escaped, q)
                    } else {
                        flush()
                    }
                case UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "$"):
                    index += 1
                    flush()
                    guard parseQuantifier() != nil else { return nil }
                case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
                    // A quantifier with nothing to repeat (or a literal '{' ICU may accept): give up.
                    return nil
                default:
                    index += 1
                    if c >= 0x80 {
                        // Non-ASCII literal: not indexed (its bytes are no syntax).
                        while let n = peek(), n & 0xC0 == 0x80 { index += 1 }
                        flush()
                        guard parseQuantifier() != nil else { return nil }
                    } else {
                        guard let q = parseQuantifier() else { return nil }
                        literal(c, q)
                    }
                }
            }
            flush()
            return Branch(requirements: requirements, leading: String(decoding: leading, as: UTF8.self))
        }

        /// Parses `\…`. Returns .some(byte) for an escaped ASCII punctuation literal, .some(nil)
        /// for anything else understood, nil for a parse failure.
        mutating func parseEscape() -> UInt8?? {
            index += 1
            guard let c = peek() else { return nil }
            index += 1
            if c >= 0x80 {
                while let n = peek(), n & 0xC0 == 0x80 { index += 1 }
                return .some(nil)
            }
            let isAlnum = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
            if !isAlnum { return .some(c) }
            switch c {
            case UInt8(ascii: "x"), UInt8(ascii: "p"), UInt8(ascii: "P"), UInt8(ascii: "N"):
                if peek() == UInt8(ascii: "{") {
                    guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
                    index = close + 1
                } else {
                    index = min(bytes.count, index + (c == UInt8(ascii: "x") ? 2 : 1))
                }
            case UInt8(ascii: "u"): index = min(bytes.count, index + 4)
            case UInt8(ascii: "U"): index = min(bytes.count, index + 8)
            case UInt8(ascii: "c"): index = min(bytes.count, index + 1)
            case UInt8(ascii: "k"):
                guard peek() == UInt8(ascii: "<"), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                index = close + 1
            case UInt8(ascii: "0"):
                var n = 0
                while n < 3, let d = peek(), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(d) { index += 1; n += 1 }
            case UInt8(ascii: "Q"):
                // Quoted text up to \E: a literal run we do not attempt to index.
                var j = index
                while j + 1 < bytes.count, !(bytes[j] == UInt8(ascii: "\\") && bytes[j + 1] == UInt8(ascii: "E")) { j += 1 }
                index = j + 1 < bytes.count ? j + 2 : bytes.count
            default:
                break  // \d \w \s \b \n \t \1 … : not a literal we index
            }
            return .some(nil)
        }

        /// Reads a class that matches one ASCII character, or one letter in either case, and
        /// returns that character; nil (nothing read) for any other class.
        mutating func parseSingleClass() -> UInt8? {
            func plain(_ c: UInt8) -> Bool {
                c < 0x80 && c > 0x20 && !"[]\\^-&:".utf8.contains(c)
            }
            func isLetter(_ c: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c | 0x20) }
            var j = index + 1
            var members: [UInt8] = []
            while j < bytes.count, bytes[j] != UInt8(ascii: "]"), members.count < 3 {
                if bytes[j] == UInt8(ascii: "\\") {
                    // An escaped punctuation character is itself; \d, \w and the like are not one.
                    guard j + 1 < bytes.count, bytes[j + 1] < 0x80, bytes[j + 1] > 0x20, !isLetter(bytes[j + 1]),
                          !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[j + 1]) else { return nil }
                    members.append(bytes[j + 1])
                    j += 2
                } else {
                    guard plain(bytes[j]) else { return nil }
                    members.append(bytes[j])
                    j += 1
                }
            }
            guard j < bytes.count, bytes[j] == UInt8(ascii: "]") else { return nil }
            switch members.count {
            case 1: break
            case 2: guard isLetter(members[0]), members[0] != members[1], members[0] | 0x20 == members[1] | 0x20 else { return nil }
            default: return nil
            }
            index = j + 1
            return members[0]
        }

        /// Skips a character class, nested sets included.
        mutating func skipClass() -> Bool {
            var level = 0
            while let c = peek() {
                index += 1
                switch c {
                case UInt8(ascii: "\\"):
                    guard peek() != nil else { return false }
                    index += 1
                case UInt8(ascii: "["):
                    level += 1
                    if peek() == UInt8(ascii: "^") { index += 1 }
                    if peek() == UInt8(ascii: "]") { index += 1 }  // leading ']' is literal
                case UInt8(ascii: "]"):
                    level -= 1
                    if level == 0 { return true }
                default: break
                }
            }
            return false
        }

        enum Group {
            /// `(?i)`, `(?#…)`: no effect on what is matched where.
            case flags
            /// Lookarounds: match nothing themselves.
            case zeroWidth
            /// A group that consumes text: its requirements, and the leading literal of each
            /// branch (nil if some branch has none).
            case consuming(required: [Set<String>], prefixes: Set<String>?)
        }

        /// Parses a group.
        mutating func parseGroup() -> Group? {
            depth += 1
            defer { depth -= 1 }
            guard depth < 200 else { return nil }
            index += 1  // '('
            var consuming = true
            if peek() == UInt8(ascii: "?") {
                index += 1
                guard let c = peek() else { return nil }
                switch c {
                case UInt8(ascii: ":"), UInt8(ascii: ">"), UInt8(ascii: "|"):
                    index += 1
                case UInt8(ascii: "="), UInt8(ascii: "!"):
                    index += 1
                    consuming = false
                case UInt8(ascii: "#"):
                    guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ")")) else { return nil }
                    index = close + 1
                    return .flags
                case UInt8(ascii: "<"):
                    index += 1
                    if peek() == UInt8(ascii: "=") || peek() == UInt8(ascii: "!") {
                        index += 1
                        consuming = false
                    } else {
                        guard let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                        index = close + 1
                    }
                default:
                    // Flags: (?ims-x) or (?ims-x:…)
                    var flags: [UInt8] = []
                    while let f = peek(), f != UInt8(ascii: ")"), f != UInt8(ascii: ":") {
                        flags.append(f)
                        index += 1
                    }
                    guard let end = peek() else { return nil }
                    var on = true
                    for f in flags {
                        if f == UInt8(ascii: "-") { on = false } else if f == UInt8(ascii: "x") && on { extended = true }
                    }
                    index += 1
                    if end == UInt8(ascii: ")") { return .flags }
                }
            }
            guard let alternatives = parseAlternation(), peek() == UInt8(ascii: ")") else { return nil }
            index += 1
            guard consuming else { return .zeroWidth }
            let prefixes = alternatives.allSatisfy { !$0.leading.isEmpty } ? Set(alternatives.map(\.leading)) : nil
            return .consuming(required: RequiredLiterals.conjunction(ofAlternatives: alternatives.map(\.requirements)), prefixes: prefixes)
        }
    }
}
