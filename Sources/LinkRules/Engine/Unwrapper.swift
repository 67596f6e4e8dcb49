import SwitchyardCore
import Foundation
import PatternMatching

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
            guard !Self.isNeverFollowed(target), Self.isLink(target), let opened = Self.asOpened(target) else { return url }
            return opened
        }
        return url
    }

    /// `target` as a browser goes to it when it holds what no URL holds raw (a space, `<`, `"`,
    /// a non-ASCII letter: a decoded `u=https%3A%2F%2Fx.example%2Fa%20b` is "…/a b"): read as a
    /// browser reads it (`BrowserURL`), then those bytes percent-encoded as the URL Standard's
    /// encode sets do (space, `"`, `<`, `>` and non-ASCII everywhere; `` ` `` outside the query;
    /// `{` and `}` before it; `'` in the query of an http(s) URL). A target with none of them is
    /// returned as written, as Opener returns it; nil when a browser would not go to it at all
    /// (a host it refuses, such as "ex ample.com" or "a<b").
    static func asOpened(_ target: String) -> String? {
        let colon = target.firstIndex(of: ":")
        let scheme = colon.map { target[..<$0].lowercased() } ?? ""
        let special = BrowserURL.specialSchemes[scheme] != nil
        // A host a browser refuses (a space, "^", "%00", 256.256.256.256, a port past 65535 …)
        // goes nowhere, however plain the rest of the text is.
        if special, BrowserURL.host(target) == nil { return nil }
        let raw: (UInt8) -> Bool = { $0 == 0x20 || $0 >= 0x7F || $0 == 0x22 || $0 == 0x27 || $0 == 0x3C || $0 == 0x3E || $0 == 0x5C || $0 == 0x60 || $0 == 0x7B || $0 == 0x7D }
        guard target.utf8.contains(where: raw) else { return target }
        if !special, let colon, target[target.index(after: colon)...].hasPrefix("//") {
            // Another scheme's host: a browser refuses one with a space or one of <>"`{}^|\.
            let authority = target[target.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if authority.utf8.contains(where: { $0 == 0x20 || $0 == 0x22 || $0 == 0x3C || $0 == 0x3E || $0 == 0x60 || $0 == 0x7B || $0 == 0x7D || $0 == 0x5E || $0 == 0x7C || $0 == 0x5C }) {
                return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(target.utf8.count + 32)
        let hex = Array("0123456789ABCDEF".utf8)
        // 0: scheme, authority and path; 1: the query; 2: the fragment.
        var part = 0
        for b in BrowserURL.normalized(target).utf8 {
            if b == UInt8(ascii: "?") && part == 0 { part = 1 } else if b == UInt8(ascii: "#") && part < 2 { part = 2 }
            let encoded = b == 0x20 || b >= 0x7F || b == 0x22 || b == 0x3C || b == 0x3E
                || (b == 0x60 && part != 1) || ((b == 0x7B || b == 0x7D) && part == 0) || (b == 0x27 && part == 1 && special)
            if encoded {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Schemes a browser never navigates to from a redirect or a wrapper link (script, local
    /// file and in-memory URLs): such a target is not an unwrapped URL.
    static let neverFollowedSchemes: Set<String> = URLInput.scriptOrLocalSchemes.union(["about"])

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
