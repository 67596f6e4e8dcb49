import Foundation
import HTTPTypes
import LinkConfiguration
import LinkRouting
import LinkStorage
import SwitchyardCore

/// Reads and checks a `POST /api/links` body; every rejection names the field.
package struct LinkInput {
    package let configuration: ServiceConfiguration
    /// Derived from the configuration once; every deep link and fallback is checked against them.
    package let allowedSchemes: Set<String>
    package let allowedRedirectHosts: Set<String>
    /// The code alphabet as a table of ASCII bytes (the configuration allows only ASCII): a code
    /// is checked on every landing-page request.
    private let codeBytes: [Bool]

    package init(configuration: ServiceConfiguration) {
        self.configuration = configuration
        allowedSchemes = configuration.allowedSchemes
        allowedRedirectHosts = configuration.allowedRedirectHosts
        var table = [Bool](repeating: false, count: 128)
        for c in configuration.codeAlphabet { if let a = c.asciiValue { table[Int(a)] = true } }
        codeBytes = table
    }

    /// A link read from a `POST /api/links` body (code empty unless the body chose one), or the
    /// first problem found.
    package func read(_ body: JSONValue, now: Date) throws(APIError) -> StoredLink {
        try read(LinkRequest.decode(body), now: now)
    }

    /// A link from a decoded body, every field checked; the first problem found names its field.
    /// With `webTarget`, a link may have its `webURL` as its only target (one imported at its
    /// old path, whose short link led to a web page).
    package func read(_ body: LinkRequest, now: Date, webTarget: Bool = false) throws(APIError) -> StoredLink {
        var link = StoredLink(code: "", createdAt: now)
        if let code = body.code {
            guard Self.isChosenCode(code) else { throw APIError.badRequest(.invalidCode, Self.chosenCodeProblem(code), field: "code") }
            link.code = code
        }
        link.deepLink = try Self.bounded(body.deepLink, "deepLink")
        link.route = try Self.bounded(body.route, "route")
        for (name, value) in body.parameters?.members ?? [] {
            try Self.checkText(value.text, field: "parameters.\(name)")
            link.parameters.append((name, value.text))
        }
        switch (link.deepLink, link.route) {
        case (nil, nil) where webTarget && body.webURL != nil: break
        case (nil, nil): throw APIError.badRequest(.missingTarget, "give deepLink (a custom-scheme URL) or route (+ parameters)\(webTarget ? ", or webURL" : "")", field: "deepLink")
        case (let d?, nil):
            guard link.parameters.isEmpty else { throw APIError.badRequest(.invalidParameters, "parameters go with route, not with deepLink", field: "parameters") }
            link.deepLink = try checkDeepLink(d, field: "deepLink")
        case (nil, let r?):
            guard let built = deepLink(route: r, parameters: link.parameters) else {
                // An unknown route is the route's fault; a known one's unusable values are the parameters'.
                let problem = routeProblem(r, link.parameters)
                throw APIError.badRequest(problem.field == "route" ? .invalidRoute : .invalidParameters, problem.message, field: problem.field)
            }
            _ = try checkDeepLink(built, field: "route")
            // The link must lead back to the route it was built from: an app (or this service)
            // reads the link, not the route name stored beside it.
            if let back = configuration.router.route(built).match, back.route != r {
                throw APIError.badRequest(.invalidParameters, "route \(r): these parameters build \(Self.excerpt(built)), which is read as route \(back.route); give values route \(r) reads back", field: "parameters")
            }
        case (_?, _?): throw APIError.badRequest(.ambiguousTarget, "give deepLink or route, not both", field: "route")
        }
        for (value, field, path) in [(body.webURL, "webURL", \StoredLink.webURL), (body.appStoreURL, "appStoreURL", \.appStoreURL),
                                     (body.playStoreURL, "playStoreURL", \.playStoreURL), (body.image, "image", \.imageURL),
                                     (body.expiredURL, "expiredURL", \.expiredURL)] {
            if let u = try Self.bounded(value, field) {
                link[keyPath: path] = try checkFallback(u, field: field, requireAllowedHost: field != "image")
            }
        }
        // An empty title or description is none (the configured default is shown), as CSV writes it.
        link.title = try Self.bounded(body.title, "title", maximum: Self.maximumTitleLength).flatMap { $0.isEmpty ? nil : $0 }
        if let title = link.title { try Self.checkText(title, field: "title") }
        link.description = try Self.bounded(body.description, "description", maximum: Self.maximumDescriptionLength).flatMap { $0.isEmpty ? nil : $0 }
        if let description = link.description { try Self.checkText(description, field: "description", lineBreaks: true) }
        if let e = try Self.bounded(body.expiresAt, "expiresAt") {
            let date: Date
            switch Timestamp.parse(e) {
            case .success(let parsed): date = parsed
            case .failure(let problem) where problem.code == .invalidTimestamp: throw APIError.badRequest(.invalidExpiry, "expiresAt must be an RFC 3339 date-time such as 2026-12-31T23:59:00Z", field: "expiresAt")
            case .failure(let problem): throw APIError.badRequest(.invalidExpiry, "expiresAt \(e): \(problem)", field: "expiresAt")
            }
            // A link that is born expired would only ever answer 410.
            guard date > now else {
                throw APIError.badRequest(.invalidExpiry, "expiresAt \(e) is not in the future (now: \(ISO8601DateFormatter().string(from: now)))", field: "expiresAt")
            }
            guard date.timeIntervalSince(now) <= Self.longestLifetime else {
                throw APIError.badRequest(.invalidExpiry, "expiresAt \(e) is more than 10 years ahead", field: "expiresAt")
            }
            link.expiresAt = date
        }
        if let seconds = body.expiresIn {
            guard link.expiresAt == nil else { throw APIError.badRequest(.invalidExpiry, "give expiresAt or expiresIn, not both", field: "expiresIn") }
            guard seconds >= 1, seconds <= Self.longestLifetime else {
                throw APIError.badRequest(.invalidExpiry, "expiresIn must be a number of seconds from 1 to 10 years (\(Int(Self.longestLifetime)))", field: "expiresIn")
            }
            link.expiresAt = now.addingTimeInterval(seconds)
        }
        if let n = body.maxUses {
            guard (1...Self.mostUses).contains(n) else {
                throw APIError.badRequest(.invalidMaxUses, "maxUses must be a whole number from 1 to \(Self.mostUses)", field: "maxUses")
            }
            link.maxUses = n
        }
        if let utm = body.utm { link.campaign = try Self.campaign(utm) }
        if let tags = body.tags { link.tags = try Self.checkTags(tags) }
        // Checked here; hashed by the caller off the event loop (``LinkPassword``).
        if let password = body.password, let problem = LinkPassword.problem(password) {
            throw APIError.badRequest(.invalidPassword, problem, field: "password")
        }
        return link
    }

    /// The longest `utm` value, in characters (what a visit's own `utm_*` keeps).
    package static let maximumCampaignLength = Visit.Campaign.maximumCharacters
    /// Most tags on one link, and the longest tag.
    package static let mostTags = 20, maximumTagLength = 50

    /// A link's campaign from the `utm` member: each value one line of printable text of at most
    /// 200 characters (Unicode scalars), written as a visit's `utm_*` is kept — no spaces around,
    /// no invisible marks — so that a campaign is one group in the stats however it arrives; an
    /// empty or null value is none.
    package static func campaign(_ utm: LinkRequest.UTM) throws(APIError) -> LinkCampaign {
        var campaign = LinkCampaign()
        for (value, name, path) in [(utm.source, "source", \LinkCampaign.source), (utm.medium, "medium", \.medium), (utm.campaign, "campaign", \.campaign),
                                    (utm.term, "term", \.term), (utm.content, "content", \.content)] {
            guard let value, !value.isEmpty else { continue }
            let field = "utm.\(name)"
            let length = value.unicodeScalars.count
            guard length <= maximumCampaignLength else {
                throw APIError.badRequest(.invalidField, "\(field) is \(length) characters (Unicode scalars); at most \(maximumCampaignLength)", field: field)
            }
            try checkText(value, field: field)
            guard let kept = VisitText.cleaned(value), kept == value else {
                let shown = VisitText.cleaned(value).map { "; give \(JSONWriter.quote($0))" } ?? ""
                throw APIError.badRequest(.invalidField, "\(field) has spaces around it or invisible characters (zero-width, direction marks) that a visit's utm_* drops\(shown)", field: field)
            }
            campaign[keyPath: path] = value
        }
        return campaign
    }

    /// A `tag` query parameter, checked as a link's tags are (400 naming `tag`).
    package static func tagFilter(_ value: Substring) throws(APIError) -> String {
        do { return try checkTags([String(value)])[0] } catch { throw APIError.badRequest(.invalidField, error.message, field: "tag") }
    }

    /// Tags as given, each 1–50 characters of lowercase letters, digits and `-`, `_`, `.`, `:`
    /// starting with a letter or digit, at most 20, none twice.
    package static func checkTags(_ tags: [String]) throws(APIError) -> [String] {
        guard tags.count <= mostTags else { throw APIError.badRequest(.invalidField, "tags has \(tags.count) entries; at most \(mostTags)", field: "tags") }
        var seen: Set<String> = []
        for (i, tag) in tags.enumerated() {
            let field = "tags[\(i)]"
            let bytes = Array(tag.utf8)
            let allowed = { (b: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
            guard !bytes.isEmpty, bytes.count <= maximumTagLength, allowed(bytes[0]),
                  bytes.allSatisfy({ allowed($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") }) else {
                throw APIError.badRequest(.invalidField, "tag \(tag.displayExcerpt()) is not 1–\(maximumTagLength) lowercase letters, digits, -, _, . or : starting with a letter or digit", field: field)
            }
            guard seen.insert(tag).inserted else { throw APIError.badRequest(.invalidField, "tag \(tag.displayExcerpt()) is listed twice", field: field) }
        }
        return tags
    }

    /// The largest `maxUses`.
    package static let mostUses: Int64 = 999_999_999_999_999

    /// `link` changed by the members of a `PATCH /api/links/{code}` body, checked exactly as a
    /// new link is: the members are merged into the link's create body, which is read again. A
    /// member set to null clears that field (a fallback, a text, the expiry, the use limit); a
    /// new `deepLink` replaces a route and its parameters, a new `route` replaces a deep link.
    /// The code, kind, creation time, creator and clicks stay; an expiry not mentioned stays as it is.
    package func edit(_ link: StoredLink, with patch: [(key: String, value: JSONValue)], now: Date) throws(APIError) -> StoredLink {
        guard !patch.isEmpty else { throw APIError.badRequest(.emptyEdit, "the body names no field to change") }
        for (key, _) in patch {
            if key == "code" || key == "domain" {
                throw APIError.badRequest(.immutableField, "a link's \(key) cannot change (printed \(key == "code" ? "codes" : "links") would break); create a new link", field: key)
            }
            // An invite is its fields (the Plur API answers them): its target cannot become
            // something its fields do not describe.
            if link.kind == .invite && ["deepLink", "route", "parameters"].contains(key) {
                throw APIError.badRequest(.immutableField, "an invite's \(key) cannot change (the invite API answers its fields from it); create a new invite", field: key)
            }
            // The app reads an invite's fields through GET /api/invite/{code}, which asks for no password.
            if link.kind == .invite && key == "password" {
                throw APIError.badRequest(.immutableField, "an invite cannot be protected (the app reads its fields through /api/invite/{code}); create a link with a password instead", field: key)
            }
            guard LinkRequest.fields.contains(key) else {
                let known = LinkRequest.fields.filter { $0 != "code" && $0 != "domain" }
                let meant = DocumentShape.suggestion(for: key, among: known).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
                throw APIError.badRequest(.unknownField, "unknown field \(JSONWriter.quote(key))\(meant) (known: \(known.joined(separator: ", ")))", field: key)
            }
        }
        // Both targets in one edit is as ambiguous as in a create: neither is dropped unseen.
        let named = { (key: String) in patch.contains { $0.key == key && $0.value != .null } }
        if named("deepLink") && named("route") { throw APIError.badRequest(.ambiguousTarget, "give deepLink or route, not both", field: "route") }
        // Applied to the link's own fields, typed: nothing is encoded and decoded again.
        let changes = try LinkPatch.decode(.object(patch))
        var edited = try read(changes.applied(to: LinkRequest(link)), now: now, webTarget: link.kind.keepsItsPath)
        edited.code = link.code
        edited.kind = link.kind
        edited.createdAt = link.createdAt
        edited.createdBy = link.createdBy
        edited.clicks = link.clicks
        // The password's hash is made by the caller, off the event loop, when the patch names
        // one (``LinkPassword``); else the link keeps its own.
        edited.passwordHash = link.passwordHash
        if !patch.contains(where: { $0.key == "expiresAt" || $0.key == "expiresIn" }) { edited.expiresAt = link.expiresAt }
        edited.updatedAt = now
        return edited
    }

    /// The furthest expiry accepted (`expiresAt` or `expiresIn`): 10 years.
    package static let longestLifetime: Double = 10 * 365 * 86400

    /// The longest `title` a link may have, in characters.
    package static let maximumTitleLength = 300
    /// The longest `description`, in characters.
    package static let maximumDescriptionLength = 1000
    /// The longest URL or other string field, in characters.
    package static let maximumURLLength = 4096

    /// Refuses text that would not be stored, shown or sent on as written: any control
    /// character (C0 such as NUL, DEL, C1) and any bidirectional embedding, override or isolate.
    /// `lineBreaks` allows tab, line feed and carriage
    /// return (a description typed in a text area). 400 `invalid-text` naming the field.
    package static func checkText(_ text: String, field: String, lineBreaks: Bool = false) throws(APIError) {
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            let v = scalar.value
            // Bidirectional embeddings, overrides and isolates reorder what follows them: "Open
            // \u{202E}gnp.exe" shows as "Open exe.png". Marks (U+200E, U+200F) stay allowed.
            if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                throw APIError.badRequest(.invalidText, "\(field) contains the bidirectional control \(String(format: "U+%04X", v)) at character \(position), which reorders the text shown after it; write the text in its reading order (U+200E and U+200F marks are allowed)",
                                  field: field)
            }
            guard scalar.isControlCharacter else { continue }
            if lineBreaks && (v == 0x09 || v == 0x0A || v == 0x0D) { continue }
            let allowed = lineBreaks ? "printable text, tabs and line breaks" : "printable text on one line"
            throw APIError.badRequest(.invalidText, "\(field) contains the control character \(String(format: "U+%04X", v)) at character \(position); \(field) takes \(allowed)",
                              field: field)
        }
    }

    package func isValidCode(_ code: String) -> Bool {
        // ASCII only, so bytes are characters.
        (3...64).contains(code.utf8.count) && code.utf8.allSatisfy { $0 < 128 && codeBytes[Int($0)] }
    }

    /// Whether a code can name a stored link: one of the configured alphabet, or an imported
    /// Firebase short link's path (1–64 ASCII letters, digits, - and _).
    package func isStoredCode(_ code: String) -> Bool {
        isValidCode(code) || Self.isImportedCode(code)
    }

    /// Whether `code` may be chosen for a new link: 3–64 ASCII letters, digits, `-` and `_`.
    /// Generated codes use the configured alphabet, which leaves out look-alike characters; a
    /// person choosing `blog` or `promo1` has read it already.
    package static func isChosenCode(_ code: String) -> Bool {
        code.utf8.count >= 3 && isImportedCode(code) && !reservedCodes.contains(code)
    }

    /// Codes the links API's own paths take (`/api/links/bulk`): no link could be read, changed
    /// or deleted under one.
    package static let reservedCodes: Set<String> = ["bulk"]

    /// Why `code` cannot be chosen.
    package static func chosenCodeProblem(_ code: String) -> String {
        if reservedCodes.contains(code) { return "code \(JSONWriter.quote(code)) is the links API's own path (/api/links/\(code)); choose another" }
        let outside = Array(Set(code.filter { c in !(c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")) })).sorted().prefix(10)
        let why = outside.isEmpty ? "has \(code.utf8.count) characters" : "has \(outside.map { JSONWriter.quote(String($0)) }.joined(separator: ", "))"
        return "code \(JSONWriter.quote(code)) \(why); a chosen code is 3–64 ASCII letters, digits, \"-\" and \"_\""
    }

    /// Paths the service answers itself at the root, where a Firebase link's code cannot stand.
    package static let rootServicePaths: Set<String> = ServiceConfiguration.servicePaths.union(["i", "d"])

    /// Why a Firebase link cannot be served at `/code`: the service answers that path itself, or a
    /// universal-link route of the configuration matches it first. Nil when it can.
    package func rootPathProblem(_ code: String) -> String? {
        if Self.rootServicePaths.contains(code.lowercased()) { return "is one of the service's own paths" }
        // A route owns its path whatever the query: /join-community is joinCommunity's even when
        // the query items it needs are missing (with them, the route's page would answer).
        if let host = configuration.router.hosts.first,
           let owner = configuration.router.routesMatchingPath("https://\(host)/\(code)").first {
            return "is the route \(JSONWriter.quote(owner)) of this configuration"
        }
        return nil
    }

    package static func isImportedCode(_ code: String) -> Bool {
        (1...64).contains(code.utf8.count) && code.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
    }

    /// The custom-scheme URL for a route and parameters, typed as the route declares.
    package func deepLink(route: String, parameters: [(String, String)]) -> String? {
        guard let r = configuration.router.routes.first(where: { $0.name == route }) else { return nil }
        var values: [String: RouteValue] = [:]
        let types = Dictionary(r.typedParameters.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
        for (k, v) in parameters {
            // A value goes into the link as given: an integer written otherwise ("01", "+5")
            // would come out changed, so it does not fit.
            guard let type = types[k], let value = type.value(v), value.text == v else { return nil }
            values[k] = value
        }
        return configuration.router.url(route: route, parameters: values)
    }

    /// Why `parameters` build no link of `route`, naming the parameter at fault, and the field
    /// to blame (`parameters.NAME`, or `route` for a route that does not exist).
    private func routeProblem(_ route: String, _ parameters: [(String, String)]) -> (message: String, field: String) {
        guard let r = configuration.router.routes.first(where: { $0.name == route }) else {
            return ("no route named \(JSONWriter.quote(route)) (routes: \(configuration.router.routes.map(\.name).joined(separator: ", ")))", "route")
        }
        let known = Set(r.parameterNames)
        if let unknown = parameters.first(where: { !known.contains($0.0) }) {
            let meant = DocumentShape.suggestion(for: unknown.0, among: r.parameterNames).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
            return ("route \(route) has no parameter \(JSONWriter.quote(unknown.0))\(meant) (it has: \(r.parameterNames.joined(separator: ", ")))", "parameters")
        }
        let given = Dictionary(parameters, uniquingKeysWith: { a, _ in a })
        for (name, type) in r.typedParameters {
            guard let text = given[name] else { continue }
            guard let value = type.value(text) else {
                return ("route \(route): parameter \(name): \(JSONWriter.quote(text)) \(type.mismatch(text))", "parameters.\(name)")
            }
            if value.text != text {
                return ("route \(route): parameter \(name): write \(JSONWriter.quote(text)) as \(value.text), as the link carries it", "parameters.\(name)")
            }
        }
        let optional = Set(r.query.filter(\.optional).map(\.parameter))
        if let missing = r.typedParameters.first(where: { given[$0.name] == nil && $0.type != .rest && !optional.contains($0.name) }) {
            return ("route \(route) needs parameter \(missing.name) (\(missing.type)) (\(r.pattern))", "parameters.\(missing.name)")
        }
        return ("the parameters do not fit route \(route) (\(r.pattern))", "parameters")
    }

    /// A deep link must use an app's scheme (or a configured one), or be a universal link on our
    /// hosts. Returns what is stored and emitted: for http(s), the URL as a browser serialises it.
    package func checkDeepLink(_ url: String, field: String) throws(APIError) -> String {
        try checkDeepLink(url, field: field, depth: 0)
    }

    /// A deep link, and every URL a route of the configuration finds embedded in it
    /// (`/i/{target:url}`), must each be a deep link of the configuration: an app link that
    /// carries `https://elsewhere.example/` would hand that URL to the app (as a page's button, a
    /// claim or a webhook).
    private func checkDeepLink(_ url: String, field: String, depth: Int) throws(APIError) -> String {
        let scheme = try schemeOf(url, field: field)
        let checked: String
        if scheme == "http" {
            throw APIError.fieldProblem(.invalidDeepLink, field, "an http link never opens the app (universal links are https only); use https:// on one of the configured hosts")
        }
        if scheme == "https" {
            let web = try webURL(url, field: field)
            guard configuration.router.hosts.contains(where: { $0.lowercased() == web.host }) else {
                throw APIError.fieldProblem(.invalidDeepLink, field, "an https deep link must be on one of the configured hosts (\(configuration.router.hosts.joined(separator: ", ")))")
            }
            // A browser resolves `.` and `..` (`/shop/a/../../admin` is `/admin`), and the
            // service's own pages are never a link's target.
            let segments = (URLText.split(url)?.path ?? "").split(separator: "/").map { PercentText.decode(String($0)) }
            if segments.contains(".") || segments.contains("..") {
                throw APIError.fieldProblem(.invalidDeepLink, field, "\(Self.excerpt(url)) has a \".\" or \"..\" segment, which a browser resolves to another path")
            }
            if ServiceConfiguration.isServicePath("/" + segments.joined(separator: "/")) {
                throw APIError.fieldProblem(.invalidDeepLink, field, "\(Self.excerpt(url)) is one of the service's own paths (/\(segments.first ?? "")), never a link's target")
            }
            checked = web.href
        } else {
            guard allowedSchemes.contains(scheme) else {
                throw APIError.fieldProblem(.invalidDeepLink, field, "scheme \(scheme): is not an app scheme of this configuration (\(allowedSchemes.isEmpty ? "it has none: give apple[].scheme or service.deepLinkSchemes" : allowedSchemes.sorted().joined(separator: ", ")))")
            }
            // Serialised as a browser would: `"`, `<`, `>`, spaces and the like percent-encoded.
            checked = URLText.encodingDisallowed(url)
        }
        _ = try Self.withinLength(checked, field: field)
        guard let match = configuration.router.route(checked).match else { return checked }
        for value in match.parameters.values {
            guard case .url(let embedded, _) = value else { continue }
            guard depth < 3 else {
                throw APIError.fieldProblem(.invalidDeepLink, field, "links are embedded more than 3 deep")
            }
            do { _ = try checkDeepLink(embedded, field: field, depth: depth + 1) } catch {
                throw APIError.fieldProblem(.invalidDeepLink, field, "the link embeds \(Self.excerpt(embedded)), which is not a deep link of this configuration (\(error.message))")
            }
        }
        return checked
    }

    /// A value quoted for a message, cut to its first 120 characters.
    package static func excerpt(_ text: String) -> String {
        text.count <= 120 ? JSONWriter.quote(text) : JSONWriter.quote(String(text.prefix(120))) + "… (\(text.count) characters)"
    }

    /// Fallbacks must be https (or http) on an allowed host: no open redirect. The host is the one
    /// a browser would go to (`WebURL`); what is stored and emitted is the browser's serialisation.
    package func checkFallback(_ url: String, field: String, requireAllowedHost: Bool) throws(APIError) -> String {
        let scheme = try schemeOf(url, field: field)
        guard scheme == "https" || scheme == "http" else {
            throw APIError.badRequest(.invalidURL, "\(field) must be an http(s) URL with a host", field: field)
        }
        let web = try webURL(url, field: field)
        if requireAllowedHost && !allowedRedirectHosts.contains(web.host) {
            throw APIError.fieldProblem(.hostNotAllowed, field, "host \(web.host) is not in the configuration's hosts or service.redirectHosts")
        }
        if requireAllowedHost, let problem = storeProblem(web) {
            throw APIError.fieldProblem(.unknownApp, field, "\(problem)")
        }
        return try Self.withinLength(web.href, field: field)
    }

    /// A URL as it is stored (written as a browser sends it: non-ASCII and other characters
    /// percent-encoded, three characters each) held to ``maximumURLLength``, so that what is
    /// accepted is also what every later check and edit accepts.
    static func withinLength(_ stored: String, field: String) throws(APIError) -> String {
        guard stored.count > maximumURLLength else { return stored }
        throw APIError.badRequest(.invalidField, "\(field) is \(stored.count) characters once written as browsers send it (characters other than ASCII percent-encoded); at most \(maximumURLLength)", field: field)
    }

    /// Why a store URL may not be a fallback: the App Store and Google Play are allowed for this
    /// configuration's apps only (else a link on your domain could send people to any app), unless
    /// `service.redirectHosts` names the store's host.
    package func storeProblem(_ web: WebURL) -> String? {
        guard Destinations.storeHosts.contains(web.host), !configuration.redirectHosts.contains(where: { $0.lowercased() == web.host }) else { return nil }
        if isOwnAppStorePage(web.href) || isOwnPlayStorePage(web.href) { return nil }
        let own = web.host == "play.google.com"
            ? "the Play Store page of one of this configuration's Android packages (https://play.google.com/store/apps/details?id=PACKAGE)"
            : "the App Store page of one of this configuration's appStoreIds (https://apps.apple.com/app/idNUMBER)"
        return "\(web.host) is allowed only for \(own); list \(web.host) in service.redirectHosts to allow any app"
    }

    /// Whether `url` is the App Store page (`…/id<NUMBER>`) of an app of this configuration.
    package func isOwnAppStorePage(_ url: String) -> Bool {
        guard let c = URLComponents(string: url), c.scheme == "https", let host = c.host?.lowercased(),
              host == "apps.apple.com" || host == "itunes.apple.com", let last = c.path.split(separator: "/").last, last.hasPrefix("id") else { return false }
        let id = String(last.dropFirst(2))
        return !id.isEmpty && configuration.apple.contains { $0.appStoreID == id }
    }

    /// Whether `url` is the Play Store page (`/store/apps/details?id=<PACKAGE>`, one `id`) of an
    /// Android app of this configuration: the one place whose `referrer` reaches the app.
    package func isOwnPlayStorePage(_ url: String) -> Bool {
        guard let c = URLComponents(string: url), c.scheme == "https", c.host?.lowercased() == "play.google.com", c.path == "/store/apps/details",
              let ids = c.queryItems?.filter({ $0.name == "id" }), ids.count == 1, let id = ids[0].value else { return false }
        return configuration.android.contains { $0.package == id }
    }

    private func webURL(_ url: String, field: String) throws(APIError) -> WebURL {
        switch WebURL.parse(url, trustedHosts: allowedRedirectHosts) {
        case .success(let web): return web
        case .failure(let refusal): throw APIError.fieldProblem(.invalidURL, field, "the URL \(refusal.reason)")
        }
    }

    private func schemeOf(_ url: String, field: String) throws(APIError) -> String {
        guard url.utf8.count <= 4096, !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let colon = url.firstIndex(of: ":") else {
            throw APIError.badRequest(.invalidURL, "\(field) is not a URL (no scheme, spaces or control characters, or longer than 4096 bytes)", field: field)
        }
        // Browsers read a backslash in an http(s) URL as a path separator, so
        // `https://evil.example\@allowed.example/` goes to evil.example while URLComponents
        // sees allowed.example. Any URL whose reading could differ is refused.
        if url.contains("\\") {
            throw APIError.badRequest(.invalidURL, "\(field) contains a backslash, which browsers and this check would read differently", field: field)
        }
        // C1 controls, bidirectional overrides and marks, line separators: a link shown with them
        // reads differently from where it goes (the relay policy refuses them too).
        if let scalar = url.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
            throw APIError.badRequest(.invalidURL, "\(field) contains the character \(String(format: "U+%04X", scalar.value)), which makes a link read differently from where it goes", field: field)
        }
        let scheme = url[..<colon].lowercased()
        guard URLInput.isSchemeName(scheme) else {
            throw APIError.badRequest(.invalidURL, "\(field) has no valid scheme", field: field)
        }
        if Destinations.forbiddenSchemes.contains(scheme) {
            throw APIError.fieldProblem(.forbiddenScheme, field, "\(scheme): URLs are never accepted")
        }
        guard URLComponents(string: url) != nil else { throw APIError.badRequest(.invalidURL, "\(field) is not a well-formed URL", field: field) }
        return scheme
    }

    /// `value` when it is at most `maximum` characters long.
    private static func bounded(_ value: String?, _ field: String, maximum: Int = Self.maximumURLLength) throws(APIError) -> String? {
        guard let value else { return nil }
        guard value.count <= maximum else { throw APIError.badRequest(.invalidField, "\(field) is longer than \(maximum) characters", field: field) }
        return value
    }
}
