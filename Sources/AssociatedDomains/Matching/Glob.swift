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
    public init(_ pattern: String, variables: [String: [String]] = [:], lowercased: Bool = false) {
        source = pattern
        tokens = Glob.compile(pattern, variables: variables, lowercased: lowercased, depth: 0)
        if case .literal(let lit)? = tokens.first { prefix = lit } else { prefix = [] }
    }

    static func compile(_ pattern: String, variables: [String: [String]], lowercased: Bool, depth: Int) -> [Token] {
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
            } else if b == UInt8(ascii: "$"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "("),
                      let close = bytes[(i + 2)...].firstIndex(of: UInt8(ascii: ")")) {
                let name = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                if let cls = SubstitutionVariables.builtInClass(name) {
                    flush()
                    tokens.append(.characterClass(lowercased ? cls.lowercased() : cls))
                } else if let words = SubstitutionVariables.builtInWords(name) {
                    flush()
                    tokens.append(.choice(words.map { [.literal(Array((lowercased ? $0.lowercased() : $0).utf8))] }))
                } else if let values = variables[name], depth < 4 {
                    flush()
                    tokens.append(.choice(values.map { compile($0, variables: variables, lowercased: lowercased, depth: depth + 1) }))
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

    /// Whether the whole of the UTF-8 `text` matches.
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if !prefix.isEmpty {
            guard text.count >= prefix.count else { return false }
            for k in 0..<prefix.count where text[k] != prefix[k] { return false }
        }
        return Glob.match(tokens[...], text[...])
    }

    /// Length of the UTF-8 character starting with `b`.
    @inline(__always) static func width(_ b: UInt8) -> Int {
        if b < 0x80 { return 1 }
        if b >= 0xF0 { return 4 }
        if b >= 0xE0 { return 3 }
        if b >= 0xC0 { return 2 }
        return 1
    }

    static func match(_ tokens: ArraySlice<Token>, _ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var t = tokens.startIndex
        var x = text.startIndex
        while t < tokens.endIndex {
            switch tokens[t] {
            case .literal(let lit):
                guard text.endIndex - x >= lit.count else { return false }
                for k in 0..<lit.count where text[x + k] != lit[k] { return false }
                x += lit.count
                t += 1
            case .one:
                guard x < text.endIndex else { return false }
                x = min(text.endIndex, x + width(text[x]))
                t += 1
            case .characterClass(let set):
                guard x < text.endIndex else { return false }
                let w = width(text[x])
                guard w == 1, set.contains(text[x]) else { return false }
                x += 1
                t += 1
            case .star:
                let rest = tokens[(t + 1)...]
                if rest.isEmpty { return true }
                // A literal right after the star: only try positions where it starts.
                if case .literal(let lit)? = rest.first {
                    var k = x
                    while k + lit.count <= text.endIndex {
                        if text[k] == lit[0], match(rest, text[k...]) { return true }
                        k += 1
                    }
                    return false
                }
                var k = x
                while k <= text.endIndex {
                    if match(rest, text[k...]) { return true }
                    if k == text.endIndex { break }
                    k += width(text[k])
                }
                return false
            case .choice(let alternatives):
                let rest = tokens[(t + 1)...]
                for alt in alternatives where match(ArraySlice(alt + Array(rest)), text[x...]) { return true }
                return false
            }
        }
        return x == text.endIndex
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
