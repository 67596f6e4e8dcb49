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
        guard let regex else { return input }
        let ns = input as NSString
        return regex.stringByReplacingMatches(in: input, options: [], range: NSRange(location: 0, length: ns.length), withTemplate: template)
    }
}
