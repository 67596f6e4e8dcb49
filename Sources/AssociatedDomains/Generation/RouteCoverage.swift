import Foundation
import LinkRouting
import SwitchyardCore

/// Checks that a route table and an AASA agree, in both directions.
public enum RouteCoverage {
    /// ``check(router:aasa:appID:)`` for each of `appIDs`, in order; no app IDs means every app
    /// the AASA names (sorted). An app ID the AASA does not list is one `unknown-app` finding.
    public static func check(router: LinkRouter, aasa: AppSiteAssociation, appIDs: [String]) -> [Finding] {
        let listed = AASAComparison.appIDs(aasa)
        // An app ID the file does not list: one finding that says so, not every route "not covered".
        let unlisted = appIDs.filter { !listed.contains($0) }.map {
            Finding(.error, .unknownApp, at: "applinks.details", "the AASA lists no app ID \($0) (it lists \(listed.isEmpty ? "none" : listed.joined(separator: ", "))): no URL opens in that app")
        }
        return unlisted + (appIDs.isEmpty ? listed : appIDs.filter(listed.contains)).flatMap { check(router: router, aasa: aasa, appID: $0) }
    }

    /// What the router does with a URL, as the association files should: open the app (a route
    /// that is not excluded takes it) or keep it in the browser.
    public enum RouterAnswer: Sendable, Equatable {
        /// A route that is not excluded takes the URL: the app should open.
        case route(String)
        /// An excluded route takes it: it stays in the browser.
        case excluded(String)
        /// No route takes it (why): it stays in the browser.
        case none(String)

        /// The router's answer for `url`.
        public init(_ router: LinkRouter, _ url: String) {
            switch router.route(url) {
            case .matched(let m): self = router.routes[m.index].exclude ? .excluded(m.route) : .route(m.route)
            case .unmatched(let reason): self = .none(reason)
            }
        }

        /// True when the app should open.
        public var opensApp: Bool { if case .route = self { true } else { false } }

        /// `route NAME`, `excluded NAME` or `none`.
        public var label: String {
            switch self {
            case .route(let name): "route \(name)"
            case .excluded(let name): "excluded \(name)"
            case .none: "none"
            }
        }
    }

    /// The route whose shape `url` has (`LinkRouter.routesByShape(_:)`, the first that is not
    /// excluded) when the router refuses it only for a parameter's type, and those types:
    /// association files cannot say "digits", "hex" or "a URL", so both platforms open it.
    /// A route ending in `{rest:*}` or `{x:url}` with a parameter before it is also given URLs
    /// where that parameter's text holds slashes, past the longest other route (no pattern keeps
    /// a wildcard to one segment there): such a URL is wider than that route too.
    public static func widerRoute(_ router: LinkRouter, _ url: String) -> (route: Route, types: [String])? {
        widerRoute(router, url, layout: RuleLayout(router))
    }

    /// ``widerRoute(_:_:)`` with the table's patterns worked out once (`layout`), for many URLs.
    static func widerRoute(_ router: LinkRouter, _ url: String, layout: RuleLayout) -> (route: Route, types: [String])? {
        let shaped = router.routesByShape(url)
        guard let route = shaped.first else { return spannedTail(router, url, layout: layout) }
        guard !route.exclude else { return nil }
        var types = route.typedParameters.compactMap { name, type -> String? in
            switch type {
            case .int: "{\(name):int}"
            case .uuid: "{\(name):uuid}"
            case .url: "{\(name):url}"
            default: nil
            }
        }
        // An optional query item's value is never in a pattern (the item may be left out), nor a
        // widened enum's.
        let widened = layout.shape(named: route.name)?.widened ?? []
        types += route.query.filter { q in
            if case .oneOf = q.type { return q.optional || widened.contains("?" + q.item) }
            return false
        }.map { "?\($0.item) (an enum query item)" }
        return types.isEmpty ? nil : (route, types)
    }

