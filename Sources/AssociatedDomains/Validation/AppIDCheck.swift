import SwitchyardCore

/// Checks of `TEAMID.bundle.identifier` app IDs.
enum AppIDCheck {
    static let placeholderMarkers = ["TEAMID", "TEAM_ID", "DEVELOPMENT_TEAM", "REPLACE", "YOUR", "XXXXXXXXXX", "<", ">", "$(", "{", "PRODUCT_BUNDLE_IDENTIFIER"]

    /// Findings for one app ID at `path`.
    static func check(_ id: String, at path: String) -> [Finding] {
        let upper = id.uppercased()
        if let marker = placeholderMarkers.first(where: { upper.contains($0) }) {
            return [Finding(.error, .placeholderAppID, at: path, "\(JSONWriter.quote(id)) contains the placeholder \(JSONWriter.quote(marker)); put your real 10-character team ID (Membership details in the developer account) and bundle ID")]
        }
        guard let dot = id.firstIndex(of: ".") else {
            return [Finding(.error, .malformedAppID, at: path, "\(JSONWriter.quote(id)) is not TEAMID.bundle.id: it needs the 10-character team ID, a dot, and the bundle ID")]
        }
        let team = id[..<dot]
        let bundle = id[id.index(after: dot)...]
        var findings: [Finding] = []
        if !isTeamID(team) {
            let looksLikeBundle = team.allSatisfy { $0.isLowercase || $0 == "-" } && bundle.contains(".")
            findings.append(Finding(.error, looksLikeBundle ? .missingTeamID : .malformedAppID, at: path, looksLikeBundle
                ? "\(JSONWriter.quote(id)) looks like a bare bundle ID: prefix it with your 10-character team ID (ABCDE12345.\(id))"
                : "the team ID \(JSONWriter.quote(String(team))) in \(JSONWriter.quote(id)) must be 10 upper-case letters or digits"))
        } else if team.allSatisfy(\.isNumber) {
            findings.append(Finding(.warning, .numericTeamID, at: path, "the team ID \(JSONWriter.quote(String(team))) is all digits; team IDs mix letters and digits — this looks like an App Store ID"))
        }
        let quoted = JSONWriter.quote(String(bundle))
        if bundle.isEmpty {
            findings.append(Finding(.error, .malformedBundleID, at: path, "the bundle ID is empty (\(JSONWriter.quote(id)) ends at the team ID; reverse-DNS, e.g. com.example.app)"))
        } else if !bundle.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) {
            findings.append(Finding(.error, .malformedBundleID, at: path, "the bundle ID \(quoted) may only contain letters, digits, '-' and '.' (reverse-DNS, e.g. com.example.app)"))
        } else if bundle.hasPrefix(".") || bundle.hasSuffix(".") || bundle.contains("..") {
            findings.append(Finding(.error, .malformedBundleID, at: path, "the bundle ID \(quoted) has an empty part (a dot at an end, or two together; reverse-DNS, e.g. com.example.app)"))
        }
        return findings
    }

    /// True for a well-formed team ID: 10 upper-case ASCII letters or digits.
    static func isTeamID(_ team: Substring) -> Bool {
        team.count == 10 && team.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
    }
}
