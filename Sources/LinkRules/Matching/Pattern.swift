import Foundation

/// A regex evaluation stopped because it ran longer than its budget.
public struct RegexTimeout: Error, Sendable, Equatable {
    public var seconds: Double

    /// The result a format, browser or preview reports for it.
    public var scriptError: ScriptError {
        ScriptError(code: "regex-timeout", message: "the regex ran longer than \(seconds) s on this input and was stopped")
    }
}

/// A compiled manifest regex with ICU (NSRegularExpression) semantics, as Opener uses them.
///
/// Matching runs over the whole input (`firstMatch` over the full range); templates are applied
/// with NSRegularExpression's template replacement over the whole input, so `$1` refers to the
/// first group and text such as `$web_only` stays literal.
public final class Pattern: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as safe to use from several threads.
    public let source: String
    let regex: NSRegularExpression?

    /// Compiles `source`; throws the ICU error text when it does not compile.
    public init(_ source: String) throws {
        self.source = source
        self.regex = try NSRegularExpression(pattern: source, options: [])
    }

    private init(never source: String) {
        self.source = source
        self.regex = nil
    }

    /// A pattern that never matches (stands in for one that failed to compile while linting).
    static func never(_ source: String) -> Pattern { Pattern(never: source) }

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
    func allMatches(in input: NSString, budget: Double) -> Result<[NSTextCheckingResult], RegexTimeout> {
        search(input, first: false, budget: budget)
    }

    /// Runs the regex over all of `input`. ICU calls back every few thousand steps while it
    /// works (`.reportProgress`), which is where the clock is read and a runaway evaluation is
    /// stopped; the cost is a few percent on ordinary patterns.
    private func search(_ input: NSString, first: Bool, budget: Double) -> Result<[NSTextCheckingResult], RegexTimeout> {
        guard let regex else { return .success([]) }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start &+ UInt64(max(0, min(budget, 86_400)) * 1e9)
        var found: [NSTextCheckingResult] = []
        var timedOut = false
        regex.enumerateMatches(in: input as String, options: .reportProgress, range: NSRange(location: 0, length: input.length)) { match, _, stop in
            if let match {
                found.append(match)
                if first { stop.pointee = true; return }
            }
            if DispatchTime.now().uptimeNanoseconds > deadline {
                timedOut = true
                stop.pointee = true
            }
        }
        return timedOut ? .failure(RegexTimeout(seconds: budget)) : .success(found)
    }

    /// `input` with each of `matches` (from `allMatches`) replaced by `template`, exactly as
    /// NSRegularExpression's `stringByReplacingMatches` does.
    func replace(_ matches: [NSTextCheckingResult], in input: NSString, with template: String) -> String {
        guard let regex, !matches.isEmpty else { return input as String }
        var output = ""
        var done = 0
        for match in matches {
            output += input.substring(with: NSRange(location: done, length: match.range.location - done))
            output += regex.replacementString(for: match, in: input as String, offset: 0, template: template)
            done = match.range.location + match.range.length
        }
        output += input.substring(from: done)
        return output
    }
}