    /// The first route with a tail and parameters before it whose pattern takes `url` when
    /// those parameters span several segments, with what spans.
    static func spannedTail(_ router: LinkRouter, _ url: String, layout: RuleLayout) -> (route: Route, types: [String])? {
        guard let parts = URLText.split(url), router.hosts.contains(BrowserURL.sentHost(parts.host, of: url)) else { return nil }
        let path = "/" + parts.path.split(separator: "/").map { PercentText.decode(String($0)) }.joined(separator: "/")
        for shape in layout.shapes {
            let route = shape.route
            // An enum of too many values is written as `?*`: the route's shape with any text there.
            if !shape.widened.isEmpty {
                let count = path.split(separator: "/").count
                let matches = shape.heads.contains { head in
                    shape.tail == nil ? Glob(head.isEmpty ? "/" : head, substitutions: false).matches(path) && count == shape.count
                        : Glob(head + "*", substitutions: false).matches(path) && count >= shape.count
                }
                if matches { return route.exclude ? nil : (route, shape.widened.map { "\($0.hasPrefix("?") ? $0 : "{\($0)}") (an enum of more than \(RuleLayout.Shape.mostCombinations) combinations, written as *)" }) }
            }
            guard shape.tail != nil else { continue }
            let spanning = route.segments.compactMap { segment -> String? in
                guard case .parameter(let name, let type) = segment, type != .rest, type != .url else { return nil }
                if case .oneOf = type { return nil }
                return "{\(name)\(type == .string ? "" : ":" + (type == .int ? "int" : "uuid"))}"
            }
            guard !spanning.isEmpty, shape.heads.contains(where: { Glob($0 + "/*", substitutions: false).matches(path) }) else { continue }
            return route.exclude ? nil : (route, spanning.map { "\($0) (spanning segments before the tail)" })
        }
        return nil
    }

    /// Findings for `appID`: universal routes (and their trailing-slash forms) the AASA does not
    /// hand to the app, and URLs it hands to the app that no route takes. The URLs asked about
    /// are ``probeURLs(_:)`` and, for each component, its pattern filled in. A URL refused only
    /// for a parameter's type (`/p/x` for `/p/{id:int}`) is one `pattern-wider-than-route`
    /// warning per route, naming the type.
    public static func check(router: LinkRouter, aasa: AppSiteAssociation, appID: String) -> [Finding] {
        var findings: [Finding] = []
        guard let host = router.hosts.first else {
            return [Finding(.error, .noHosts, at: "routes", "the route table has no hosts, so it has no universal links to check")]
        }
        let probes = probeURLs(router)
        var uncovered = Set<String>()
        for url in probes {
            guard case .route(let name) = RouterAnswer(router, url), let i = router.routes.firstIndex(where: { $0.name == name }) else { continue }
            let decision = aasa.decide(url, for: appID, domain: servedDomain(router, url))
            if decision != .match, uncovered.insert(name).inserted {
                findings.append(Finding(.error, .routeNotCovered, at: "routes[\(i)]", "route \(name): iOS would not open \(url) in \(appID) (\(decision.rawValue)); generate the file with `switchyard aasa generate`, or add a component such as {\"/\": \"\(URLParts.encoded(AssociationGenerator.pathPattern(router.routes[i])))\"}"))
            }
        }
        // Each probe decided once: which entry (detail, index) hands it to the app.
        var decidedProbes: [String: [String]] = [:]
        for url in probes {
            let e = aasa.explain(url, for: appID, domain: servedDomain(router, url))
            if e.decision == .match, let by = e.decidedBy { decidedProbes["\(by.detail).\(by.entry)", default: []].append(url) }
        }
        let layout = RuleLayout(router)
        // Each component (or legacy path) the app may be handed, with URLs it decides.
        var wider: [String: Finding] = [:]
        var widerOrder: [String] = []
        for detail in aasa.applinks?.details ?? [] where detail.appIDs.contains(appID) {
            let entries: [(location: String, index: Int, pattern: String, query: AppLinks.Component.Query?)]
            if let components = detail.components {
                entries = components.filter { !$0.exclude }.map { ("\(detail.location).components[\($0.index)]", $0.index, $0.path ?? "/*", $0.query) }
            } else {
                entries = (detail.paths ?? []).enumerated().filter { !$0.element.hasPrefix("NOT ") }.map { ("\(detail.location).paths[\($0.offset)]", $0.offset, $0.element, nil) }
            }
            // A wildcard stands for any text: the pattern is backed by a route when one of these
            // values in its wildcards routes (a typed parameter refuses "x" but takes "1").
            var fillers = ["x", "1", "00000000-0000-4000-8000-000000000000"]
            for route in router.routes {
                for case (_, .oneOf(let values)) in route.typedParameters { fillers += values }
            }
            for entry in entries {
                var refused: (url: String, reason: String)?
                var backed = false
                let filled = fillers.map { "https://\(host)" + sample(entry.pattern, filler: $0) + sampleQuery(entry.query, filler: $0) }
                let decided = filled.filter { url in
                    // Only the URLs this entry decides (an earlier one may shadow it).
                    let e = aasa.explain(url, for: appID, domain: servedDomain(router, url))
                    guard e.decision == .match, let by = e.decidedBy else { return false }
                    return by.detail == detail.index && by.entry == entry.index
                } + (decidedProbes["\(detail.index).\(entry.index)"] ?? [])
                for url in decided {
                    let answer = RouterAnswer(router, url)
                    if answer.opensApp {
                        backed = true
                    } else if let (route, types) = widerRoute(router, url, layout: layout) {
                        if wider[route.name] == nil {
                            widerOrder.append(route.name)
                            wider[route.name] = Finding(.warning, .patternWiderThanRoute, at: entry.location,
                                                        "route \(route.name): the AASA also hands \(url) to \(appID), which no route takes (\(reasonText(answer))); association files cannot say what \(types.joined(separator: ", ")) accepts, so the app opens and must show something for it")
                        }
                    } else if refused == nil {
                        refused = (url, reasonText(answer))
                    }
                }
                if let refused {
                    findings.append(Finding(.error, .urlWithoutRoute, at: entry.location, "the AASA hands \(refused.url) to \(appID) but no route takes it (\(refused.reason)); \(backed ? "narrow the pattern" : "add a route or narrow the pattern"), or generate the file with `switchyard aasa generate`"))
                }
            }
        }
        return findings + widerOrder.compactMap { wider[$0] }
    }

