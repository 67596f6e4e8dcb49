import LinkRouting
import SwitchyardCore

/// Builds association files from a route table, so that the app's routes and the web side's
/// files cannot drift apart.
public enum AssociationGenerator {
    /// An apple-app-site-association with one `components` entry per universal-link route (in
    /// table order): literal segments kept, parameters as `*`, required query items as `?*`.
    ///
    /// ```swift
    /// let json = AssociationGenerator.appSiteAssociation(router: router, appIDs: ["ABCDE12345.com.example.app"])
    /// ```
    ///
    /// `reserved` lists paths the app must never take — a server's own pages, its API — each as
    /// an AASA pattern and a sample path: when a route's pattern would take the sample (a
    /// catch-all such as `/{code}`), an `exclude` component for the pattern comes first.
    public static func appSiteAssociation(
        router: LinkRouter, appIDs: [String], webcredentials: Bool = false, appClips: [String] = [],
        reserved: [(pattern: String, sample: String)] = []
    ) -> JSONValue {
        var componentValues: [JSONValue] = []
        for c in universalComponents(router: router, reserved: reserved) {
            guard case .object(let members) = c.rule.json else { continue }
            // iOS compares a path pattern with the URL as sent (percent-encoded); Android's
            // dynamic rules compare decoded text and keep the route's own characters.
            let encoded = members.map { m -> (key: String, value: JSONValue) in
                guard m.key == "/", let pattern = m.value.stringValue else { return m }
                return (m.key, .string(URLParts.encoded(pattern)))
            }
            componentValues.append(.object(encoded + [("comment", .string(c.comment))]))
        }
        var top: [(key: String, value: JSONValue)] = [
            ("applinks", .object([("details", .array([.object([("appIDs", .array(appIDs.map(JSONValue.string))), ("components", .array(componentValues))])]))])),
        ]
        if webcredentials { top.append(("webcredentials", .object([("apps", .array(appIDs.map(JSONValue.string)))]))) }
        if !appClips.isEmpty { top.append(("appclips", .object([("apps", .array(appClips.map(JSONValue.string)))]))) }
        return .object(top)
    }

    /// The components both platforms' files are made of, in table order: first an exclusion for
    /// each `reserved` path a taking route would cover, then one entry per universal-route
    /// pattern (routes with the same pattern share one, named together in `comment`).
    static func universalComponents(router: LinkRouter, reserved: [(pattern: String, sample: String)]) -> [(rule: AssetLinks.DynamicRule, comment: String)] {
        var components: [(rule: AssetLinks.DynamicRule, names: [String])] = []
        for route in router.routes where route.kind == .universal {
            let required = route.query.filter { !$0.optional }.map { AssetLinks.DynamicRule.QueryPattern(name: $0.item, value: "?*") }
            let rule = AssetLinks.DynamicRule(path: pathPattern(route), query: required, exclude: route.exclude)
            if let i = components.firstIndex(where: { $0.rule == rule }) {
                components[i].names.append(route.name)
            } else {
                components.append((rule, [route.name]))
            }
        }
        let taking = components.filter { !$0.rule.exclude }.compactMap(\.rule.path).map { Glob($0) }
        let exclusions = reserved.filter { r in taking.contains { $0.matches(r.sample) } }
            .map { (rule: AssetLinks.DynamicRule(path: $0.pattern, exclude: true), comment: "the server's own path, never the app's") }
        return exclusions + components.map { (rule: $0.rule, comment: ($0.names.count == 1 ? "route " : "routes ") + $0.names.joined(separator: ", ")) }
    }

    /// Android 15 dynamic rules equivalent to the AASA components generated from the same routes
    /// (``appSiteAssociation(router:appIDs:webcredentials:appClips:reserved:)``), in the same order:
    /// on both platforms the first matching entry decides and a URL no entry matches stays in
    /// the browser. Where the two cannot agree, see ``platformDifferences(router:)``.
    public static func dynamicRules(router: LinkRouter, reserved: [(pattern: String, sample: String)] = []) -> AssetLinks.DynamicRules {
        AssetLinks.DynamicRules(rules: universalComponents(router: router, reserved: reserved).map(\.rule))
    }

