import SwitchyardCore
import Foundation

/// Checks an app's Info.plist and entitlements (XML or binary plists) for what links depend
/// on: URL schemes, `LSApplicationQueriesSchemes`, associated domains, and agreement of the app's
/// team and bundle IDs with the domain's AASA.
public enum PlistCheck {
    /// Schemes the system or other apps own; an app claiming them is rejected or never opened.
    public static let reservedSchemes: Set<String> = [
        "http", "https", "mailto", "tel", "telprompt", "sms", "facetime", "facetime-audio", "maps", "itms", "itms-apps",
        "itms-services", "file", "ftp", "data", "javascript", "about", "message", "music", "videos", "shortcuts", "prefs", "app-settings",
    ]

    /// The service prefixes an associated-domains entry may use (`applinks:example.com`).
    public static let associatedDomainServices: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]

    /// Parses a plist file (XML or binary) into a dictionary, or gives a finding.
    static func load(_ path: String, _ label: String) -> ([String: Any]?, [Finding]) {
        let bytes: [UInt8]
        do { bytes = try DurableFile.read(path, maximumBytes: maximumBytes) } catch {
            return (nil, [Finding(.error, .io, at: label, error.message)])
        }
        do {
            let value = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            guard let dict = value as? [String: Any] else {
                return (nil, [Finding(.error, .wrongType, at: label, "\(path) must hold a dictionary at the top level")])
            }
            return (dict, [])
        } catch {
            return (nil, [Finding(.error, .plistSyntax, at: label, "\(path) is not a valid XML or binary property list: \(error.localizedDescription)")])
        }
    }

    /// The largest Info.plist or entitlements file read (a real one is a few kilobytes).
    public static let maximumBytes = 16 << 20

    /// RFC 3986 scheme syntax: a letter, then letters, digits, "+", "-" or ".".
    public static func isValidScheme(_ s: String) -> Bool { URLInput.isSchemeName(s) }

    /// Checks the Info.plist at `infoPlist`, the entitlements file if
    /// given, and their agreement with the domain's AASA if given; findings
    /// come errors first. Never throws: an unreadable file is a finding.
    public static func check(infoPlist: String, entitlements: String? = nil, aasa: AppSiteAssociation? = nil) -> [Finding] {
        var findings: [Finding] = []
        let (info, infoFindings) = load(infoPlist, "Info.plist")
        findings += infoFindings
        let bundleID = info?["CFBundleIdentifier"] as? String
        if let info {
            if let types = info["CFBundleURLTypes"] {
                if let types = types as? [Any] {
                    for (i, t) in types.enumerated() {
                        let path = "Info.plist:CFBundleURLTypes[\(i)]"
                        guard let t = t as? [String: Any], let schemes = t["CFBundleURLSchemes"] as? [Any] else {
                            findings.append(Finding(.error, .wrongType, at: path, "each URL type needs a CFBundleURLSchemes array of strings"))
                            continue
                        }
                        for (j, s) in schemes.enumerated() {
                            let sp = "\(path).CFBundleURLSchemes[\(j)]"
                            guard let s = s as? String else {
                                findings.append(Finding(.error, .wrongType, at: sp, "schemes must be strings"))
                                continue
                            }
                            if !isValidScheme(s) {
                                findings.append(Finding(.error, .invalidScheme, at: sp, "\"\(s)\" is not a valid URL scheme (RFC 3986: a letter, then letters, digits, +, - or .)"))
                            } else if reservedSchemes.contains(s.lowercased()) {
                                findings.append(Finding(.error, .reservedScheme, at: sp, "\"\(s)\" belongs to the system; iOS will not route it to your app — use universal links or your own scheme"))
                            }
                        }
                    }
                } else {
                    findings.append(Finding(.error, .wrongType, at: "Info.plist:CFBundleURLTypes", "must be an array of URL type dictionaries"))
                }
            }
            if let queries = info["LSApplicationQueriesSchemes"] {
                if let queries = queries as? [Any] {
                    if queries.count > 50 {
                        findings.append(Finding(.warning, .tooManyQuerySchemes, at: "Info.plist:LSApplicationQueriesSchemes", "\(queries.count) entries; canOpenURL only honours the first 50"))
                    }
                    for (i, q) in queries.enumerated() {
                        if let q = q as? String, isValidScheme(q) { continue }
                        findings.append(Finding(.error, .invalidScheme, at: "Info.plist:LSApplicationQueriesSchemes[\(i)]", "\(q) is not a valid URL scheme"))
                    }
                } else {
                    findings.append(Finding(.error, .wrongType, at: "Info.plist:LSApplicationQueriesSchemes", "must be an array of scheme strings"))
                }
            }
            if let b = bundleID, b.contains("$(") {
                findings.append(Finding(.warning, .unexpandedBundleID, at: "Info.plist:CFBundleIdentifier", "\(b) is a build setting; check the built app's Info.plist to compare it with the AASA"))
            }
        }
        var teamID: String?
        var domains: [String] = []
        if let entitlements {
            let (ent, entFindings) = load(entitlements, "entitlements")
            findings += entFindings
            if let ent {
                if let appID = ent["application-identifier"] as? String, let dot = appID.firstIndex(of: ".") { teamID = String(appID[..<dot]) }
                teamID = teamID ?? (ent["com.apple.developer.team-identifier"] as? String)
                if let list = ent["com.apple.developer.associated-domains"] {
                    if let list = list as? [Any] {
                        for (i, d) in list.enumerated() {
                            let path = "entitlements:com.apple.developer.associated-domains[\(i)]"
                            guard let d = d as? String else {
                                findings.append(Finding(.error, .wrongType, at: path, "entries must be strings like applinks:example.com"))
                                continue
                            }
                            findings += checkAssociatedDomain(d, path)
                            domains.append(d)
                        }
                    } else {
                        findings.append(Finding(.error, .wrongType, at: "entitlements:com.apple.developer.associated-domains", "must be an array of strings"))
                    }
                } else if aasa != nil {
                    findings.append(Finding(.error, .noAssociatedDomains, at: "entitlements", "there is no com.apple.developer.associated-domains entitlement, so iOS never fetches the AASA"))
                }
            }
        }
        if let aasa, let bundleID, !bundleID.contains("$(") {
            let ids = (aasa.applinks?.details ?? []).flatMap(\.appIDs)
            if let teamID {
                let appID = "\(teamID).\(bundleID)"
                if !ids.contains(appID) {
                    findings.append(Finding(.error, .appNotInAasa, at: "aasa", "the AASA's applinks list \(ids.isEmpty ? "no app IDs" : ids.joined(separator: ", ")), not this app (\(appID))"))
                }
                if domains.contains(where: { $0.hasPrefix("webcredentials:") }), !(aasa.webcredentials ?? []).contains(appID) {
                    findings.append(Finding(.warning, .appNotInWebcredentials, at: "aasa.webcredentials", "the app asks for webcredentials but the AASA's webcredentials.apps does not list \(appID)"))
                }
            } else if !ids.contains(where: { $0.hasSuffix("." + bundleID) }) {
                findings.append(Finding(.error, .appNotInAasa, at: "aasa", "no app ID in the AASA ends with the bundle ID \(bundleID)"))
            } else {
                findings.append(Finding(.warning, .teamIDUnknown, at: "aasa", "the team ID is unknown (no entitlements file, or one without application-identifier): only the bundle ID \(bundleID) was compared with the AASA's app IDs; give --entitlements to compare the whole app ID"))
            }
        }
        return findings.stablePartitioned()
    }

    static func checkAssociatedDomain(_ entry: String, _ path: String) -> [Finding] {
        guard let colon = entry.firstIndex(of: ":") else {
            return [Finding(.error, .invalidAssociatedDomain, at: path, "\"\(entry)\" needs a service prefix: applinks:, webcredentials:, appclips: or activitycontinuation:")]
        }
        let service = String(entry[..<colon])
        var rest = entry[entry.index(after: colon)...]
        guard associatedDomainServices.contains(service) else {
            return [Finding(.error, .invalidAssociatedDomain, at: path, "unknown service \"\(service)\"; use applinks, webcredentials, appclips or activitycontinuation")]
        }
        var findings: [Finding] = []
        if let q = rest.firstIndex(of: "?") {
            let mode = rest[q...]
            if !["?mode=developer", "?mode=managed", "?mode=developer+managed"].contains(String(mode)) {
                findings.append(Finding(.error, .invalidMode, at: path, "\"\(mode)\" is not a mode; use ?mode=developer, ?mode=managed or ?mode=developer+managed"))
            } else if mode.contains("developer") {
                findings.append(Finding(.warning, .developerMode, at: path, "?mode=developer bypasses Apple's CDN and only works on devices with developer mode; remove it for release"))
            }
            rest = rest[..<q]
        }
        if rest.hasPrefix("//") || rest.contains("/") {
            findings.append(Finding(.error, .invalidAssociatedDomain, at: path, "\"\(entry)\" must name a host only (applinks:example.com), without scheme or path"))
        } else {
            let host = rest.hasPrefix("*.") ? rest.dropFirst(2) : rest
            let ok = !host.isEmpty && host.contains(".") && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == ":") }
            if !ok { findings.append(Finding(.error, .invalidAssociatedDomain, at: path, "\"\(rest)\" is not a host name")) }
        }
        return findings
    }
}
