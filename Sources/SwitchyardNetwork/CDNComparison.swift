import AssociatedDomains
import Foundation
import SwitchyardCore

/// The AASA a site serves against the copy Apple's CDN holds for its domain
/// (`https://app-site-association.cdn-apple.com/a/v1/DOMAIN`), which devices read and which can
/// lag the site's file by days: compared by bytes, by JSON and by what each decides for a list
/// of URLs. `aasa compare` makes one by hand; `serve` compares its own file now and then.
public struct CDNComparison: Sendable {
    /// Where Apple's CDN keeps its copies (the domain is appended).
    public static let appleBase = "https://app-site-association.cdn-apple.com/a/v1/"
    /// The response headers that say how old the CDN's copy is.
    static let ageHeaders: Set<String> = ["age", "cache-control", "last-modified", "date", "etag", "expires"]

    /// The site's answer (nil when the site's copy was given rather than fetched).
    public var site: HostingCheck.Report?
    /// The CDN's answer.
    public var cdn: HostingCheck.Report
    /// The CDN's age headers, names in lower case.
    public var cdnHeaders: [(name: String, value: String)]
    /// Where the two documents differ (empty when either is not JSON).
    public var jsonDifferences: [String] = []
    /// Whether both copies are JSON, so that ``jsonDifferences`` compares them.
    public var comparedJSON = false
    /// The URLs decided.
    public var urls: [String]
    /// Every URL and app the two copies decide differently.
    public var differences: [AASAComparison.Difference]
    /// Why the CDN's copy could not be read (its status or its content), or nil.
    public var cdnProblem: String?

    /// The CDN's copy as JSON and as an AASA, or why it cannot be used.
    public static func read(_ report: HostingCheck.Report) -> Result<(JSONValue, AppSiteAssociation), ReadProblem> {
        guard let status = report.status else { return .failure(.init(report.findings.first?.message ?? "\(report.url) could not be reached")) }
        guard status == 200 else { return .failure(.init("\(report.url) answered \(status)")) }
        guard let value = try? JSONParser.parse(bytes: report.body), let copy = AppSiteAssociation.read(value).0 else {
            return .failure(.init("\(report.url) is not an AASA that can be read"))
        }
        return .success((value, copy))
    }

    /// Why a copy cannot be compared.
    public struct ReadProblem: Error, Sendable {
        /// In words.
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// Compares the copy the site serves at `domain` with the CDN's at `base` + `domain`. The
    /// URLs are `urls`, or when there are none, examples of both copies' components. Fails with
    /// the reason when either cannot be fetched at all.
    public static func compare(domain: String, base: String = appleBase, urls: [String], fetcher: HostingCheck) async -> Result<CDNComparison, ReadProblem> {
        let host = host(ofDomain: domain)
        async let siteReport = fetcher.fetch(HostingCheck.location(of: "https://\(domain)", file: "apple-app-site-association"))
        async let cdnReport = fetcher.fetch((base.hasSuffix("/") ? base : base + "/") + domain)
        let (site, cdn) = await (siteReport, cdnReport)
        for report in [site, cdn] where report.status == nil {
            return .failure(.init(report.findings.first?.message ?? "could not fetch \(report.url)"))
        }
        func parsed(_ report: HostingCheck.Report) -> (JSONValue?, AppSiteAssociation?) {
            guard report.status == 200, let value = try? JSONParser.parse(bytes: report.body) else { return (nil, nil) }
            return (value, AppSiteAssociation.read(value).0)
        }
        let (siteJSON, siteCopy) = parsed(site), (cdnJSON, cdnCopy) = parsed(cdn)
        let asked = urls.isEmpty ? AASAComparison.sampleURLs(siteCopy, cdnCopy, domain: host) : urls
        var comparison = compare(served: siteCopy, cdn: cdn, urls: asked, domain: host)
        comparison.site = site
        if let siteJSON, let cdnJSON { comparison.jsonDifferences = AASAComparison.jsonDifferences(siteJSON, cdnJSON) }
        comparison.comparedJSON = siteJSON != nil && cdnJSON != nil
        return .success(comparison)
    }

    /// Why `url` cannot be decided by the files of `domain` (`HOST[:PORT]`), or nil: text that is
    /// no absolute URL, or a URL on another host, which both copies would leave alone and so
    /// "agree" on whatever they say.
    public static func urlProblem(_ url: String, domain: String) -> String? {
        if HostingCheck.withoutCredentials(url) != url { return "holds a user name or password: devices ask without any" }
        if let problem = URLInput.problem(url) { return problem }
        guard let urlHost = BrowserURL.host(url), urlHost == host(ofDomain: domain) else {
            return "not on \(domain): only \(domain)'s URLs are decided by its file"
        }
        return nil
    }