    /// Where iOS and Android 15 may decide a generated entry differently: Android has no
    /// `caseSensitive`, `percentEncoded` or substitution variables and compares decoded text, and
    /// before Android 15 (or without Google services) the app's intent filters decide instead.
    public static func platformDifferences(router: LinkRouter) -> [Finding] {
        var findings = [Finding(.warning, .platformDifference, at: "routes",
                                "Android 14 and lower ignore dynamic rules: there the app's intent filters decide, so keep them as narrow as the routes")]
        for (i, route) in router.routes.enumerated() where route.kind == .universal {
            let pattern = pathPattern(route)
            if pattern.contains("%") || pattern.unicodeScalars.contains(where: { !$0.isASCII }) {
                findings.append(Finding(.warning, .platformDifference, at: "routes[\(i)]",
                                        "route \(route.name): \(pattern) has escapes or non-ASCII text; iOS compares it percent-encoded, Android decoded, so they may disagree"))
            }
            if pattern.contains("$(") {
                findings.append(Finding(.warning, .platformDifference, at: "routes[\(i)]",
                                        "route \(route.name): \(pattern) reads as a substitution variable on iOS and as literal text on Android"))
            }
        }
        return findings
    }

    /// The AASA path pattern of a route: `/join/{groupId}` → `/join/*`, `/i/{target:url}` → `/i/*`.
    /// A full pattern (`https://links.example/g/{id}`) gives its path (`/g/*`), not its text.
    public static func pathPattern(_ route: Route) -> String {
        var parts: [String] = []
        var embedsURL = false
        for segment in route.segments {
            switch segment {
            case .literal(let text): parts.append(text)
            case .parameter(_, let type):
                parts.append("*")
                if type == .url { embedsURL = true }
            }
        }
        // A url parameter swallows "//": everything after the first parameter's start.
        if embedsURL, let i = parts.firstIndex(of: "*") { parts = Array(parts[...i]) }
        return "/" + parts.joined(separator: "/")
    }

    /// ``assetLinks(packageName:fingerprints:loginCredentials:router:reserved:)`` as the text of
    /// the file, and the errors ``AssetLinks/validate(bytes:)`` finds in it (a malformed package
    /// name or fingerprint: such a file must not be written). A fingerprint as `keytool` or the
    /// Play Console prints it (colons or not, either case) is written as the file wants it.
    package static func assetLinksFile(packageName: String, fingerprints: [String], loginCredentials: Bool, router: LinkRouter?) -> (text: String, errors: [Finding]) {
        var seen: Set<String> = []  // one key given in two forms is written once
        let written = fingerprints.map { AssetLinks.normalizedFingerprint($0) ?? $0 }.filter { seen.insert($0).inserted }
        let text = JSONWriter.pretty(assetLinks(packageName: packageName, fingerprints: written, loginCredentials: loginCredentials, router: router).json)
        return (text, AssetLinks.validate(bytes: Array(text.utf8)).1.filter { $0.severity == .error })
    }

    /// Why a team ID, bundle IDs and App Clip app IDs cannot make the app IDs of an AASA
    /// (`TEAMID.BUNDLEID` each), starting with the option of `aasa generate` it is about
    /// (`--team-id`, `--bundle-id`, `--app-clip`), or nil.
    package static func appIDProblem(teamID: String, bundleIDs: [String], appClips: [String]) -> String? {
        if let problem = AppSiteAssociation.teamIDProblem(teamID) { return "--team-id \(problem)" }
        for (n, id) in bundleIDs.enumerated() {
            if id.hasPrefix(teamID + ".") { return "--bundle-id \(id) starts with the team ID: give the bundle ID alone (--team-id is put in front of it)" }
            if let problem = AppSiteAssociation.validate(appID: "\(teamID).\(id)").first(where: { $0.severity == .error }) {
                return (problem.code == .malformedBundleID ? "--bundle-id: " : "--team-id: ") + problem.message
            }
            if bundleIDs[..<n].contains(id) { return "--bundle-id \(id) is given twice" }
        }
        for clip in appClips {
            if let problem = AppSiteAssociation.validate(appID: clip).first(where: { $0.severity == .error }) { return "--app-clip \(problem.message)" }
        }
        return nil
    }

