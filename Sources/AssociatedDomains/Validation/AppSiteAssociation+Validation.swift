import SwitchyardCore
extension AppSiteAssociation {
    /// Every problem in a file: syntax, shape, app IDs, unreachable or useless patterns, size.
    /// Never traps, whatever the bytes.
    public static func validate(bytes: [UInt8]) -> [Finding] {
        var findings: [Finding] = []
        if bytes.count > maximumBytes {
            findings.append(Finding(.error, .fileTooLarge, at: "$", "the file is \(bytes.count) bytes; iOS ignores files over \(maximumBytes) bytes (128 KB) — use components with wildcards instead of listing paths"))
        }
        let (aasa, readFindings) = read(bytes: bytes)
        findings += readFindings
        if let aasa { findings += aasa.semanticFindings() }
        return findings.stablePartitioned()
    }

    /// Findings for one app ID (`TEAMID.bundle.id`): placeholders, missing or malformed team
    /// ID, malformed bundle ID. `path` says where it came from.
    public static func validate(appID: String, at path: String = "appID") -> [Finding] {
        AppIDCheck.check(appID, at: path)
    }

    /// Why `teamID` alone is no team ID (10 upper-case ASCII letters or digits), or nil.
    public static func teamIDProblem(_ teamID: String) -> String? {
        AppIDCheck.isTeamID(teamID[...]) ? nil : "\(JSONWriter.quote(teamID)) is not a team ID: it is 10 upper-case letters or digits (Membership details in the developer account)"
    }

    /// Checks that need the whole model.
    func semanticFindings() -> [Finding] {
        var findings: [Finding] = []
        if applinks == nil && webcredentials == nil && appclips == nil && activitycontinuation == nil {
            findings.append(Finding(.error, .missingApplinks, at: "$", "the file has none of applinks, webcredentials, appclips, activitycontinuation: it associates nothing"))
        } else if applinks == nil {
            findings.append(Finding(.warning, .missingApplinks, at: "$", "no \"applinks\" section: no URL of this domain opens an app (fine if you only share web credentials)"))
        }
        for (key, apps) in [("webcredentials", webcredentials), ("appclips", appclips), ("activitycontinuation", activitycontinuation)] {
            for (i, id) in (apps ?? []).enumerated() { findings += AppIDCheck.check(id, at: "\(key).apps[\(i)]") }
        }
        guard let applinks else { return findings }
        if let apps = applinks.apps, !apps.isEmpty {
            findings.append(Finding(.warning, .legacyAppsKey, at: "applinks.apps", "\"apps\" must be an empty array (or left out); app IDs belong in details"))
        }
        if applinks.details.isEmpty {
            findings.append(Finding(.warning, .noPatterns, at: "applinks.details", "is empty: no URL of this domain opens an app"))
        }
        for d in applinks.details {
            let path = d.location
            if d.appIDs.isEmpty {
                findings.append(Finding(.error, .noAppIDs, at: path, "the detail lists no app IDs (\"appIDs\" is empty or missing), so no app can claim these links"))
            }
            if applinks.detailsKeyedByAppID {
                // The key is the app ID; its findings point at the member.
                for id in d.appIDs { findings += AppIDCheck.check(id, at: path) }
            } else {
                for (i, id) in d.appIDs.enumerated() { findings += AppIDCheck.check(id, at: "\(path).appIDs[\(i)]") }
            }
            if d.components != nil && d.paths != nil {
                findings.append(Finding(.warning, .pathsAndComponents, at: path, "has both \"paths\" and \"components\": iOS 13+ uses only components, older iOS only paths; keep them equivalent or drop paths"))
            }
            if d.components == nil && d.paths == nil {
                findings.append(Finding(.error, .noPatterns, at: path, "has neither \"components\" nor \"paths\": it matches no URL"))
            }
            if d.components?.isEmpty == true && (d.paths?.isEmpty ?? true) {
                findings.append(Finding(.warning, .noPatterns, at: "\(path).components", "is empty: these apps get no URL of this domain"))
            } else if d.paths?.isEmpty == true && d.components == nil {
                findings.append(Finding(.warning, .noPatterns, at: "\(path).paths", "is empty: these apps get no URL of this domain"))
            }
            if let components = d.components {
                let encoded = d.defaults.percentEncoded ?? applinks.defaults.percentEncoded ?? true
                findings += componentFindings(components, path, d.substitutionVariables, percentEncoded: encoded)
            }
            if let paths = d.paths, d.components == nil { findings += pathFindings(paths, path) }
        }
        return findings
    }

    /// True when a path pattern accepts every path.
    /// Whether a path pattern matches every path: `*`, `/*`, `*/*` (the root alone, `/`, does not).
    static func isCatchAll(_ pattern: String) -> Bool {
        let p = pattern.trimmingStars()
        return pattern.contains("*") && (p.isEmpty || p == "/")
    }

