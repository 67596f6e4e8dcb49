import Foundation
import SwitchyardCore

/// A regex evaluation stopped because it ran longer than its budget.
public struct RegexTimeout: SwitchyardError, Equatable {
    /// The budget, in seconds, that the evaluation ran past.
    public var seconds: Double

    /// A stop after `seconds`.
    public init(seconds: Double) { self.seconds = seconds }
    /// Always `regex-timeout`.
    public var code: ErrorCode { .regexTimeout }
    /// Says that the regex was stopped after `seconds`.
    public var message: String { "the regex ran longer than \(seconds) s on this input and was stopped" }
}

/// A compiled manifest regex with ICU (NSRegularExpression) semantics, as Opener uses them.
///
/// Matching runs over the whole input (`firstMatch` over the full range); templates are applied
/// with NSRegularExpression's template replacement over the whole input, so `$1` refers to the
/// first group and text such as `$web_only` stays literal.
public final class Pattern: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as safe to use from several threads.
    /// The regex as written in the manifest.
    public let source: String
    package let regex: NSRegularExpression?
    /// Templates already read for this regex (a manifest gives each regex a handful), so a
    /// template is read once, not for every replacement.
    private let templates = Locked<[String: [ReplacementTemplate.Piece]]>([:])

    /// Whether evaluations are watched against their time budget. ICU then calls back at every
    /// position it tries, which costs more than the match itself for a short regex that fails.
    public let watched: Bool

    #if canImport(_FoundationICU)
    /// The regex through ICU's C API, for an unwatched regex on a prepared input.
    let matchers: ICUMatchers?
    #endif

    /// Compiles `source`; throws the ICU error text when it does not compile. With `watched`
    /// false, evaluations run without the time budget: only for a regex whose shape cannot
    /// backtrack without bound (``catastrophicShape(_:)`` finds none), from a trusted file.
    public init(_ source: String, watched: Bool = true) throws {
        self.source = source
        self.regex = try NSRegularExpression(pattern: source, options: [])
        self.watched = watched
        #if canImport(_FoundationICU)
        self.matchers = watched ? nil : ICUMatchers(source)
        #endif
    }

    private init(never source: String) {
        self.source = source
        self.regex = nil
        self.watched = true
        #if canImport(_FoundationICU)
        self.matchers = nil
        #endif
    }

    /// A pattern that never matches (stands in for one that failed to compile while linting).
    package static func never(_ source: String) -> Pattern { Pattern(never: source) }

    /// The longest regex a manifest entry may have, in UTF-8 bytes (32 KiB): compiling and
    /// indexing take memory in proportion to the length. An entry with a longer regex is skipped
    /// with `regex-too-long`, as other unusable entries are.
    public static let maximumLength = 32 << 10

    /// Seconds one evaluation may take unless a caller gives its own budget. Ordinary manifest
    /// regexes take microseconds; a catastrophic one (`(a+)+$` on a long run of `a`s) would
    /// otherwise run for minutes.
    public static let defaultTimeLimit = 0.1

    /// Whether the pattern matches anywhere in `input`; false also when the evaluation ran out of
    /// `budget` seconds (`match` tells the two apart).
    public func matches(_ input: String, budget: Double = Pattern.defaultTimeLimit) -> Bool {
        (try? match(input, budget: budget).get()) ?? false
    }

    /// Whether the pattern matches anywhere in `input`, or `RegexTimeout` when the evaluation
    /// was stopped after `budget` seconds.
    public func match(_ input: String, budget: Double) -> Result<Bool, RegexTimeout> {
        search(input as NSString, first: true, budget: budget).map { !$0.isEmpty }
    }

    /// Replaces every match in `input` with `template` (`$1`… refer to groups); `input` as it is
    /// when the search ran out of its budget.
    public func replace(in input: String, with template: String, budget: Double = Pattern.defaultTimeLimit) -> String {
        guard case .success(let matches) = allMatches(in: input as NSString, budget: budget) else { return input }
        return replace(matches, in: input as NSString, with: template)
    }

    /// Every match in `input`, in order (what `replace` replaces); empty when none. Callers that
    /// apply several templates of one regex to one input find the matches once.
    package func allMatches(in input: NSString, budget: Double) -> Result<[NSTextCheckingResult], RegexTimeout> {
        search(input, first: false, budget: budget)
    }

    /// The groups of the first match in `input` (the whole match first; nil for a group that did
    /// not take part), nil when there is none, or `RegexTimeout` after `budget` seconds.
    public func captures(in input: String, budget: Double = Pattern.defaultTimeLimit) -> Result<[String?]?, RegexTimeout> {
        let text = input as NSString
        return search(text, first: true, budget: budget).map { found in
            found.first.map { match in
                (0..<match.numberOfRanges).map { i in
                    let range = match.range(at: i)
                    return range.location == NSNotFound ? nil : text.substring(with: range)
                }
            }
        }
    }

    /// Runs the regex over all of `input`. ICU calls back while it works (`.reportProgress`),
    /// which is where the clock is read and a runaway evaluation is stopped.
    private func search(_ input: NSString, first: Bool, budget: Double) -> Result<[NSTextCheckingResult], RegexTimeout> {
        guard let regex else { return .success([]) }
        let range = NSRange(location: 0, length: input.length)
        guard watched else {
            if first { return .success(regex.firstMatch(in: input as String, options: [], range: range).map { [$0] } ?? []) }
            return .success(regex.matches(in: input as String, options: [], range: range))
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start &+ UInt64(max(0, min(budget, 86_400)) * 1e9)
        var found: [NSTextCheckingResult] = []
        var timedOut = false
        var callbacks: UInt32 = 0
        regex.enumerateMatches(in: input as String, options: .reportProgress, range: NSRange(location: 0, length: input.length)) { match, _, stop in
            if let match {
                found.append(match)
                if first { stop.pointee = true; return }
            }
            // ICU calls back at every new start position as well as during long matches: the
            // clock is read only at every 16th call.
            callbacks &+= 1
            if callbacks & 15 == 0, DispatchTime.now().uptimeNanoseconds > deadline {
                timedOut = true
                stop.pointee = true
            }
        }
        return timedOut ? .failure(RegexTimeout(seconds: budget)) : .success(found)
    }

    /// `input` with each of `matches` (from `allMatches`) replaced by `template`, exactly as
    /// NSRegularExpression's `stringByReplacingMatches` does.
    package func replace(_ matches: [NSTextCheckingResult], in input: NSString, with template: String) -> String {
        guard regex != nil, let first = matches.first else { return input as String }
        // Built from the input's code units and decoded once, not through Foundation's
        // `replacementString` per match. Match ranges count UTF-16 units; when the input is ASCII
        // those are its UTF-8 bytes, the cheap case.
        let string = input as String
        let pieces = pieces(of: template, ranges: first.numberOfRanges)
        if string.utf8.count == input.length {
            return String(decoding: Self.assemble(Array(string.utf8), matches, pieces, \.utf8), as: UTF8.self)
        }
        return String(decoding: Self.assemble(Array(string.utf16), matches, pieces, \.utf16), as: UTF16.self)
    }

    /// `template` read for this regex's matches, from the cache when it was read before. At most
    /// 64 templates are kept per regex (callers of the public `replace` may bring any number).
    private func pieces(of template: String, ranges: Int) -> [ReplacementTemplate.Piece] {
        if let known = templates.withLock({ $0[template] }) { return known }
        let pieces = ReplacementTemplate.pieces(of: template, ranges: ranges)
        templates.withLock { if $0.count < 64 { $0[template] = pieces } }
        return pieces
    }

    /// The input's units with every match replaced by the template's pieces.
    private static func assemble<Units: Collection>(_ text: [Units.Element], _ matches: [NSTextCheckingResult],
                                                    _ pieces: [ReplacementTemplate.Piece], _ units: KeyPath<String, Units>) -> [Units.Element] {
        var output: [Units.Element] = []
        output.reserveCapacity(text.count + 64)
        var done = 0
        for match in matches {
            output += text[done..<match.range.location]
            for piece in pieces {
                switch piece {
                case .literal(let literal): output += literal[keyPath: units]
                case .group(let number):
                    guard number < match.numberOfRanges else { continue }
                    let range = match.range(at: number)
                    if range.location != NSNotFound, range.length > 0 { output += text[range.location..<NSMaxRange(range)] }
                }
            }
            done = NSMaxRange(match.range)
        }
        output += text[done...]
        return output
    }
}

