import SwitchyardCore
extension Pattern {
    /// A best-effort explanation of why ICU rejected `source`, with a character offset, since
    /// Foundation reports only "the value is invalid".
    package static func diagnose(_ source: String) -> String {
        if source.isEmpty { return "the pattern is empty" }
        let chars = Array(source)
        var groups: [Int] = []
        var i = 0
        var canRepeat = false
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "\\":
                if i + 1 >= chars.count { return "a trailing backslash escapes nothing (offset \(i))" }
                if chars[i + 1] == "Q" {
                    while i + 1 < chars.count && !(chars[i] == "\\" && chars[i + 1] == "E") { i += 1 }
                }
                i += 2
                canRepeat = true
                continue
            case "[":
                let start = i
                var depth = 0
                repeat {
                    if chars[i] == "\\" { i += 1 } else if chars[i] == "[" { depth += 1 } else if chars[i] == "]" { depth -= 1 }
                    i += 1
                } while i < chars.count && depth > 0
                if depth > 0 { return "the character class opened at offset \(start) is never closed" }
                canRepeat = true
                continue
            case "(":
                groups.append(i)
                canRepeat = false
            case ")":
                if groups.popLast() == nil { return "')' at offset \(i) closes no group" }
                canRepeat = true
            case "*", "+", "?":
                let afterQuantifier = i > 0 && "*+?}".contains(chars[i - 1])
                if !canRepeat && !(afterQuantifier && c != "*") && !(i > 0 && chars[i - 1] == "(" && c == "?") {
                    return "'\(c)' at offset \(i) has nothing to repeat"
                }
            case "{":
                if let close = chars[i...].firstIndex(of: "}") {
                    let bounds = String(chars[(i + 1)..<close]).split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                    if bounds.count == 2, let lo = bounds[0], let hi = bounds[1], lo > hi {
                        return "the repetition {\(lo),\(hi)} at offset \(i) has its minimum above its maximum"
                    }
                }
            case "|":
                canRepeat = false
            default:
                canRepeat = true
            }
            i += 1
        }
        if let open = groups.last { return "the group opened at offset \(open) is never closed" }
        // Groups, classes and repetitions are in order: what is left is a rule this reader does not
        // check (an unbounded look-behind, a reversed range such as [z-a], an unknown \p{…}
        // property, a repetition count past ICU's limit).
        return "ICU rejects the pattern; its groups, classes and repetitions are balanced, so look for an unbounded look-behind, a reversed range such as [z-a], an unknown \\p{…} property or a repetition count that is too large"
    }
}

// MARK: - Shapes that backtrack catastrophically

extension Pattern {
    /// Why `source` may take exponential (or high-polynomial) time on some inputs, or nil.
    ///
    /// A heuristic over the regex's structure, for `manifest lint`: it flags a group that is
    /// repeated and whose body can match the same text in more than one way —
    /// - an unbounded repetition inside it that can also match what follows it, such as
    ///   `(a+)+`, `(.*a){20}` or `(?:[^/]+\.)+` (the inner `[^/]+` can swallow the dots), but
    ///   not `(?:[^/]+/)*`, where the `/` ends every inner run;
    /// - alternatives that can start with the same character, such as `(\w|\d)+`.
    /// The engine's time budget (`regex-timeout`) is what protects a running service; this
    /// only tells authors early.
    public static func catastrophicShape(_ source: String) -> String? {
        var parser = ShapeParser(Array(source))
        guard let tree = parser.alternatives(), parser.atEnd else { return nil }
        return ShapeParser.check(tree)
    }
}

/// A small regex reader for `catastrophicShape`: only what the heuristic needs.
struct ShapeParser {
    /// Which characters an atom can match; printable ASCII is sampled for overlaps.
    struct CharSet: Sendable {
        var contains: @Sendable (Character) -> Bool
        static let any = CharSet { _ in true }
        func overlaps(_ other: CharSet) -> Bool {
            (0x20...0x7E).contains { v in let c = Character(Unicode.Scalar(UInt8(v))); return contains(c) && other.contains(c) }
        }
        static func union(_ sets: [CharSet]) -> CharSet { CharSet { c in sets.contains { $0.contains(c) } } }
    }