    /// The host the file answering `url` is served for: the URL's own when it is one of the
    /// table's hosts, else the first (so a URL on another host reaches no file of ours).
    static func servedDomain(_ router: LinkRouter, _ url: String) -> String? {
        let host = BrowserURL.host(url) ?? ""
        return router.hosts.contains(host) ? host : router.hosts.first
    }

    static func reasonText(_ answer: RouterAnswer) -> String {
        switch answer {
        case .route(let name): "route \(name)"
        case .excluded(let name): "route \(name) is excluded"
        case .none(let reason): reason
        }
    }

    /// URLs that tell whether association files decide as the router does: for every universal
    /// route (in table order) an example, and the near misses a file gets wrong first — with a
    /// trailing slash, the bare prefix (last segment dropped), an extra segment, a letter
    /// percent-encoded, the path in upper case, each typed parameter given a value of the wrong type, without its required
    /// query items, with a query item no route reads, and on another host. Duplicates once.
    public static func probeURLs(_ router: LinkRouter) -> [String] {
        guard let host = router.hosts.first else { return [] }
        var urls: [String] = []
        func add(_ url: String) { urls.append(url) }
        for route in router.routes where route.kind == .universal {
            let good = segments(route, host: host, wrong: nil)
            let query = route.query.filter { !$0.optional }.map { "\($0.item)=\(PercentText.encode(goodValue($0.type, host: host)))" }.joined(separator: "&")
            let q = query.isEmpty ? "" : "?" + query
            let path = "/" + good.joined(separator: "/")
            add("https://\(host)\(path)\(q)")
            if !good.isEmpty {
                add("https://\(host)\(path)/\(q)")
                add("https://\(host)/\(good.dropLast().joined(separator: "/"))\(q)")
                if good.count > 1 { add("https://\(host)/\(good.dropLast().joined(separator: "/"))/\(q)") }
                add("https://\(host)\(path.uppercased())\(q)")
            }
            add("https://\(host)\(good.isEmpty ? "" : path)/extra\(q)")
            // A letter of the route's text percent-encoded (lower-case hex): the same URL to
            // the router and to both platforms.
            if let i = route.segments.firstIndex(where: { if case .literal(let t) = $0 { t.first?.isLetter == true && t.first?.isASCII == true } else { false } }) {
                var parts = good
                let letter = parts[i].removeFirst()
                parts[i] = "%" + String(letter.asciiValue ?? 0, radix: 16) + parts[i]
                add("https://\(host)/" + parts.joined(separator: "/") + q)
            }
            for (index, segment) in route.segments.enumerated() {
                guard case .parameter(_, let type) = segment, type != .string, type != .rest else { continue }
                add("https://\(host)/" + segments(route, host: host, wrong: index).joined(separator: "/") + q)
            }
            for (index, segment) in route.segments.enumerated() {
                guard case .parameter(_, .uuid) = segment else { continue }
                // A UUID-shaped text with a slash in it: two segments to the router, one `?` run to a pattern.
                var parts = good
                parts[index] = "0000000/-0000-4000-8000-000000000000"
                add("https://\(host)/" + parts.joined(separator: "/") + q)
            }
            if !query.isEmpty { add("https://\(host)\(path)") }
            add("https://\(host)\(path)\(q.isEmpty ? "?" : q + "&")sy_extra=1")
            add("https://other.example\(path)\(q)")
        }
        // Where two routes take the same URLs in part (a route's parameter where another has
        // text), the URL with the other's text: the table's order decides it, and the files'
        // order must too (`/recipes/drafts/steps/1` for `/recipes/drafts/{rest:*}` before
        // `/recipes/{id}/steps/{n:int}`). Only routes whose first segments may agree.
        let universal = router.routes.filter { $0.kind == .universal }
        for other in universal {
            for route in universal where route != other && compatible(route.segments.first, other.segments.first) {
                var parts = segments(route, host: host, wrong: nil)
                var changed = false
                for (i, segment) in route.segments.enumerated() where i < other.segments.count && i < parts.count {
                    guard case .parameter(_, let type) = segment, type != .rest, type != .url, case .literal(let text) = other.segments[i] else { continue }
                    parts[i] = PercentText.encode(text)
                    changed = true
                }
                if changed { add("https://\(host)/" + parts.joined(separator: "/")) }
            }
            if urls.count > maximumProbes { break }
        }
        var seen = Set<String>()
        return Array(urls.filter { seen.insert($0).inserted }.prefix(maximumProbes))
    }