/// A replacement template read with NSRegularExpression's rules: `$` and up to as many digits
/// as the largest group number has is that group's text (empty when the group did not take part
/// or does not exist); `$` without a digit stays; a backslash is dropped and the unit after it
/// is kept as it is (so `\$1` is the text `$1`).
enum ReplacementTemplate {
    enum Piece: Equatable {
        case literal(String)
        case group(Int)
    }

    /// `template` as literal runs and group references, for matches with `ranges` ranges (the
    /// regex's groups plus the whole match).
    static func pieces(of template: String, ranges: Int) -> [Piece] {
        // Read as UTF-8: the characters with a meaning are ASCII, and a backslash before a
        // multi-byte character keeps all of its bytes either way.
        let units = Array(template.utf8)
        var maximumDigits = 1
        var magnitude = 10
        while magnitude < ranges && maximumDigits < 20 {
            maximumDigits += 1
            magnitude *= 10
        }
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        var i = 0
        let dollar: UInt8 = 0x24, backslash: UInt8 = 0x5C, zero: UInt8 = 0x30, nine: UInt8 = 0x39
        while i < units.count {
            let unit = units[i]
            if unit == backslash {
                if i + 1 < units.count { literal.append(units[i + 1]) }
                i += 2
            } else if unit == dollar {
                var number = 0, digits = 0
                var j = i + 1
                while j < units.count, digits < maximumDigits, units[j] >= zero, units[j] <= nine {
                    number = number * 10 + Int(units[j] - zero)
                    digits += 1
                    j += 1
                }
                if digits == 0 {
                    literal.append(dollar)
                    i += 1
                } else {
                    if !literal.isEmpty { pieces.append(.literal(String(decoding: literal, as: UTF8.self))); literal = [] }
                    pieces.append(.group(number))
                    i = j
                }
            } else {
                literal.append(unit)
                i += 1
            }
        }
        if !literal.isEmpty { pieces.append(.literal(String(decoding: literal, as: UTF8.self))) }
        return pieces
    }
}