    /// `percentEncoded`: the detail's (or the domain's) setting, which a component may override.
    func componentFindings(_ components: [AppLinks.Component], _ path: String, _ variables: [String: [String]], percentEncoded: Bool = true) -> [Finding] {
        var findings: [Finding] = []
        var catchAll: Int?
        for c in components {
            let cp = "\(path).components[\(c.index)]"
            if let earlier = catchAll {
                findings.append(Finding(.warning, .unreachableComponent, at: cp, "can never apply: components[\(earlier)] before it matches every URL and the first match decides"))
            }
            for (key, pattern) in [("/", c.path), ("#", c.fragment)] {
                if let pattern { findings += variableFindings(pattern, "\(cp).\(key)", variables) }
            }
            // URLs arrive percent-encoded: compared as written, a raw "é" or space never matches.
            if c.percentEncoded ?? percentEncoded, let pattern = c.path, URLParts.encoded(pattern) != pattern {
                findings.append(Finding(.warning, .unencodedPattern, at: "\(cp)./", "\(JSONWriter.quote(pattern)) has characters a URL always carries percent-encoded, and patterns are compared with the URL as sent, so it never matches them; write \(JSONWriter.quote(URLParts.encoded(pattern))), or set \"percentEncoded\": false"))
            }
            switch c.query {
            case .items(let items)?:
                for item in items {
                    findings += variableFindings(item.pattern, "\(cp).?.\(item.name)", variables)
                    if item.pattern == "?" {
                        findings.append(Finding(.warning, .querySingleCharacter, at: "\(cp).?.\(item.name)", "\"?\" matches exactly one character; use \"*\" to accept any value or \"?*\" for a non-empty one"))
                    } else if item.pattern.isEmpty {
                        findings.append(Finding(.warning, .queryEmptyPattern, at: "\(cp).?.\(item.name)", "\"\" matches only when \(item.name) is absent or empty; use \"*\" to accept any value"))
                    }
                }
            case .whole(let s)?: findings += variableFindings(s, "\(cp).?", variables)
            default: break
            }
            // A component that matches every URL (an exclude-everything too) shadows what follows.
            if catchAll == nil && Self.matchesEveryURL(c) { catchAll = c.index }
        }
        if !components.isEmpty, components.allSatisfy(\.exclude) {
            findings.append(Finding(.warning, .onlyExclusions, at: "\(path).components", "every component excludes (with the defaults it takes): no URL of this domain opens these apps"))
        }
        return findings
    }

    /// Whether a component matches any URL at all: every key it has is all wildcards (`*`; an
    /// absent fragment or query item is empty, which `*` matches).
    static func matchesEveryURL(_ c: AppLinks.Component) -> Bool {
        func any(_ p: String) -> Bool { !p.isEmpty && p.allSatisfy { $0 == "*" } }
        guard c.path.map(isCatchAll) ?? true, c.fragment.map(any) ?? true else { return false }
        switch c.query {
        case nil, .voided?: return true
        case .whole(let s)?: return any(s)
        case .items(let items)?: return items.allSatisfy { any($0.pattern) }
        }
    }

    func variableFindings(_ pattern: String, _ path: String, _ variables: [String: [String]]) -> [Finding] {
        var findings: [Finding] = []
        var rest = Substring(pattern)
        while let start = rest.range(of: "$(") {
            guard let close = rest[start.upperBound...].firstIndex(of: ")") else { break }
            let name = String(rest[start.upperBound..<close])
            if !SubstitutionVariables.builtInNames.contains(name) && variables[name] == nil {
                findings.append(Finding(.error, .unknownVariable, at: path, "$(\(name)) is neither a built-in substitution variable nor defined in substitutionVariables; it would only match the literal text"))
            }
            rest = rest[rest.index(after: close)...]
        }
        // A long pattern is too large with no variable in it: it was checked only when it had one.
        if pattern.contains("$(") || pattern.utf8.count > Glob.maximumSize, Glob(pattern, variables: variables).isTooLarge {
            findings.append(Finding(.error, .patternTooLarge, at: path, pattern.contains("$(")
                ? "with its substitution variables the pattern expands to more than \(Glob.maximumSize) characters and wildcards; it is not checked here and matches nothing (use fewer values, or fewer variables inside values)"
                : "the pattern is longer than \(Glob.maximumSize) characters (\(pattern.utf8.count) bytes); it is not checked here and matches nothing"))
        }
        return findings
    }

    func pathFindings(_ paths: [String], _ path: String) -> [Finding] {
        var findings: [Finding] = []
        var catchAll: Int?
        for (i, p) in paths.enumerated() {
            let pp = "\(path).paths[\(i)]"
            let exclude = p.hasPrefix("NOT ")
            let pattern = exclude ? String(p.dropFirst(4)) : p
            if let earlier = catchAll {
                findings.append(Finding(.warning, exclude ? .unreachableNot : .unreachablePath, at: pp, "\(JSONWriter.quote(p)) can never apply: paths[\(earlier)] before it matches every path and the first match decides — put NOT entries first"))
            } else if exclude && !paths[(i + 1)...].contains(where: { !$0.hasPrefix("NOT ") }) {
                findings.append(Finding(.warning, .uselessNot, at: pp, "\(JSONWriter.quote(p)) excludes nothing: no later path would have matched, and unmatched paths are not handled anyway"))
            }
            if Glob(pattern).isTooLarge {
                findings.append(Finding(.error, .patternTooLarge, at: pp, "the pattern is longer than \(Glob.maximumSize) characters (\(pattern.utf8.count) bytes); it is not checked here and matches nothing"))
            }
            if !exclude && Self.isCatchAll(pattern) && catchAll == nil { catchAll = i }
        }
        return findings
    }
}

extension String {
    func trimmingStars() -> String {
        var s = Substring(self)
        while s.hasPrefix("*") { s = s.dropFirst() }
        while s.hasSuffix("*") { s = s.dropLast() }
        if s == "/" { return "/" }
        return String(s)
    }
}

extension Array where Element == Finding {
    /// Errors first, each group in the order found.
    func stablePartitioned() -> [Finding] { filter { $0.severity == .error } + filter { $0.severity == .warning } }
}

import Foundation
