import Foundation
import SwitchyardCore

/// A request to the Firebase Dynamic Links REST API's `POST /v1/shortLinks`, read from the body
/// Google documents: a `longDynamicLink`, or a `dynamicLinkInfo` object whose fields are the long
/// link's parameters by other names, and an optional `suffix`. Both forms become the same
/// long-link parameters, which ``FirebaseLink`` then checks as it checks a long link.
package struct FirebaseShortLinkRequest: Equatable {
    /// How the short link's path is made.
    package enum Suffix: String, Equatable {
        /// 17 random base62 characters (Google's default, also for `OPTION_UNSPECIFIED`).
        case unguessable = "UNGUESSABLE"
        /// The shortest free random base62 code, from 4 characters up.
        case short = "SHORT"
    }

    /// A Dynamic Links warning: the link was made, and something in the request was not used as written.
    package struct Warning: Equatable, Encodable {
        package var warningCode: String
        package var warningMessage: String
    }

    /// `https://host` (or `https://host/path`) the short link goes under.
    package var prefix: String
    /// The long link's parameters, name and value, as a long link's query gives them.
    package var parameters: [(String, String)]
    package var suffix: Suffix
    /// What was accepted but will not be used as written.
    package var warnings: [Warning] = []

    package static func == (a: Self, b: Self) -> Bool {
        a.prefix == b.prefix && a.suffix == b.suffix && a.warnings == b.warnings
            && a.parameters.map(\.0) == b.parameters.map(\.0) && a.parameters.map(\.1) == b.parameters.map(\.1)
    }

    /// The fields of `dynamicLinkInfo` and the long-link parameter each one is.
    static let infoFields: [(object: String?, field: String, parameter: String)] = [
        (nil, "link", "link"),
        ("androidInfo", "androidPackageName", "apn"), ("androidInfo", "androidFallbackLink", "afl"),
        ("androidInfo", "androidMinPackageVersionCode", "amv"), ("androidInfo", "androidLink", "al"),
        ("iosInfo", "iosBundleId", "ibi"), ("iosInfo", "iosFallbackLink", "ifl"), ("iosInfo", "iosCustomScheme", "ius"),
        ("iosInfo", "iosIpadFallbackLink", "ipfl"), ("iosInfo", "iosIpadBundleId", "ipbi"), ("iosInfo", "iosAppStoreId", "isi"),
        ("iosInfo", "iosMinimumVersion", "imv"),
        ("navigationInfo", "enableForcedRedirect", "efr"),
        ("socialMetaTagInfo", "socialTitle", "st"), ("socialMetaTagInfo", "socialDescription", "sd"),
        ("socialMetaTagInfo", "socialImageLink", "si"),
        ("desktopInfo", "desktopFallbackLink", "ofl"),
        ("googlePlayAnalytics", "utmSource", "utm_source"), ("googlePlayAnalytics", "utmMedium", "utm_medium"),
        ("googlePlayAnalytics", "utmCampaign", "utm_campaign"), ("googlePlayAnalytics", "utmTerm", "utm_term"),
        ("googlePlayAnalytics", "utmContent", "utm_content"), ("googlePlayAnalytics", "gclid", "gclid"),
        ("itunesConnectAnalytics", "at", "at"), ("itunesConnectAnalytics", "ct", "ct"), ("itunesConnectAnalytics", "mt", "mt"),
        ("itunesConnectAnalytics", "pt", "pt"),
    ]

    /// Reads `body`; throws a 400 naming the field for a body that is not one of the two forms.
    package init(_ body: JSONValue) throws(APIError) {
        guard let members = body.objectMembers else { throw Self.invalid("the body must be a JSON object") }
        // `sdkVersion` is the version of Google's SDK that sent the request: read, not used.
        for (key, _) in members where !["longDynamicLink", "dynamicLinkInfo", "suffix", "sdkVersion"].contains(key) {
            throw Self.unknown(key, at: nil)
        }
        suffix = try Self.suffix(body["suffix"])
        switch (body["longDynamicLink"], body["dynamicLinkInfo"]) {
        case (let long?, nil):
            guard let text = long.stringValue else { throw Self.invalid("longDynamicLink must be a string") }
            (prefix, parameters, warnings) = try Self.read(longLink: text)
        case (nil, let info?):
            (prefix, parameters, warnings) = try Self.read(info: info)
        case (.some, .some):
            throw Self.invalid("give longDynamicLink or dynamicLinkInfo, not both")
        case (nil, nil):
            throw Self.invalid("the body needs longDynamicLink or dynamicLinkInfo")
        }
        warnings += Self.unusedParameters(parameters)
    }

    static func invalid(_ message: String) -> APIError { APIError.badRequest(.invalidField, message) }

    /// Google's words for a member its schema lacks, with the member's place.
    static func unknown(_ name: String, at object: String?) -> APIError {
        APIError.badRequest(.unknownField, "Invalid JSON payload received. Unknown name \(JSONWriter.quote(name))\(object.map { " at '\($0)'" } ?? ""): Cannot find field.")
    }

    static func suffix(_ value: JSONValue?) throws(APIError) -> Suffix {
        guard let value, value != .null else { return .unguessable }
        guard let members = value.objectMembers else { throw invalid("suffix must be an object, {\"option\": \"SHORT\" or \"UNGUESSABLE\"}") }
        for (key, _) in members where key != "option" && key != "customSuffix" { throw unknown(key, at: "suffix") }
        if value["customSuffix"] != nil, value["option"]?.stringValue != "CUSTOM" {
            throw invalid("suffix.customSuffix goes only with the option CUSTOM")
        }
        switch value["option"]?.stringValue {
        case nil, "OPTION_UNSPECIFIED", "UNGUESSABLE": return .unguessable
        case "SHORT": return .short
        case "CUSTOM":
            throw invalid("suffix.option CUSTOM is for managed short links; choose a link's code with the links API (POST /api/links with \"code\")")
        case let other?: throw invalid("suffix.option \(JSONWriter.quote(other)) is not SHORT, UNGUESSABLE or OPTION_UNSPECIFIED")
        }
    }

    /// A long link's prefix (everything before `/?`) and its query's parameters.
    static func read(longLink text: String) throws(APIError) -> (String, [(String, String)], [Warning]) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              components.host?.isEmpty == false else {
            throw invalid("Long link is not parsable: \(LinkInput.excerpt(text)) (it must be https://PREFIX/?link=…)")
        }
        guard let query = components.percentEncodedQuery, !query.isEmpty else {
            throw invalid("Cannot shorten \(LinkInput.excerpt(text)): it has no query, so it is no long Dynamic Link (https://PREFIX/?link=…)")
        }
        var warnings: [Warning] = []
        if components.fragment != nil {
            warnings.append(Warning(warningCode: "LINK_WITH_FRAGMENTS", warningMessage: "the long link's #fragment is not part of the short link"))
        }
        let path = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let prefix = "\(scheme)://\(components.percentEncodedHost ?? "")\(components.port.map { ":\($0)" } ?? "")\(path)"
        return (prefix, FirebaseLink.queryPairs(query), warnings)
    }

    /// `dynamicLinkInfo`'s prefix and its fields as long-link parameters.
    static func read(info: JSONValue) throws(APIError) -> (String, [(String, String)], [Warning]) {
        guard let members = info.objectMembers else { throw invalid("dynamicLinkInfo must be an object") }
        var warnings: [Warning] = []
        let objects: Set<String> = ["androidInfo", "iosInfo", "navigationInfo", "socialMetaTagInfo", "desktopInfo", "analyticsInfo"]
        for (key, _) in members where !objects.contains(key) && !["domainUriPrefix", "dynamicLinkDomain", "link"].contains(key) {
            throw unknown(key, at: "dynamic_link_info")
        }
        for name in ["domainUriPrefix", "dynamicLinkDomain", "link"] {
            if let value = info[name], value != .null, value.stringValue == nil { throw invalid("dynamicLinkInfo.\(name) must be a string, not \(value.typeName)") }
        }
        let prefix: String
        switch (info["domainUriPrefix"]?.stringValue, info["dynamicLinkDomain"]?.stringValue) {
        case (let uri?, nil) where !uri.isEmpty:
            prefix = uri.hasSuffix("/") ? String(uri.dropLast()) : uri
        case (nil, let domain?) where !domain.isEmpty:
            prefix = "https://" + domain
            warnings.append(Warning(warningCode: "DEPRECATED_PARAM", warningMessage: "dynamicLinkDomain is deprecated; give domainUriPrefix (https://\(domain))"))
        default:
            throw invalid("dynamicLinkInfo needs exactly one of domainUriPrefix (https://your.domain) and dynamicLinkDomain")
        }
        // The objects and the analytics' two inner objects, flattened: their fields by name.
        var found: [String: JSONValue] = [:]
        func take(_ object: JSONValue, named name: String) throws(APIError) {
            let path = "dynamicLinkInfo." + (Self.inAnalytics.contains(name) ? "analyticsInfo." : "") + name
            guard let fields = object.objectMembers else { throw invalid("\(path) must be an object") }
            for (field, value) in fields {
                if name == "analyticsInfo" {
                    guard Self.inAnalytics.contains(field) else { throw unknown(field, at: path) }
                    try take(value, named: field)
                    continue
                }
                guard infoFields.contains(where: { $0.object == name && $0.field == field }) else { throw unknown(field, at: path) }
                found[name + "." + field] = value
            }
        }
        for (key, value) in members where objects.contains(key) { try take(value, named: key) }
        var pairs: [(String, String)] = []
        for entry in infoFields {
            let value = entry.object.map { found[$0 + "." + entry.field] } ?? info[entry.field]
            guard let value, value != .null else { continue }
            let name = (entry.object.map { (Self.inAnalytics.contains($0) ? "analyticsInfo." : "") + $0 + "." } ?? "") + entry.field
            switch value {
            case .string(let s) where entry.parameter != "efr": pairs.append((entry.parameter, s))
            case .bool(let b) where entry.parameter == "efr": if b { pairs.append(("efr", "1")) }
            default: throw invalid("dynamicLinkInfo.\(name) must be a \(entry.parameter == "efr" ? "boolean" : "string"), not \(value.typeName)")
            }
        }
        return (prefix, pairs, warnings)
    }

    /// The two objects inside `analyticsInfo`.
    static let inAnalytics: Set<String> = ["googlePlayAnalytics", "itunesConnectAnalytics"]

    /// Warnings for parameters this service accepts and does not use as Firebase did.
    static func unusedParameters(_ pairs: [(String, String)]) -> [Warning] {
        var warnings: [Warning] = []
        let given = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        for (name, _) in pairs where !FirebaseLink.known.contains(name) {
            warnings.append(Warning(warningCode: "UNRECOGNIZED_PARAM", warningMessage: "\(name) is not a Dynamic Links parameter; it is not kept"))
        }
        if let amv = given["amv"], !amv.isEmpty {
            if !amv.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                warnings.append(Warning(warningCode: "NOT_INTEGER_ANDROID_PACKAGE_MIN_VERSION", warningMessage: "amv \(JSONWriter.quote(amv)) is not an integer"))
            }
            if given["apn"]?.isEmpty ?? true {
                warnings.append(Warning(warningCode: "UNNECESSARY_ANDROID_PACKAGE_MIN_VERSION", warningMessage: "amv is given without apn"))
            }
        }
        if given["ius"] != nil {
            warnings.append(Warning(warningCode: "UNNECESSARY_IOS_URL_SCHEME", warningMessage: "ius is not used: the app opens with the configuration's scheme"))
        }
        if given["al"] != nil {
            warnings.append(Warning(warningCode: "UNNECESSARY_ANDROID_LINK", warningMessage: "al (androidLink) is not used: Android opens link, as iOS does"))
        }
        if let ipfl = given["ipfl"], !ipfl.isEmpty {
            warnings.append(Warning(warningCode: "CODE_UNSPECIFIED", warningMessage: "ipfl (iosIpadFallbackLink) is not kept on short links: an iPad gets what an iPhone gets"))
        }
        if given["gclid"] != nil {
            warnings.append(Warning(warningCode: "DEPRECATED_PARAM", warningMessage: "gclid is deprecated and not kept"))
        }
        if given["efr"] == "1" {
            warnings.append(Warning(warningCode: "CODE_UNSPECIFIED", warningMessage: "efr (enableForcedRedirect) is not kept on short links: the link shows its page, whose buttons lead on"))
        }
        return warnings
    }
}