    /// The most URLs ``probeURLs(_:)`` makes (a table of thousands of routes would otherwise
    /// ask about millions of overlaps).
    public static let maximumProbes = 20_000

    static func compatible(_ a: Segment?, _ b: Segment?) -> Bool {
        guard case .literal(let x)? = a, case .literal(let y)? = b else { return true }
        return x == y
    }

    /// The path segments of an example URL of `route`, with the parameter at `wrong` given a
    /// value of another type.
    static func segments(_ route: Route, host: String, wrong: Int?) -> [String] {
        route.segments.enumerated().map { index, segment in
            switch segment {
            case .literal(let text): return PercentText.encode(text)
            case .parameter(_, .url): return index == wrong ? "x" : "https://\(host)/"
            case .parameter(_, .rest): return "a/b"
            case .parameter(_, let type):
                if index == wrong {
                    switch type {
                    case .int: return "x"
                    case .uuid: return "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"
                    case .oneOf(let values): return values.joined() + "x"
                    default: return "x"
                    }
                }
                return PercentText.encode(goodValue(type, host: host))
            }
        }
    }

    static func goodValue(_ type: ParameterType, host: String) -> String {
        switch type {
        case .int: "1"
        case .uuid: "00000000-0000-4000-8000-000000000000"
        case .oneOf(let values): values.first ?? "x"
        case .url: "https://\(host)/"
        default: "sample"
        }
    }

    /// A path the pattern matches, with `filler` for each wildcard and variable (a UUID-shaped
    /// run of `?` takes `filler` when it is a UUID).
    static func sample(_ pattern: String, filler: String = "x") -> String {
        var p = pattern.hasPrefix("/") || pattern.hasPrefix("*") ? pattern : "/" + pattern
        while let r = p.range(of: "$(") {
            let close = p[r.upperBound...].firstIndex(of: ")") ?? p.endIndex
            p.replaceSubrange(r.lowerBound..<(close == p.endIndex ? close : p.index(after: close)), with: "x")
        }
        if filler.count == 36 { p = p.replacingOccurrences(of: RuleLayout.Shape.uuidMask, with: filler) }
        // `?*` is one or more characters, `*` any, `?` exactly one: the filler suits the first two.
        p = p.replacingOccurrences(of: "?*", with: filler).replacingOccurrences(of: "*", with: filler).replacingOccurrences(of: "?", with: "x")
        return p.hasPrefix("/") ? p : "/" + p
    }

    static func sampleQuery(_ q: AppLinks.Component.Query?, filler: String = "x") -> String {
        switch q {
        case .items(let items)?: return items.isEmpty ? "" : "?" + items.map { "\($0.name)=\(sample($0.pattern, filler: filler).dropFirst())" }.joined(separator: "&")
        case .whole(let s)?: return s.isEmpty ? "" : "?" + s.replacingOccurrences(of: "?*", with: filler).replacingOccurrences(of: "*", with: filler).replacingOccurrences(of: "?", with: "x")
        default: return ""
        }
    }

    static func sampleURL(_ router: LinkRouter, _ route: Route) -> String? {
        var params: [String: RouteValue] = [:]
        for segment in route.parameterNames {
            params[segment] = .string("sample")
        }
        for case let (name, type) in route.typedParameters {
            switch type {
            case .int: params[name] = .int(1)
            case .uuid: params[name] = .uuid("00000000-0000-4000-8000-000000000000")
            case .oneOf(let values): params[name] = .string(values.first ?? "")
            case .url: params[name] = .string("https://\(router.hosts.first ?? "example.com")/")
            default: break
            }
        }
        return router.url(route: route.name, parameters: params)
    }
}
