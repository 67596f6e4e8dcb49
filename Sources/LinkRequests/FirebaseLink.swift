import Foundation
import LinkConfiguration
import LinkPages
import LinkRouting
import LinkStorage
import SwitchyardCore

/// A Firebase Dynamic Links long link (`/?link=…&apn=…&ibi=…&…`), read with Firebase's documented
/// parameter names and checked as a link's fields are: `link` and every fallback must be on the
/// configuration's hosts or `service.redirectHosts` (or the stores), so nothing is ever an open
/// redirect. Each problem names the parameter.
package struct FirebaseLink: Equatable {
    /// Every parameter Firebase documented, and what Switchyard does with it (the README's table).
    package static let parameters: [(name: String, use: String)] = [
        ("link", "the link the app opens: the page's \"Open in the app\" (an https link on a configured host) and the last fallback; required"),
        ("apn", "Android package: must be one of the configuration's; its Play Store page is the Android fallback"),
        ("afl", "Android fallback, instead of the Play Store"),
        ("amv", "minimum Android app version: accepted, not used"),
        ("al", "Android link instead of link: accepted, not used (Android opens link, as iOS does)"),
        ("ibi", "iOS bundle ID: must be one of the configuration's"),
        ("isi", "App Store ID (digits): must be one of the configuration's appStoreIds; its App Store page is the iOS fallback"),
        ("ifl", "iOS fallback, instead of the App Store"),
        ("ipfl", "iPad fallback, instead of ifl"),
        ("ipbi", "iPad bundle ID: must be one of the configuration's"),
        ("ius", "iOS custom scheme: accepted, not used (the configuration's scheme is)"),
        ("imv", "minimum iOS app version: accepted, not used"),
        ("ofl", "fallback on other platforms (desktop), instead of link"),
        ("st", "preview title"),
        ("sd", "preview description"),
        ("si", "preview image (http or https)"),
        ("efr", "1: skip the preview page and send the visitor straight to the platform's target (302; on Android, the app's Play Store link carries a deferred-link claim)"),
        ("utm_source", "accepted, not used"), ("utm_medium", "accepted, not used"), ("utm_campaign", "accepted, not used"),
        ("utm_term", "accepted, not used"), ("utm_content", "accepted, not used"), ("gclid", "deprecated by Firebase: accepted, not used"),
        ("at", "App Store affiliate token: accepted, not used"), ("ct", "App Store campaign token: accepted, not used"),
        ("mt", "App Store media type: accepted, not used"), ("pt", "App Store provider token: accepted, not used"),
        ("d", "Firebase's debug flow: accepted, not used"),
    ]
    package static let known = Set(parameters.map(\.name))

    package var link: String
    /// `link` when it can be the page's app link (an https link on a configured host).
    package var deepLink: String?
    package var iOSFallback: String?
    /// `isi`: the App Store ID the link names, for the page's Smart App Banner too.
    package var appStoreID: String?
    package var iPadFallback: String?
    package var androidFallback: String?
    package var webFallback: String?
    package var title: String?
    package var description: String?
    package var image: String?
    package var forceRedirect = false

    /// Reads the parameters (each known one at most once); unknown names are ignored.
    /// A long link's query as name–value pairs, decoded as a form is (`+` is a space, then
    /// percent escapes), as Firebase's servers read it: `st=Summer+rave` is "Summer rave"; a `+`
    /// that means itself is `%2B`.
    package static func queryPairs(_ query: String?) -> [(String, String)] {
        guard let query, !query.isEmpty else { return [] }
        func decode(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            guard let eq = item.firstIndex(of: "=") else { return (decode(item), "") }
            return (decode(item[..<eq]), decode(item[item.index(after: eq)...]))
        }
    }

    package init(_ pairs: [(String, String)], input: LinkInput) throws(APIError) {
        var p: [String: String] = [:]
        for (k, v) in pairs where Self.known.contains(k) {
            // Which of two values counts is a guess readers make differently: each parameter is
            // given once.
            guard p[k] == nil else { throw APIError.badRequest(.invalidField, "\(k) is given more than once; give each parameter once", field: k) }
            p[k] = v
        }
        // The same limits as the links API: a title, a description, any URL.
        for (name, value) in p {
            let maximum = name == "st" ? LinkInput.maximumTitleLength : name == "sd" ? LinkInput.maximumDescriptionLength : LinkInput.maximumURLLength
            guard value.count <= maximum else {
                throw APIError.badRequest(.invalidField, "\(name) is longer than \(maximum) characters (\(value.count))", field: name)
            }
        }
        guard let link = p["link"], !link.isEmpty else {
            throw APIError.badRequest(.missingLink, "a Firebase Dynamic Link needs link (the link the app opens)", field: "link")
        }
        self.link = try input.checkFallback(link, field: "link", requireAllowedHost: true)
        deepLink = try? input.checkDeepLink(self.link, field: "link")
        // An http link of the service's own hosts is its https link to the app (a universal link
        // or App Link is https), as the long link's page reads it.
        if deepLink == nil, self.link.lowercased().hasPrefix("http://"), let host = URLComponents(string: self.link)?.host?.lowercased(),
           input.configuration.router.hosts.contains(where: { $0.lowercased() == host }) {
            deepLink = try? input.checkDeepLink("https://" + self.link.dropFirst("http://".count), field: "link")
        }
        let configuration = input.configuration
        if let apn = p["apn"], !apn.isEmpty {
            guard configuration.android.contains(where: { $0.package == apn }) else {
                throw APIError.fieldProblem(.unknownApp, "apn", "\(JSONWriter.quote(apn)) is not an Android package of this configuration")
            }
            androidFallback = "https://play.google.com/store/apps/details?id=" + apn
        }
        for name in ["ibi", "ipbi"] {
            if let id = p[name], !id.isEmpty, !configuration.apple.contains(where: { $0.bundleID == id }) {
                throw APIError.fieldProblem(.unknownApp, name, "\(JSONWriter.quote(id)) is not an iOS bundle ID of this configuration")
            }
        }
        if let isi = p["isi"], !isi.isEmpty {
            guard isi.utf8.count <= 20, isi.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw APIError.badRequest(.invalidAppStoreID, "isi must be an App Store ID (digits)", field: "isi")
            }
            // Like apn and ibi: a link on your domain names your apps only.
            guard configuration.apple.contains(where: { $0.appStoreID == isi }) else {
                throw APIError.fieldProblem(.unknownApp, "isi", "\(isi) is not an appStoreId of this configuration")
            }
            iOSFallback = "https://apps.apple.com/app/id" + isi
            appStoreID = isi
        }
        func fallback(_ name: String) throws(APIError) -> String? {
            guard let v = p[name], !v.isEmpty else { return nil }
            return try input.checkFallback(v, field: name, requireAllowedHost: true)
        }
        androidFallback = try fallback("afl") ?? androidFallback
        iOSFallback = try fallback("ifl") ?? iOSFallback
        iPadFallback = try fallback("ipfl")
        webFallback = try fallback("ofl")
        if let si = p["si"], !si.isEmpty { image = try input.checkFallback(si, field: "si", requireAllowedHost: false) }
        if let st = p["st"], !st.isEmpty {
            try LinkInput.checkText(st, field: "st")
            title = st
        }
        if let sd = p["sd"], !sd.isEmpty {
            try LinkInput.checkText(sd, field: "sd", lineBreaks: true)
            description = sd
        }
        forceRedirect = p["efr"] == "1"
    }

    /// Where a visitor on this platform goes when the app does not open the link.
    package func target(for audience: LandingPage.Audience, iPad: Bool) -> String {
        switch audience {
        case .iOS: return (iPad ? iPadFallback : nil) ?? iOSFallback ?? link
        case .android: return androidFallback ?? link
        case .desktop: return webFallback ?? link
        }
    }

    /// The link as stored by an import: the code is the short link's path.
    package func storedLink(code: String, now: Date) -> StoredLink {
        var stored = StoredLink(code: code, createdAt: now)
        stored.kind = .fdl
        stored.deepLink = deepLink
        stored.webURL = webFallback ?? link
        stored.appStoreURL = iOSFallback
        stored.playStoreURL = androidFallback
        stored.title = title
        stored.description = description
        stored.imageURL = image
        return stored
    }
}