/// What `POST /v1/shortLinks` answers: the short link, its preview (`?d=1`), and the warnings.
package struct FirebaseShortLinkResponse: Encodable {
    package var shortLink: String
    package var previewLink: String
    package var warning: [FirebaseShortLinkRequest.Warning]

    package init(shortLink: String, warning: [FirebaseShortLinkRequest.Warning]) {
        self.shortLink = shortLink
        previewLink = shortLink + "?d=1"
        self.warning = warning
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(shortLink, forKey: .shortLink)
        try c.encode(previewLink, forKey: .previewLink)
        // As Google's API writes it: no member for an empty list.
        if !warning.isEmpty { try c.encode(warning, forKey: .warning) }
    }

    enum CodingKeys: String, CodingKey { case shortLink, previewLink, warning }
}

/// What `GET /v1/{shortLink}/linkStats` answers: counts by platform and event, as strings
/// (int64 in Google's JSON); no member when there is nothing to count.
package struct FirebaseLinkStats: Encodable {
    package struct Stat: Encodable, Equatable {
        package var platform: String
        package var event: String
        package var count: String

        package init(platform: String, event: String, count: String) { (self.platform, self.event, self.count) = (platform, event, count) }
    }

    package var linkEventStats: [Stat]

    package init(_ stats: [Stat]) { linkEventStats = stats }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !linkEventStats.isEmpty { try c.encode(linkEventStats, forKey: .linkEventStats) }
    }

    enum CodingKeys: String, CodingKey { case linkEventStats }
}
