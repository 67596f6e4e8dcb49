import SwitchyardCore

/// Two copies of one domain's AASA compared by what they decide, not only by their bytes: the
/// file a site serves and the copy Apple's CDN holds (which devices read), or any two versions.
///
/// ```swift
/// let urls = AASAComparison.sampleURLs(site, cdn, domain: "shop.example")
/// let differing = AASAComparison.decisions(site, cdn, urls: urls, domain: "shop.example")
/// ```
public enum AASAComparison {
    /// A URL and app the two copies decide differently.
    public struct Difference: Sendable, Equatable {
        /// The URL.
        public var url: String
        /// The app ID.
        public var appID: String
        /// What the first copy (the site's) decides.
        public var first: AppSiteAssociation.Decision
        /// What the second copy (the CDN's) decides.
        public var second: AppSiteAssociation.Decision
    }

    /// The app IDs either copy lists in `applinks`, sorted.
    public static func appIDs(_ copies: AppSiteAssociation?...) -> [String] {
        Array(Set(copies.flatMap { $0?.applinks?.details.flatMap(\.appIDs) ?? [] })).sorted()
    }

    /// Example URLs on `domain` for every component (or legacy path) of either copy, excluding
    /// ones included: each pattern's wildcards filled with `x`.
    public static func sampleURLs(_ copies: AppSiteAssociation?..., domain: String) -> [String] {
        var urls: [String] = []
        for copy in copies {
            for detail in copy?.applinks?.details ?? [] {
                if let components = detail.components {
                    urls += components.map { "https://\(domain)" + RouteCoverage.sample($0.path ?? "/*") + RouteCoverage.sampleQuery($0.query) }
                } else {
                    urls += (detail.paths ?? []).map { "https://\(domain)" + RouteCoverage.sample($0.hasPrefix("NOT ") ? String($0.dropFirst(4)) : $0) }
                }
            }
        }
        var seen = Set<String>()
        return urls.filter { seen.insert($0).inserted }
    }

    /// Every URL and app whose decision differs between `first` and `second`; a missing copy
    /// (nil: the CDN has none) decides `no_match` for everything.
    public static func decisions(_ first: AppSiteAssociation?, _ second: AppSiteAssociation?, urls: [String], appIDs ids: [String]? = nil, domain: String) -> [Difference] {
        let apps = ids ?? appIDs(first, second)
        var out: [Difference] = []
        for url in urls {
            for app in apps {
                let a = first?.decide(url, for: app, domain: domain) ?? .noMatch
                let b = second?.decide(url, for: app, domain: domain) ?? .noMatch
                if a != b { out.append(Difference(url: url, appID: app, first: a, second: b)) }
            }
        }
        return out
    }

    /// Where two JSON documents differ, as `path: what` lines (objects compared by key, arrays by
    /// position), at most `limit` of them.
    public static func jsonDifferences(_ a: JSONValue, _ b: JSONValue, limit: Int = 50) -> [String] {
        var out: [String] = []
        func walk(_ a: JSONValue, _ b: JSONValue, _ path: String) {
            guard out.count < limit else { return }
            switch (a, b) {
            case (.object(let x), .object(let y)):
                let keysA = x.map(\.key), keysB = y.map(\.key)
                for key in keysA where !keysB.contains(key) { out.append("\(path).\(key): only in the first") }
                for key in keysB where !keysA.contains(key) { out.append("\(path).\(key): only in the second") }
                for key in keysA where keysB.contains(key) { walk(a[key]!, b[key]!, "\(path).\(key)") }
            case (.array(let x), .array(let y)):
                for i in 0..<min(x.count, y.count) { walk(x[i], y[i], "\(path)[\(i)]") }
                if x.count != y.count { out.append("\(path): \(x.count) entries in the first, \(y.count) in the second") }
            default:
                if a != b { out.append("\(path): \(JSONWriter.compact(a).prefix(80)) in the first, \(JSONWriter.compact(b).prefix(80)) in the second") }
            }
        }
        walk(a, b, "$")
        return out
    }
}
