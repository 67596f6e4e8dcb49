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
            componentValues.append(.object(members + [("comment", .string(c.comment))]))
        }
        // `percentEncoded: false`: iOS decodes the URL before comparing, as the router and
        // Android's dynamic rules do, so `/%61` is `/a` on all three and patterns keep the
        // route's own characters (`/café/?*`).
        var top: [(key: String, value: JSONValue)] = [
            ("applinks", .object([("defaults", .object([("percentEncoded", .bool(false))])),
                                  ("details", .array([.object([("appIDs", .array(appIDs.map(JSONValue.string))), ("components", .array(componentValues))])]))])),
        ]
        if webcredentials { top.append(("webcredentials", .object([("apps", .array(appIDs.map(JSONValue.string)))]))) }
        if !appClips.isEmpty { top.append(("appclips", .object([("apps", .array(appClips.map(JSONValue.string)))]))) }
        return .object(top)
    }

    /// The components both platforms' files are made of, in the order they are tried: first an
    /// exclusion for each `reserved` path a taking component would cover, then the routes'
    /// patterns grouped by how many path segments a URL has, longest first (``RuleLayout``).
    /// Entries with the same pattern share one, named together in `comment`. `android` adds
    /// the trailing-slash forms Android needs (iOS drops a trailing slash before comparing).
    static func universalComponents(router: LinkRouter, reserved: [(pattern: String, sample: String)], android: Bool = false) -> [(rule: AssetLinks.DynamicRule, comment: String)] {
        var components: [(rule: AssetLinks.DynamicRule, names: [String], comment: String?)] = []
        for entry in RuleLayout(router).entries(android: android) {
            if let i = components.firstIndex(where: { $0.rule.path == entry.rule.path && $0.rule.query == entry.rule.query }) {
                // The earlier entry decides every URL this one could: it adds nothing.
                if components[i].rule.exclude == entry.rule.exclude, let name = entry.route, !components[i].names.contains(name) { components[i].names.append(name) }
                continue
            }
            components.append((entry.rule, entry.route.map { [$0] } ?? [], entry.route == nil ? entry.comment : nil))
        }
        let taking = components.filter { !$0.rule.exclude }.compactMap(\.rule.path).map { Glob($0) }
        // Android compares the path as sent: `/healthz/` and `/api` reach the server's own pages
        // too (iOS drops the trailing slash, and `/api/*` covers `/api` there).
        let exclusions = reserved.filter { r in taking.contains { $0.matches(r.sample) } }.flatMap { r in
            let forms = !android ? [r.pattern]
                : r.pattern.hasSuffix("/*") ? [r.pattern, String(r.pattern.dropLast(2))] : r.pattern.hasSuffix("*") ? [r.pattern] : [r.pattern, r.pattern + "/"]
            return forms.map { (rule: AssetLinks.DynamicRule(path: $0, exclude: true), comment: "the server's own path, never the app's") }
        }
        let named = (exclusions + components.map { c in
            (rule: c.rule, comment: c.comment ?? ((c.names.count == 1 ? "route " : "routes ") + c.names.joined(separator: ", ")))
        })
        guard android else { return named }
        // A doubled slash is one slash to the router and iOS (`//admin` is `/admin`), not to
        // Android, where a parameter's `?*` could take it and open the app for a path an exclusion
        // covers: on Android each exclusion also covers its spellings with one slash doubled.
        return named.flatMap { entry -> [(rule: AssetLinks.DynamicRule, comment: String)] in
            guard entry.rule.exclude, let path = entry.rule.path, path.hasPrefix("/"), !path.contains("//"), path != "/" else { return [entry] }
            let slashes = path.indices.filter { path[$0] == "/" }
            return [entry] + slashes.map { i in
                var doubled = entry.rule
                doubled.path = String(path[..<i]) + "/" + String(path[i...])
                return (doubled, entry.comment)
            }
        }
    }

    /// Android 15 dynamic rules equivalent to the AASA components generated from the same routes
    /// (``appSiteAssociation(router:appIDs:webcredentials:appClips:reserved:)``), in the same order:
    /// on both platforms the first matching entry decides and a URL no entry matches stays in
    /// the browser. Where the two cannot agree, see ``platformDifferences(router:)``.
    public static func dynamicRules(router: LinkRouter, reserved: [(pattern: String, sample: String)] = []) -> AssetLinks.DynamicRules {
        AssetLinks.DynamicRules(rules: universalComponents(router: router, reserved: reserved, android: true).map(\.rule))
    }

    /// Why the association files cannot be made from `router`, one message per route: path text
    /// with `*`, `?` or `$(` in it, which association-file patterns read as a wildcard or (on
    /// iOS) a variable, so no file could hand exactly that path to the app.
    public static func patternTextProblems(_ router: LinkRouter) -> [String] {
        router.routes.enumerated().compactMap { i, route in
            guard route.kind == .universal else { return nil }
            for case .literal(let text) in route.segments where text.contains("*") || text.contains("?") || text.contains("$(") {
                return "routes[\(i)] (\(route.name)): the path text \(JSONWriter.quote(text)) holds *, ? or $(, which association-file patterns read as a wildcard or a variable, so no AASA or assetlinks.json can hand exactly this path to the app; choose other text"
            }
            return nil
        }
    }

    /// Where iOS and Android 15 may decide a generated entry differently: Android has no
    /// `caseSensitive`, `percentEncoded` or substitution variables and compares decoded text, and
    /// before Android 15 (or without Google services) the app's intent filters decide instead.
    public static func platformDifferences(router: LinkRouter) -> [Finding] {
        var findings = [Finding(.warning, .platformDifference, at: "routes",
                                "Android 14 and lower ignore dynamic rules: there the app's intent filters decide, so keep them as narrow as the routes")]
        for (i, route) in router.routes.enumerated() where route.kind == .universal {
            let pattern = pathPattern(route)
            let widened = RuleLayout.Shape(route).widened
            if !widened.isEmpty {
                findings.append(Finding(.warning, .platformDifference, at: "routes[\(i)]",
                                        "route \(route.name): its enums have more than \(RuleLayout.Shape.mostCombinations) combinations, so \(widened.map { $0.hasPrefix("?") ? $0 : "{\($0)}" }.joined(separator: ", ")) is written as any text (*): both platforms open the app for other values too"))
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
