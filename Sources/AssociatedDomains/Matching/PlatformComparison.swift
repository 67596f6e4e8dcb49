import Foundation
import LinkRouting
import SwitchyardCore

/// What iOS and Android 15 decide for the same URLs, side by side: the association files made
/// from one route table (or the ones a site serves) asked the same questions.
///
/// ```swift
/// let rows = PlatformComparison.compare(PlatformComparison.sampleURLs(router), aasa: aasa, appID: id,
///                                       assetLinks: links, package: "com.example.app", hosts: router.hosts)
/// rows.filter(\.disagree)   // the URLs one platform opens in the app and the other does not
/// ```
public enum PlatformComparison {
    /// One URL's decisions: the router's, iOS's and Android 15's.
    public struct Row: Sendable, Equatable {
        /// The URL asked about.
        public var url: String
        /// What the route table does with it (nil when compared without one).
        public var router: RouteCoverage.RouterAnswer?
        /// What iOS does (``AppSiteAssociation/Decision``).
        public var ios: AppSiteAssociation.Decision
        /// What Android 15 does.
        public var android: AssetLinks.Decision
        /// The route the URL has the shape of, when the router refuses it only for a parameter's
        /// type (``RouteCoverage/widerRoute(_:_:)``), with those types.
        public var widerThan: String?

        /// A row; `widerThan` names the route and types when both platforms open a URL the
        /// router refuses only for a parameter's type.
        public init(url: String, router: RouteCoverage.RouterAnswer? = nil, ios: AppSiteAssociation.Decision, android: AssetLinks.Decision, widerThan: String? = nil) {
            (self.url, self.router, self.ios, self.android, self.widerThan) = (url, router, ios, android, widerThan)
        }

        var iosOpens: Bool { ios == .match }
        /// `manifest` (the intent filters decide) is counted as opening, as a generated manifest would.
        var androidOpens: Bool { android == .match || android == .manifest }

        /// How the answers compare.
        public enum Verdict: String, Sendable {
            /// All agree: the app opens on both platforms exactly when a route takes the URL.
            case same
            /// Both platforms open a URL the router refuses only for a parameter's type, which no
            /// association file can say (an int, a UUID's hex digits, an embedded URL).
            case wider
            /// One platform opens the URL in the app and the other does not, or both do the
            /// opposite of the router.
            case differ = "DIFFER"
        }

        /// The rows's verdict.
        public var verdict: Verdict {
            if iosOpens != androidOpens { return .differ }
            guard let router else { return .same }
            if router.opensApp == iosOpens { return .same }
            return iosOpens && widerThan != nil ? .wider : .differ
        }

        /// True when the verdict is `DIFFER`.
        public var disagree: Bool { verdict == .differ }

        /// The row as `routes platforms --json` writes it.
        public var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = [("url", .string(url))]
            if let router {
                switch router {
                case .route(let name): members.append(("router", .object([("route", .string(name)), ("excluded", .bool(false))])))
                case .excluded(let name): members.append(("router", .object([("route", .string(name)), ("excluded", .bool(true))])))
                case .none(let reason): members.append(("router", .object([("route", .null), ("reason", .string(reason))])))
                }
            }
            members += [("ios", .string(ios.rawValue)), ("android", .string(android.rawValue)), ("verdict", .string(verdict.rawValue)), ("disagree", .bool(disagree))]
            if let widerThan { members.append(("widerThan", .string(widerThan))) }
            return .object(members)
        }