    /// The host of `domain` (`HOST[:PORT]`, `[::1]:8443` too) as browsers send it.
    static func host(ofDomain domain: String) -> String { BrowserURL.host("https://\(domain)/") ?? domain.lowercased() }

    /// Why `domain` is not `HOST[:PORT]` as browsers send it (lower case, a Unicode host as its
    /// punycode, a port from 1 to 65535), or nil. The domain goes into the CDN's path as it is.
    public static func domainProblem(_ domain: String) -> String? {
        let general = "DOMAIN must be a host name such as shop.example, with a port if need be (no scheme, user, path or fragment)"
        guard !domain.isEmpty, let parts = URLComponents(string: "https://\(domain)/"), parts.user == nil, parts.password == nil,
              parts.path == "/", parts.query == nil, parts.fragment == nil, let host = BrowserURL.host("https://\(domain)/"),
              !host.hasPrefix("."), !host.hasSuffix("."), !host.contains("..") else { return general }
        if let port = parts.port, !(1...65535).contains(port) { return "DOMAIN's port \(port) is not from 1 to 65535" }
        let normal = host + (parts.port.map { ":\($0)" } ?? "")
        return normal == domain ? nil : "write DOMAIN as \(normal), the host as browsers send it"
    }

    /// `urls` (a route table's examples, on its own hosts) moved to `domain`'s host, paths and
    /// queries kept, each once: what the route table asks of `domain`'s file.
    public static func moved(_ urls: [String], to domain: String) -> [String] {
        let host = host(ofDomain: domain)
        var seen: Set<String> = []
        return urls.compactMap { url in
            guard var components = URLComponents(string: url) else { return nil }
            (components.scheme, components.host, components.port, components.user, components.password) = ("https", host, nil, nil, nil)
            return components.string.flatMap { seen.insert($0).inserted ? $0 : nil }
        }
    }

    /// Compares `served` (nil: the site serves none) with the CDN's answer `cdn` for `urls` on
    /// `domain`; a CDN copy that cannot be read decides `no_match` everywhere and says why in
    /// ``cdnProblem``.
    public static func compare(served: AppSiteAssociation?, cdn: HostingCheck.Report, urls: [String], domain: String) -> CDNComparison {
        let copy = read(cdn)
        return CDNComparison(
            site: nil, cdn: cdn, cdnHeaders: cdn.headers.filter { ageHeaders.contains($0.name.lowercased()) }.map { ($0.name.lowercased(), $0.value) },
            urls: urls, differences: AASAComparison.decisions(served, try? copy.get().1, urls: urls, domain: domain),
            cdnProblem: { if case .failure(let p) = copy { return p.message } else { return nil } }())
    }

    /// The comparison as one JSON object (`aasa compare --json`); `jsonDifferences` is null
    /// unless both copies are JSON.
    public var json: JSONValue {
        func describe(_ r: HostingCheck.Report) -> JSONValue {
            .object([("url", .string(r.url)), ("status", r.status.map { .int($0) } ?? .null), ("bytes", .int(r.body.count))])
        }
        return .object([
            ("site", site.map(describe) ?? .null), ("cdn", describe(cdn)),
            ("cdnHeaders", .object(cdnHeaders.map { ($0.name, .string($0.value)) })),
            ("sameBytes", .bool(site?.body == cdn.body)), ("jsonDifferences", comparedJSON ? .array(jsonDifferences.map(JSONValue.string)) : .null),
            ("urls", .int(urls.count)),
            ("decisionDifferences", .array(differences.map { d in
                .object([("url", .string(d.url)), ("appId", .string(d.appID)), ("site", .string(d.first.rawValue)), ("cdn", .string(d.second.rawValue))])
            })),
        ])
    }

    /// The comparison in words. It quotes both servers: escape the lines before they reach a terminal.
    public var lines: [String] {
        var lines: [String] = []
        if let site { lines.append("site: \(site.url): \(site.status.map(String.init) ?? "none"), \(site.body.count) bytes") }
        lines.append("cdn:  \(cdn.url): \(cdn.status.map(String.init) ?? "none"), \(cdn.body.count) bytes" + cdnHeaders.map { ", \($0.name) \($0.value)" }.joined())
        lines.append(site?.body == cdn.body ? "bytes: the same" : "bytes: differ")
        if comparedJSON {
            lines.append("json: \(jsonDifferences.isEmpty ? "the same" : "\(jsonDifferences.count) difference\(jsonDifferences.count == 1 ? "" : "s") (first: site, second: CDN)")")
            lines += jsonDifferences.map { "  \($0)" }
        }
        lines.append("decisions: \(urls.count) URLs, \(differences.count) differ")
        lines += differences.map { "  \($0.url) \($0.appID): site \($0.first.rawValue), cdn \($0.second.rawValue)" }
        return lines
    }
}