    indirect enum Atom {
        case chars(CharSet)
        case group([[Item]])
        /// Anchors, lookarounds, flags: match no character.
        case empty
        /// Back-references and anything unread: unknown.
        case unknown
    }

    struct Item {
        var atom: Atom
        var min = 1
        /// nil: unbounded.
        var max: Int? = 1
        var text: String
    }

    let chars: [Character]
    var i = 0
    init(_ chars: [Character]) { self.chars = chars }
    var atEnd: Bool { i >= chars.count }

    mutating func alternatives() -> [[Item]]? {
        var alternatives: [[Item]] = [[]]
        while i < chars.count, chars[i] != ")" {
            if chars[i] == "|" { alternatives.append([]); i += 1; continue }
            let start = i
            guard var item = atom() else { return nil }
            quantifier(&item)
            item.text = String(chars[start..<i])
            alternatives[alternatives.count - 1].append(item)
        }
        return alternatives
    }

    private mutating func atom() -> Item? {
        let c = chars[i]
        switch c {
        case "(":
            i += 1
            var zeroWidth = false
            if i < chars.count, chars[i] == "?" {
                i += 1
                guard i < chars.count else { return nil }
                switch chars[i] {
                case ":", ">": i += 1
                case "=", "!": i += 1; zeroWidth = true
                case "<" where i + 1 < chars.count && "=!".contains(chars[i + 1]): i += 2; zeroWidth = true
                case "<", "P":
                    while i < chars.count, chars[i] != ">" { i += 1 }
                    i += 1
                default:
                    // Flags: (?i) or (?i:…)
                    while i < chars.count, chars[i] != ")", chars[i] != ":" { i += 1 }
                    guard i < chars.count else { return nil }
                    if chars[i] == ")" { i += 1; return Item(atom: .empty, text: "") }
                    i += 1
                }
            }
            guard let body = alternatives(), i < chars.count, chars[i] == ")" else { return nil }
            i += 1
            return Item(atom: zeroWidth ? .empty : .group(body), text: "")
        case "[": return classAtom()
        case "\\":
            guard i + 1 < chars.count else { return nil }
            let e = chars[i + 1]
            i += 2
            switch e {
            case "d": return Item(atom: .chars(CharSet { $0.isNumber }), text: "")
            case "D": return Item(atom: .chars(CharSet { !$0.isNumber }), text: "")
            case "w": return Item(atom: .chars(CharSet { $0.isLetter || $0.isNumber || $0 == "_" }), text: "")
            case "W": return Item(atom: .chars(CharSet { !($0.isLetter || $0.isNumber || $0 == "_") }), text: "")
            case "s": return Item(atom: .chars(CharSet { $0.isWhitespace }), text: "")
            case "S": return Item(atom: .chars(CharSet { !$0.isWhitespace }), text: "")
            case "b", "B", "A", "z", "Z", "G": return Item(atom: .empty, text: "")
            case "1"..."9", "k", "p", "P", "x", "u", "N", "Q": return Item(atom: .unknown, text: "")
            default: return Item(atom: .chars(CharSet { $0 == e }), text: "")
            }
        case "^", "$": i += 1; return Item(atom: .empty, text: "")
        case ".": i += 1; return Item(atom: .chars(CharSet { $0 != "\n" }), text: "")
        default:
            i += 1
            return Item(atom: .chars(CharSet { $0 == c }), text: "")
        }
    }

    private mutating func classAtom() -> Item? {
        i += 1
        var negated = false
        if i < chars.count, chars[i] == "^" { negated = true; i += 1 }
        var members: [CharSet] = []
        var first = true
        while i < chars.count, chars[i] != "]" || first {
            first = false
            var c = chars[i]
            if c == "[" { return skipClass() }  // nested classes and set operations: unknown
            if c == "\\" {
                guard i + 1 < chars.count else { return nil }
                i += 1
                let e = chars[i]
                i += 1
                switch e {
                case "d": members.append(CharSet { $0.isNumber }); continue
                case "w": members.append(CharSet { $0.isLetter || $0.isNumber || $0 == "_" }); continue
                case "s": members.append(CharSet { $0.isWhitespace }); continue
                case "D", "W", "S", "p", "P", "x", "u", "N": members.append(.any); continue
                default: c = e
                }
            } else {
                i += 1
            }
            if i + 1 < chars.count, chars[i] == "-", chars[i + 1] != "]" {
                var hi = chars[i + 1]
                i += 2
                if hi == "\\", i < chars.count { hi = chars[i]; i += 1 }
                let lo = c, top = hi
                members.append(CharSet { $0 >= lo && $0 <= top })
            } else {
                let single = c
                members.append(CharSet { $0 == single })
            }
        }
        guard i < chars.count else { return nil }
        i += 1
        let set = CharSet.union(members)
        return Item(atom: .chars(negated ? CharSet { !set.contains($0) } : set), text: "")
    }

