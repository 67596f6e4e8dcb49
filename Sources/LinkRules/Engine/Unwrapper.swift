import SwitchyardCore
import Foundation

/// The static redirect table: rules tried once, in file order; the first matching rule gives
/// the output (a query item's value, percent-decoded, or a template); no match leaves the URL as is.
struct Unwrapper: Sendable {
    let rules: [Manifest.RedirectRule]
    /// Seconds each rule's regex may take; a rule that runs out is treated as not matching.
    let regexBudget: Double
    /// The rules' regexes filed by their required literals: only the rules an input can match
    /// are tried (still in file order, so the first match is the same). Nil: every rule in turn.
    private let index: PatternIndex?

    init(rules: [Manifest.RedirectRule], regexBudget: Double = Pattern.defaultTimeLimit, indexed: Bool = true) {
        self.rules = rules
        self.regexBudget = regexBudget
        index = indexed ? PatternIndex(patterns: rules.map(\.pattern)) : nil
    }

    /// The URL behind `url`'s wrapper, or `url` when no rule matches or the rule gives a URL a
    /// browser would never open from a link (`javascript:`, `file:`, …; see `isNeverFollowed`), or
    /// something that is no link at all (no scheme, a control character such as a line break).
    func unwrap(_ url: String) -> String {
        for i in index?.candidates(url) ?? Array(rules.indices) {
            let rule = rules[i]
            guard rule.pattern.matches(url, budget: regexBudget) else { continue }
            let target: String
            switch rule.output {
            case .param(let name):
                target = Self.queryValue(name, in: url) ?? url
            case .template(let template):
                target = rule.pattern.replace(in: url, with: template, budget: regexBudget)
            }
            return Self.isNeverFollowed(target) || !Self.isLink(target) ? url : target
        }
        return url
    }

    /// Schemes a browser never navigates to from a redirect or a wrapper link (script, local
    /// file and in-memory URLs): such a target is not an unwrapped URL.
    static let neverFollowedSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "blob", "view-source", "about", "filesystem", "jar"]

    /// True when `url`'s scheme is one of `neverFollowedSchemes` (case-insensitive, as browsers
    /// compare schemes, leading spaces and controls ignored as browsers strip them).
    static func isNeverFollowed(_ url: String) -> Bool {
        let trimmed = url.unicodeScalars.drop { $0.value <= 0x20 }
        guard let colon = trimmed.firstIndex(of: ":") else { return false }
        let scheme = String(String.UnicodeScalarView(trimmed[..<colon].filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })).lowercased()
        return neverFollowedSchemes.contains(scheme)
    }

    /// True when `text` is a link as the engine takes results: a scheme, no control character.
    static func isLink(_ text: String) -> Bool {
        if case .success = LinkEngine.checked(.success(text)) { return true }
        return false
    }

    /// The first value of query item `name` in `url`, percent-decoded (`+` stays `+`).
    static func queryValue(_ name: String, in url: String) -> String? {
        guard let q = url.firstIndex(of: "?") else { return nil }
        var query = url[url.index(after: q)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            guard key == name else { continue }
            let raw = parts.count > 1 ? String(parts[1]) : ""
            return raw.removingPercentEncoding ?? raw
        }
        return nil
    }

    /// `reference` (a Location header) resolved against `base`, its existing escapes kept.
    static func resolveReference(_ reference: String, against base: String) -> String? {
        RedirectLocation.resolve(reference, against: base)
    }
}
