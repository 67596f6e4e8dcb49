import SwitchyardCore

extension AppSiteAssociation.Explanation {
    /// The explanation as `aasa explain --json` writes it: the decision, the entry that decided,
    /// every step tried and the note.
    public var json: JSONValue {
        .object([
            ("decision", .string(decision.rawValue)),
            ("detail", decidedBy.map { .int($0.detail) } ?? .null), ("entry", decidedBy.map { .int($0.entry) } ?? .null),
            ("steps", .array(steps.map { s in
                .object([("detail", .int(s.detail)), (s.legacyPath ? "path" : "component", .int(s.entry)),
                         ("failed", s.failed.map { .string($0.rawValue) } ?? .null), ("patternTooLarge", .bool(s.patternTooLarge))])
            })),
            ("note", note.map(JSONValue.string) ?? .null),
        ])
    }

    /// The explanation in words, one line per entry tried, then the note and the decision, for
    /// `url` and `appID` in `aasa` (the file it was made from). The lines quote the file and the
    /// URL as they are: escape them before they reach a terminal.
    public func lines(in aasa: AppSiteAssociation, url: String, appID: String) -> [String] {
        var lines: [String] = steps.map { s in
            let entry = aasa.describe(detail: s.detail, entry: s.entry, legacy: s.legacyPath)
            let place = "\(aasa.detailName(s.detail)).\(s.legacyPath ? "paths" : "components")[\(s.entry)]"
            if let failed = s.failed, s.patternTooLarge {
                return "  \(place) \(entry): no — its \"\(failed.rawValue)\" pattern expands to more than \(Glob.maximumSize) characters and wildcards, so it is not compiled and matches nothing [pattern-too-large]"
            } else if let failed = s.failed {
                return "  \(place) \(entry): no — \"\(failed.rawValue)\" does not match"
            }
            return "  \(place) \(entry): matches"
        }
        if let note { lines.append("  \(note)") }
        switch decision {
        case .match: lines.append("match: iOS opens \(url) in \(appID)")
        case .exclude: lines.append("exclude: iOS keeps \(url) in the browser (excluded by \(aasa.detailName(decidedBy!.detail)) entry \(decidedBy!.entry))")
        case .noMatch: lines.append("no_match: iOS does not offer \(url) to \(appID)")
        }
        return lines
    }
}

extension AssetLinks.Explanation {
    /// The explanation as `assetlinks explain --json` writes it.
    public var json: JSONValue {
        .object([
            ("decision", .string(decision.rawValue)), ("statement", statement.map { .int($0) } ?? .null),
            ("rule", rule.map { .int($0) } ?? .null), ("reason", .string(reason)),
        ])
    }

    /// The reason and the decision in words, for `url` and the app `package`. Escape the lines
    /// before they reach a terminal.
    public func lines(url: String, package: String) -> [String] {
        let decided = switch decision {
        case .match: "match: Android 15 opens \(url) in \(package)"
        case .exclude: "exclude: Android 15 keeps \(url) in the browser"
        case .noMatch: "no_match: Android 15 keeps \(url) in the browser"
        case .manifest: "manifest: \(package)'s intent filters decide \(url)"
        case .notAssociated: "not_associated: \(package) is not verified for \(url)"
        }
        return ["  \(reason)", decided]
    }
}