    private mutating func skipClass() -> Item? {
        var depth = 1
        while i < chars.count, depth > 0 {
            if chars[i] == "\\" { i += 1 } else if chars[i] == "[" { depth += 1 } else if chars[i] == "]" { depth -= 1 }
            i += 1
        }
        return depth == 0 ? Item(atom: .chars(.any), text: "") : nil
    }

    private mutating func quantifier(_ item: inout Item) {
        guard i < chars.count else { return }
        switch chars[i] {
        case "*": item.min = 0; item.max = nil; i += 1
        case "+": item.max = nil; i += 1
        case "?": item.min = 0; i += 1
        case "{":
            guard let close = chars[i...].firstIndex(of: "}") else { return }
            let parts = String(chars[(i + 1)..<close]).split(separator: ",", omittingEmptySubsequences: false)
            guard let lo = Int(parts.first ?? "") else { return }
            item.min = lo
            item.max = parts.count == 1 ? lo : Int(parts[1])
            i = close + 1
        default: return
        }
        if i < chars.count, chars[i] == "?" || chars[i] == "+" { i += 1 }  // lazy or possessive
    }

    /// The characters that can start `sequence`, and whether all of it can match nothing.
    static func firstSet(_ sequence: ArraySlice<Item>) -> (set: CharSet, nullable: Bool) {
        var sets: [CharSet] = []
        for item in sequence {
            switch item.atom {
            case .empty: continue
            case .unknown: return (.any, false)
            case .chars(let s): sets.append(s)
                if item.min > 0 { return (.union(sets), false) }
            case .group(let alternatives):
                var nullable = false
                for a in alternatives {
                    let (s, n) = firstSet(a[...])
                    sets.append(s)
                    nullable = nullable || n
                }
                if !nullable && item.min > 0 { return (.union(sets), false) }
            }
        }
        return (.union(sets), true)
    }

    /// Every character an atom can match anywhere (nil: unknown or none).
    static func matchable(_ atom: Atom) -> CharSet? {
        switch atom {
        case .chars(let s): return s
        case .group(let body):
            let sets = body.flatMap { $0.compactMap { matchable($0.atom) } }
            return sets.isEmpty ? nil : .union(sets)
        case .empty, .unknown: return nil
        }
    }

    static func check(_ alternatives: [[Item]]) -> String? {
        for sequence in alternatives {
            for item in sequence {
                guard case .group(let body) = item.atom else { continue }
                if let inner = check(body) { return inner }
                guard item.max == nil || item.max! > 1 else { continue }
                // What can start the group again when it repeats.
                let restart = CharSet.union(body.map { firstSet($0[...]).set })
                for alternative in body {
                    for (k, inner) in alternative.enumerated() where inner.max == nil {
                        guard let set = matchable(inner.atom) else { continue }
                        let rest = firstSet(alternative[(k + 1)...])
                        let follow = rest.nullable ? CharSet.union([rest.set, restart]) : rest.set
                        if set.overlaps(follow) {
                            return "the repeated group \(item.text) contains \(inner.text), which can also match what follows it, so the same text splits in very many ways (catastrophic backtracking on inputs that almost match)"
                        }
                    }
                }
                if item.max == nil, body.count > 1 {
                    let firsts = body.map { firstSet($0[...]).set }
                    for a in 0..<firsts.count {
                        for b in (a + 1)..<firsts.count where firsts[a].overlaps(firsts[b]) {
                            return "the repeated group \(item.text) has alternatives that can start with the same character, so the same text splits in very many ways (catastrophic backtracking)"
                        }
                    }
                }
            }
        }
        return nil
    }
}