    /// A Digital Asset Links file granting `handle_all_urls` (and optionally
    /// `get_login_creds`) to a package signed with `fingerprints`.
    /// With `router`, the statement carries the Android 15 dynamic rules of its universal routes
    /// (``dynamicRules(router:reserved:)``).
    public static func assetLinks(packageName: String, fingerprints: [String], loginCredentials: Bool = false,
                                  router: LinkRouter? = nil, reserved: [(pattern: String, sample: String)] = []) -> AssetLinks {
        var relations = ["delegate_permission/common.handle_all_urls"]
        if loginCredentials { relations.append("delegate_permission/common.get_login_creds") }
        // No universal route, no rules: an empty list would be malformed (Android discards it).
        let rules = router.map { dynamicRules(router: $0, reserved: reserved) }.flatMap { $0.rules.isEmpty ? nil : $0 }
        return AssetLinks(statements: [.init(relations: relations, target: .androidApp(packageName: packageName, fingerprints: fingerprints), dynamicRules: rules)])
    }
}

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

    /// Findings: universal routes the AASA does not hand to `appID`, and URLs the AASA hands
    /// to `appID` that no route handles. Sample URLs are built from the patterns.
    public static func check(router: LinkRouter, aasa: AppSiteAssociation, appID: String) -> [Finding] {
        var findings: [Finding] = []
        guard let host = router.hosts.first else {
            return [Finding(.error, .noHosts, at: "routes", "the route table has no hosts, so it has no universal links to check")]
        }
        for (i, route) in router.routes.enumerated() where route.kind == .universal && !route.exclude {
            guard let url = sampleURL(router, route) else { continue }
            let decision = aasa.decide(url, for: appID, domain: host)
            if decision != .match {
                findings.append(Finding(.error, .routeNotCovered, at: "routes[\(i)]", "route \(route.name): iOS would not open \(url) in \(appID) (\(decision.rawValue)); add a component such as {\"/\": \"\(URLParts.encoded(AssociationGenerator.pathPattern(route)))\"}"))
            }
        }
        for detail in aasa.applinks?.details ?? [] where detail.appIDs.contains(appID) {
            let patterns: [(String, String, AppLinks.Component.Query?)]
            if let components = detail.components {
                patterns = components.filter { !$0.exclude }.map { ("\(detail.location).components[\($0.index)]", $0.path ?? "/*", $0.query) }
            } else {
                patterns = (detail.paths ?? []).enumerated().filter { !$0.element.hasPrefix("NOT ") }.map { ("\(detail.location).paths[\($0.offset)]", $0.element, nil) }
            }
            // A wildcard stands for any text: the pattern is backed by a route when one of these
            // values in its wildcards routes (a typed parameter refuses "x" but takes "1").
            var fillers = ["x", "1", "00000000-0000-4000-8000-000000000000"]
            for route in router.routes {
                for case (_, .oneOf(let values)) in route.typedParameters { fillers += values }
            }
            for (path, pattern, query) in patterns {
                var refused: (url: String, reason: String)?
                var backed = false
                for filler in fillers {
                    let url = "https://\(host)" + sample(pattern, filler: filler) + sampleQuery(query, filler: filler)
                    guard aasa.decide(url, for: appID, domain: host) == .match else { continue }  // shadowed by an earlier exclude
                    if case .unmatched(let reason) = router.route(url) {
                        if refused == nil { refused = (url, reason) }
                    } else {
                        backed = true
                        break
                    }
                }
                if !backed, let refused {
                    findings.append(Finding(.error, .urlWithoutRoute, at: path, "the AASA hands \(refused.url) to \(appID) but no route handles it (\(refused.reason)); add a route or narrow the pattern"))
                } else if let refused {
                    // An AASA pattern cannot say "digits only": the app gets such URLs and must
                    // answer them itself (a not-found screen), as no route will.
                    findings.append(Finding(.warning, .patternWiderThanRoute, at: path, "the AASA also hands \(refused.url) to \(appID), which no route takes (\(refused.reason)); the app opens and must show something for it, as association files cannot say what a typed parameter accepts"))
                }
            }
        }
        return findings
    }

    /// A path the pattern matches, with `filler` for each wildcard and variable.
    static func sample(_ pattern: String, filler: String = "x") -> String {
        var p = pattern.hasPrefix("/") || pattern.hasPrefix("*") ? pattern : "/" + pattern
        while let r = p.range(of: "$(") {
            let close = p[r.upperBound...].firstIndex(of: ")") ?? p.endIndex
            p.replaceSubrange(r.lowerBound..<(close == p.endIndex ? close : p.index(after: close)), with: "x")
        }
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

import Foundation