        /// The row as one aligned line: the verdict, the three answers, the URL (escape it
        /// before it reaches a terminal).
        public var line: String {
            func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: max(n, s.count), withPad: " ", startingAt: 0) }
            let routed = router.map { "router " + pad($0.label, 20) + "  " } ?? ""
            return "\(pad(verdict.rawValue, 6))  \(routed)ios \(pad(ios.rawValue, 8))  android \(pad(android.rawValue, 14))  \(url)" + (widerThan.map { "  (\($0))" } ?? "")
        }
    }

    /// What the two platforms decide for `urls` (by default ``sampleURLs(_:)``) on the route
    /// table's hosts, with the files a site serves where given, else the ones generated from
    /// `router` (as `aasa generate` and `assetlinks generate --routes` make them). The app is
    /// `appID` and `package`, or the files' first app (a placeholder for a generated file).
    public static func compare(router: LinkRouter, aasa: AppSiteAssociation?, appID: String?, assetLinks: AssetLinks?, package: String?,
                               urls: [String] = []) -> [Row] {
        let id = appID ?? aasa.map { $0.applinks?.details.first?.appIDs.first ?? "" } ?? "ABCDE12345.example.app"
        let association = aasa ?? AppSiteAssociation.read(AssociationGenerator.appSiteAssociation(router: router, appIDs: [id])).0!
        let app = package ?? assetLinks.map { $0.statements.compactMap(\.target.packageName).first ?? "" } ?? "com.example.app"
        let links = assetLinks ?? AssociationGenerator.assetLinks(packageName: app, fingerprints: [], router: router)
        let layout = RuleLayout(router)
        return compare(urls.isEmpty ? RouteCoverage.probeURLs(router) : urls, aasa: association, appID: id, assetLinks: links, package: app, hosts: router.hosts).map { row in
            var row = row
            row.router = RouteCoverage.RouterAnswer(router, row.url)
            if !(row.router?.opensApp ?? true), let (route, types) = RouteCoverage.widerRoute(router, row.url, layout: layout) {
                row.widerThan = "route \(route.name) refuses it: \(types.joined(separator: ", "))"
            }
            return row
        }
    }

    /// The answer for one URL asked about: both decisions, or why it is no URL to decide.
    public enum Answer: Sendable {
        case decided(Row)
        case refused(url: String, problem: String)

        /// One JSON object: the row's, or `{"url", "error": {"code": "invalid-url", "message"}}`.
        public var json: JSONValue {
            switch self {
            case .decided(let row): row.json
            case .refused(let url, let problem): InputLines.refusal(url, (.invalidURL, problem), key: "url")
            }
        }

        /// One line, escaped for a terminal: the row's, or `error: URL: why`.
        public var line: String {
            switch self {
            case .decided(let row): row.line.terminalEscaped
            case .refused(let url, let problem): "error: \(url.terminalEscaped): \(problem)"
            }
        }
    }

    /// ``compare(router:aasa:appID:assetLinks:package:urls:)`` for the URLs among `urls`, with
    /// each text that is none refused in its place (``urlProblem(_:)``); no `urls` asks about the
    /// route table's examples.
    public static func answers(urls: [String], router: LinkRouter, aasa: AppSiteAssociation?, appID: String?, assetLinks: AssetLinks?, package: String?) -> [Answer] {
        let problems = urls.map(urlProblem)
        let decided = zip(urls, problems).compactMap { $1 == nil ? $0 : nil }
        var rows = (decided.isEmpty && !urls.isEmpty ? [] : compare(router: router, aasa: aasa, appID: appID, assetLinks: assetLinks, package: package, urls: decided))[...]
        if urls.isEmpty { return rows.map(Answer.decided) }
        return zip(urls, problems).compactMap { url, problem in problem.map { .refused(url: url, problem: $0) } ?? rows.popFirst().map(Answer.decided) }
    }

    /// `N URLs, D where the router, iOS and Android 15 disagree[, W wider than a route's type][; R not a URL]`,
    /// and whether any disagreed or was refused.
    public static func summary(_ answers: [Answer]) -> (line: String, failed: Bool) {
        let rows = answers.compactMap { if case .decided(let row) = $0 { row } else { nil } }
        let (differ, refused) = (rows.filter(\.disagree).count, answers.count - rows.count)
        let wider = rows.filter { $0.verdict == .wider }.count
        return ("\(rows.count) URL\(rows.count == 1 ? "" : "s"), \(differ) where the router, iOS and Android 15 disagree"
                + (wider > 0 ? ", \(wider) opened by both platforms though a route's type refuses it" : "") + (refused > 0 ? "; \(refused) not a URL" : ""),
                differ > 0 || refused > 0)
    }

    /// Why `url` cannot be decided, or nil: text that is no absolute URL, or a web URL with no
    /// host a browser would go to (`https://`, `http://[::1`).
    public static func urlProblem(_ url: String) -> String? {
        if let problem = URLInput.problem(url) { return problem }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        return (scheme == "http" || scheme == "https") && BrowserURL.host(url) == nil ? "the URL has no host a browser would go to" : nil
    }

    /// Why `appID` or `package` cannot be asked about in the served files given, or nil: an app
    /// the file does not name would make every URL stay on the web, which says nothing.
    public static func appProblem(aasa: AppSiteAssociation?, appID: String?, assetLinks: AssetLinks?, package: String?) -> String? {
        if let aasa, let appID {
            let listed = AASAComparison.appIDs(aasa)
            if !listed.contains(appID) { return "--app-id \(appID) is not in the AASA (it lists \(listed.isEmpty ? "none" : listed.joined(separator: ", ")))" }
        }
        if let assetLinks, let package {
            let named = assetLinks.statements.compactMap(\.target.packageName)
            if !named.contains(package) { return "--package \(package) is not in the assetlinks.json (it names \(named.isEmpty ? "none" : named.joined(separator: ", ")))" }
        }
        return nil
    }

    /// Both decisions for each of `urls`, with both files served on each of `hosts` (the route
    /// table's hosts: the canonical one and its aliases). A URL on another host reaches neither
    /// file: iOS `no_match`, Android `not_associated`. With no hosts, every URL's own host is
    /// taken as one the files are served on.
    public static func compare(_ urls: [String], aasa: AppSiteAssociation, appID: String, assetLinks: AssetLinks, package: String, hosts: [String]) -> [Row] {
        let served = Set(hosts.map { $0.lowercased() })
        return urls.map { url in
            guard let host = BrowserURL.host(url) else {
                return Row(url: url, ios: aasa.decide(url, for: appID), android: assetLinks.decide(url, package: package))
            }
            if !served.isEmpty, !served.contains(host) {
                return Row(url: url, ios: .noMatch, android: .notAssociated)
            }
            return Row(url: url, ios: aasa.decide(url, for: appID, domain: host), android: assetLinks.decide(url, package: package))
        }
    }

    /// URLs to ask about: for each universal route, its example URL, the same with a query
    /// parameter no route reads (as iOS 18's AdAttributionKit re-engagement adds), and for each
    /// excluded route its example too.
    public static func sampleURLs(_ router: LinkRouter) -> [String] {
        var urls: [String] = []
        for route in router.routes where route.kind == .universal {
            guard let url = RouteCoverage.sampleURL(router, route) else { continue }
            urls.append(url)
            if !route.exclude { urls.append(url + (url.contains("?") ? "&" : "?") + "sy_extra=1") }
        }
        var seen = Set<String>()
        return urls.filter { seen.insert($0).inserted }
    }
}
