import Foundation

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

    /// Whether the pattern matches anywhere in `input`.
    public func matches(_ input: String) -> Bool {
        guard let regex else { return false }
        let ns = input as NSString
        return regex.firstMatch(in: input, options: [], range: NSRange(location: 0, length: ns.length)) != nil
    }

    /// Replaces every match in `input` with `template` (`$1`… refer to groups).
    public func replace(in input: String, with template: String) -> String {
        replace(allMatches(in: input as NSString), in: input as NSString, with: template)
    }

    /// Every match in `input`, in order (what `replace` replaces); empty when none. Callers that
    /// apply several templates of one regex to one input find the matches once.
    func allMatches(in input: NSString) -> [NSTextCheckingResult] {
        regex?.matches(in: input as String, options: [], range: NSRange(location: 0, length: input.length)) ?? []
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
