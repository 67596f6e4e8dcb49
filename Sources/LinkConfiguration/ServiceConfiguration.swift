import AssociatedDomains
import Foundation
import LinkPages
import LinkRouting
import SwitchyardCore
import SwitchyardDocuments
import SwitchyardQR

/// What the link service serves: the apps, and the route table that drives both the app and
/// the association files.
public struct ServiceConfiguration: Sendable {
    /// An iOS app from the `apple` list: the AASA names it, and landing pages use its store ID and scheme.
    package struct AppleApp: Sendable, Equatable {
        /// The Apple developer team ID (`teamId`, required).
        package var teamID: String
        /// The app's bundle identifier (`bundleId`, required).
        package var bundleID: String
        /// The numeric App Store ID (`appStoreId`, a string or a number); nil when the app has none.
        package var appStoreID: String?
        /// The app's custom URL scheme (`scheme`), accepted for deep links; nil when the app has none.
        package var scheme: String?
        /// The App Clip's bundle ID, listed under `appclips` in the AASA.
        package var appClipBundleID: String?
        /// The app identifier the AASA lists: `TEAMID.bundle.id`.
        package var appID: String { "\(teamID).\(bundleID)" }
    }

    /// An Android app from the `android` list, published in assetlinks.json.
    package struct AndroidApp: Sendable, Equatable {
        /// The application ID (`package`, required); also names the app's Play Store page.
        package var package: String
        /// SHA-256 fingerprints of the app's signing certificates (`fingerprints`; none by default).
        package var fingerprints: [String]
    }

    /// A landing page for a universal-link route: the app route its "Open in the app" button
    /// builds (same parameters), and preview text where `{name}` is a route parameter.
    package struct LandingPage: Sendable, Equatable {
        /// The route the button opens, filled with the parameters of the same name (`app`, or the page's value when it is a plain string); nil: no app route.
        package var appRoute: String?
        /// The preview title (`title`); nil: `landing.title`.
        package var title: String?
        /// The preview description (`description`); nil: `landing.description`.
        package var description: String?
    }

    /// How the Plur-compatible invite API maps onto links.
    package struct Invites: Sendable, Equatable {
        /// The app route an invite stands for.
        package var route: String
        /// The route parameter that receives the invite's own code (nil: none).
        package var codeParameter: String?
        /// Request body field → route parameter, e.g. groupId → groupId, relay → relay.
        package var fields: [(field: String, parameter: String)]
        /// Fields the request must carry.
        package var required: [String]

        /// Equal when route, code parameter, required fields and field mappings (in order) are.
        package static func == (a: Invites, b: Invites) -> Bool {
            a.route == b.route && a.codeParameter == b.codeParameter && a.required == b.required
                && a.fields.elementsEqual(b.fields, by: { $0 == $1 })
        }
    }

    /// A token bucket: `burst` requests at once, refilled at `perMinute`.
    package struct RateLimit: Sendable, Equatable {
        /// Requests added back to the bucket per minute (`perMinute`, a positive whole number).
        package var perMinute: Double
        /// The bucket's size: requests allowed at once (`burst`; default a tenth of `perMinute`, at least 1).
        package var burst: Double

        /// A limit of `perMinute` requests a minute, `burst` at once.
        package init(perMinute: Double, burst: Double) {
            self.perMinute = perMinute
            self.burst = burst
        }
    }

    /// The name of the domain these apps, routes and pages are (`domains[].name`; by default
    /// the route table's first host, or `default` without hosts).
    package var domainName: String
    /// Each domain of a configuration that lists `domains`, as a configuration of its own: its
    /// apps, route table, public URL, landing pages and invites, with the service-wide sections
    /// of this one. Empty for a configuration of one domain (written at the top level). This
    /// configuration's own apps, routes and pages are the first domain's.
    package var domains: [ServiceConfiguration]
    /// The iOS apps (`apple`; none by default).
    package var apple: [AppleApp]
    /// The Android apps (`android`; none by default).
    package var android: [AndroidApp]
    /// Whether the AASA also lists the apps under `webcredentials` (`webcredentials: true`; off by default).
    package var webcredentials: Bool
    /// The route table read from `hosts` and `routes`; the association files and landing pages follow it.
    package var router: LinkRouter
    /// The public origin of the service, used in the links it hands out (default https://first host).
    package var publicURL: String
    /// Short-code alphabet and length for generated codes.
    package var codeAlphabet: [Character]
    /// Characters in a generated short code (`links.length`, 4–32; default 8).
    package var codeLength: Int
    /// Landing pages by universal-link route name.
    package var landingPages: [String: LandingPage]
    /// Preview shown when a link has none.
    package var defaultTitle: String
    /// The preview description of links and pages without one (`landing.description`; empty by default).
    package var defaultDescription: String
    /// The preview image URL of links without one (`landing.image`); nil: no image.
    package var defaultImage: String?
    /// The app's icon, shown on every landing page and used as the preview image of links with
    /// no image (`landing.icon`, an https URL); nil: none.
    package var icon: String?
    /// Where desktop visitors go when a link has no web fallback (nil: a page with store links).
    package var defaultWebURL: String?
    /// Where visitors of an ended link (expired or used up) go when the link names no
    /// `expiredURL` of its own (`landing.expiredURL`); nil: a 410 page with the way on the link had.
    package var expiredURL: String?
    /// How the domain's QR codes are drawn (`qr`); the plain style when absent.
    package var qrStyle = QRStyle()
    /// Whether a link's campaign (`utm`) is handed on to its web page (`utm_*`), the Play Store
    /// (`referrer`) and the App Store (`ct`, `pt`): `landing.campaignParameters`, off by default.
    package var campaignParameters = false
    /// The App Store's provider token for `pt` (`landing.appStoreProviderToken`, digits); nil: no `pt`.
    package var appStoreProviderToken: String?
    /// The templates of the landing and message pages: the built-in ones, with those of the
    /// directory `landing.templates` names (relative to the configuration file) in their place.
    package var pageTemplates: PageTemplates = .standard
    /// The invite API's mapping (`invites`); nil when the section is absent, and the invite endpoints answer 404.
    package var invites: Invites?
    /// The Firebase Dynamic Links URL prefixes whose short links are this domain's
    /// (`fdlPrefixes`): `import fdl` and the REST API map a short link under one to this domain,
    /// and a prefix on one of the domain's hosts serves its links (`https://PREFIX/CODE`).
    package var fdlPrefixes: [FDLPrefix] = []
    /// Hosts, beyond the configuration's own and the two stores, that fallbacks may send people to.
    package var redirectHosts: [String]
    /// Custom schemes deep links may use, beyond the apps' own.
    package var deepLinkSchemes: [String]
    /// The rate limit per API token (`rateLimit.perToken`; default 600 a minute, burst 60).
    package var perTokenLimit: RateLimit
    /// The rate limit per client address (`rateLimit.perAddress`; default 300 a minute, burst 30).
    package var perAddressLimit: RateLimit
    /// How slow a protected link's password hash is (`links.passwordCost`): scrypt's N is 2 to
    /// this power (14: 16 MB and tens of milliseconds a hash). A stored hash keeps the N it was
    /// made with, so a change applies to passwords set from then on.
    package var passwordCost = 14
    /// Password attempts at protected links per client network (`rateLimit.passwordPerAddress`).
    package var passwordPerAddressLimit = RateLimit(perMinute: 10, burst: 5)
    /// Password attempts per protected link, from all networks (`rateLimit.passwordPerLink`).
    package var passwordPerLinkLimit = RateLimit(perMinute: 60, burst: 20)
    /// How many proxies of your own stand in front of the service (`service.trustForwardedFor`:
    /// `true` is one, a number says how many; 0: none). The client's address is then the entry of
    /// X-Forwarded-For that many from the right, the one the outermost of them added: every entry
    /// left of it is the client's to choose.
    package var trustedProxies: Int
    /// Whether the client address comes from X-Forwarded-For (see `trustedProxies`).
    package var trustForwardedFor: Bool {
        get { trustedProxies > 0 }
        set { trustedProxies = newValue ? max(1, trustedProxies) : 0 }
    }
    /// The most connections open at once from one client address (`service.connectionsPerAddress`);
    /// nil: the default (a share of the connection limit, none behind trusted proxies); 0: no limit.
    package var connectionsPerAddress: Int?
    /// Largest request body accepted by the API, in bytes.
    package var maximumBodyBytes: Int
    /// Largest body of `POST /api/links/bulk` (`service.maximumBulkBodyBytes`, default 2 MiB):
    /// up to 1,000 links.
    package var maximumBulkBodyBytes = 2 << 20
    /// The Opener manifest behind /api/resolve (`resolve.manifest`; nil: Switchyard's default rules).
    package var manifestPath: String?
    /// Whether resolve scripts are kept off the network (`resolve.offline`; off by default).
    package var resolveOffline: Bool
    /// Whether redirect following and scripts may reach loopback and private addresses
    /// (`resolve.allowPrivateAddresses`, off by default: SSRF protection).
    package var resolveAllowsPrivateAddresses: Bool
    /// Seconds one `/api/resolve` script may run (`resolve.scriptTimeLimit`, 0.001–3600; default 5).
    package var resolveScriptTimeLimit: Double = 5
    /// Megabytes one script's heap may hold (`resolve.scriptMemoryMB`, 16–65536; default 256).
    package var resolveScriptMemoryMB: Int = 256
    /// Seconds one regex evaluation may take (`resolve.regexTimeLimit`, 0.001–3600; default 0.1).
    package var resolveRegexTimeLimit: Double = 0.1
    /// Threads for `/api/resolve` (scripts mostly wait on the network); 4 × as many requests may
    /// wait or run at once, the rest get 503 `resolve-busy`.
    package var resolveThreads: Int = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// `resolve.scriptIsolation`: "process" (the default: scripts run in worker processes when the
    /// service is given a worker command, as `switchyard serve` does) or "none" (in the service's
    /// own process, where a promise-job loop or one huge allocation cannot be stopped).
    package var resolveIsolatesScripts = true
    /// Where events are delivered (`webhooks`); no endpoints by default.
    package var webhooks = WebhookSettings()
    /// Whether and how visits are recorded one by one (`visits`; on by default).
    package var visits = VisitSettings()
    /// Deferred deep links (`deferred`; on by default).
    package var deferred = DeferredSettings()
    /// The periodic comparison with Apple's CDN copy of the AASA (`appleCDN`; off by default).
    package var appleCDN = AppleCDNSettings()

    /// Loads a YAML or JSON configuration; errors say which key is wrong.
    public init(contentsOf path: String) throws(ConfigurationError) {
        let document: JSONValue
        do { document = try StructuredDocument.read(contentsOf: path) } catch {
            throw ConfigurationError(error.message, location: error.location, cause: error)
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do { try self.init(document: document, relativeTo: directory) } catch {
            throw ConfigurationError(error.message, location: SourceLocation(file: path), cause: error.cause)
        }
    }

    /// Every key the configuration may have, at any depth, with its type. Checked before anything
    /// is read, so a misspelt key (`publicUrl`) or a wrong type (`teamId: 12`) is refused at start
    /// with its path instead of being silently ignored.
    package static let shape: DocumentShape = {
        let rateLimit = DocumentShape.object(["perMinute": .int, "burst": .int])
        var keys: [String: DocumentShape] = [
            "service": .object([
                "publicURL": .string, "redirectHosts": .array(.string), "deepLinkSchemes": .array(.string), "trustForwardedFor": .oneOf([.bool, .int]),
                "maximumBodyBytes": .int, "maximumBulkBodyBytes": .int, "connectionsPerAddress": .int,
            ]),
            "links": .object(["alphabet": .string, "length": .int, "passwordCost": .int]),
            "rateLimit": .object(["perToken": rateLimit, "perAddress": rateLimit, "passwordPerAddress": rateLimit, "passwordPerLink": rateLimit]),
            "resolve": .object(["manifest": .string, "offline": .bool, "allowPrivateAddresses": .bool,
                                 "scriptTimeLimit": .number, "scriptMemoryMB": .int, "regexTimeLimit": .number, "threads": .int,
                                 "scriptIsolation": .string]),
            "webhooks": WebhookSettings.shape,
            "visits": VisitSettings.shape,
            "deferred": DeferredSettings.shape,
            "appleCDN": AppleCDNSettings.shape,
        ]
        keys.merge(domainKeys) { a, _ in a }
        var domain = domainKeys
        domain["name"] = .string
        domain["publicURL"] = .string
        keys["domains"] = .array(.object(domain))
        return .object(keys)
    }()

    /// The keys of one domain's settings: its apps, its route table, its landing pages and its
    /// invites. At the top level of a configuration of one domain, or in each of `domains`
    /// (which adds `name` and `publicURL`).
    static let domainKeys: [String: DocumentShape] = {
        var keys: [String: DocumentShape] = [
            "apple": .array(.object([
                "teamId": .string, "bundleId": .string, "appStoreId": .oneOf([.string, .int]), "scheme": .string, "appClipBundleId": .string,
            ])),
            "android": .array(.object(["package": .string, "fingerprints": .array(.string)])),
            "webcredentials": .bool,
            "landing": .object([
                "title": .string, "description": .string, "image": .string, "icon": .string, "webURL": .string, "expiredURL": .string,
                "templates": .string, "campaignParameters": .bool, "appStoreProviderToken": .oneOf([.string, .int]),
                "pages": .map(.oneOf([.string, .object(["app": .string, "title": .string, "description": .string])])),
            ]),
            "invites": .object(["route": .string, "codeParameter": .string, "fields": .map(.string), "required": .array(.string)]),
            "routeTable": .string,
            "fdlPrefixes": .array(.string),
            "qr": qrShape,
        ]
        keys.merge(LinkRouter.tableKeys) { a, _ in a }
        return keys
    }()

    /// The service's own paths as AASA patterns, each with a path it covers: a catch-all route
    /// (`/{code}`) would otherwise hand the dashboard and the API to the app on iOS, so the
    /// generated file excludes them first.
    static let reservedAASAPaths: [(pattern: String, sample: String)] = [
        ("/admin", "/admin"), ("/admin/*", "/admin/links"), ("/api/*", "/api/links"), ("/healthz", "/healthz"),
        ("/metrics", "/metrics"), ("/openapi.json", "/openapi.json"), ("/.well-known/*", "/.well-known/assetlinks.json"),
        ("/apple-app-site-association", "/apple-app-site-association"),
        // A link's QR images and a claim URL's page are the service's, under routes that take
        // `/i/{code}` or a catch-all.
        ("/i/*/qr.svg", "/i/x/qr.svg"), ("/i/*/qr.png", "/i/x/qr.png"), ("/d/*", "/d/x"),
    ]

    /// Whether the service answers `path` (decoded, starting with "/") itself: its first
    /// segment is one of ``servicePaths``, or a reserved path matches it (a claim page, a
    /// link's QR images). Never a link's target.
    package static func isServicePath(_ path: String) -> Bool {
        let first = path.split(separator: "/").first.map { $0.lowercased() } ?? ""
        return servicePaths.contains(first) || reservedAASAPaths.contains { Glob($0.pattern, substitutions: false).matches(path) }
    }

    /// The first path segments the service answers itself: no universal-link route may claim them.
    package static let servicePaths: Set<String> = ["admin", "api", "healthz", "metrics", "openapi.json", ".well-known", "apple-app-site-association", "v1"]

    /// Reads a configuration already parsed into a JSON value, checking it against ``shape`` first; sections that are absent keep their defaults.
    /// A `routeTable` path is read relative to `directory` (the configuration file's; the
    /// current directory when nil). Throws ``ConfigurationError`` naming the key at fault.
    package init(document: JSONValue, relativeTo directory: String? = nil) throws(ConfigurationError) {
        guard case .object = document else { throw ConfigurationError("the configuration must be an object with apple, android, hosts and routes") }
        let problems = Self.shape.problems(in: document)
        if let first = problems.first {
            throw ConfigurationError(first + (problems.count > 1 ? " (and \(problems.count - 1) more: \(problems.dropFirst().joined(separator: "; ")))" : ""))
        }
        if let list = document["domains"] {
            self = try Self(domains: list, in: document, relativeTo: directory)
            return
        }
        apple = []
        for (i, a) in (document["apple"]?.arrayValue ?? []).enumerated() {
            guard let team = a["teamId"]?.stringValue, let bundle = a["bundleId"]?.stringValue else {
                throw ConfigurationError("apple[\(i)]: needs teamId and bundleId")
            }
            guard team.utf8.count == 10, team.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) else {
                throw ConfigurationError("apple[\(i)].teamId: \(JSONWriter.quote(team)) is not a team ID (10 capital letters and digits: Membership details in the developer account)")
            }
            if bundle.hasPrefix(team + ".") {
                // The AASA names teamId.bundleId: a bundle ID written with its team would name TEAM.TEAM.….
                throw ConfigurationError("apple[\(i)].bundleId: \(JSONWriter.quote(bundle)) starts with the team ID; give the bundle ID alone (\(bundle.dropFirst(team.count + 1)))")
            }
            var storeID = a["appStoreId"]?.stringValue
            if case .number(_, let text)? = a["appStoreId"] { storeID = text }
            if let id = storeID, id.isEmpty || !id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                throw ConfigurationError("apple[\(i)].appStoreId: \(JSONWriter.quote(id)) is not an App Store ID (digits only, as in apps.apple.com/app/id1234567890)")
            }
            let app = AppleApp(teamID: team, bundleID: bundle, appStoreID: storeID, scheme: a["scheme"]?.stringValue,
                               appClipBundleID: a["appClipBundleId"]?.stringValue)
            if let problem = AppSiteAssociation.validate(appID: app.appID).first(where: { $0.severity == .error }) {
                throw ConfigurationError("apple[\(i)]: \(problem.message)")
            }
            if let scheme = app.scheme, let problem = Self.schemeProblem(scheme) { throw ConfigurationError("apple[\(i)].scheme: \(problem)") }
            apple.append(app)
        }
        android = []
        for (i, a) in (document["android"]?.arrayValue ?? []).enumerated() {
            guard let package = a["package"]?.stringValue else { throw ConfigurationError("android[\(i)]: needs package") }
            let fingerprints = (a["fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue)
            android.append(AndroidApp(package: package, fingerprints: fingerprints))
        }
        webcredentials = document["webcredentials"] == .bool(true)
        router = try Self.router(of: document, relativeTo: directory)
        if let problem = AssociationGenerator.patternTextProblems(router).first { throw ConfigurationError(problem) }
        for route in router.routes where route.kind == .universal && !route.exclude {
            // A universal link on the service's own paths would send the dashboard or the API
            // to the app (the AASA claims the path) and shadow the service's answer.
            if case .literal(let text)? = route.segments.first, case let first = text.lowercased(), Self.servicePaths.contains(first) {
                throw ConfigurationError("routes.\(route.name): the pattern \(JSONWriter.quote(route.pattern)) claims /\(first), a path the service answers itself (\(Self.servicePaths.sorted().map { "/" + $0 }.joined(separator: ", "))); choose another path or mark the route exclude: true")
            }
        }
        publicURL = "https://" + (router.hosts.first ?? "localhost")
        domainName = router.hosts.first ?? "default"
        domains = []
        codeAlphabet = Array("23456789abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ")
        codeLength = 8
        landingPages = [:]
        defaultTitle = "Open in the app"
        defaultDescription = ""
        invites = nil
        redirectHosts = []
        deepLinkSchemes = []
        perTokenLimit = RateLimit(perMinute: 600, burst: 60)
        perAddressLimit = RateLimit(perMinute: 300, burst: 30)
        trustedProxies = 0
        maximumBodyBytes = 16 * 1024
        resolveOffline = false
        resolveAllowsPrivateAddresses = false
        try readServiceSections(document)
        if let templates = document["landing"]?["templates"]?.stringValue {
            guard !templates.isEmpty else { throw ConfigurationError("landing.templates: empty; name the directory of the templates (. for the configuration's own)") }
            let path = URL(fileURLWithPath: Self.file(templates, relativeTo: directory)).standardizedFileURL.path
            do { pageTemplates = try PageTemplates(directory: path) } catch {
                throw ConfigurationError("landing.templates: \(error)", cause: error)
            }
        }
        for (i, value) in (document["fdlPrefixes"]?.arrayValue ?? []).enumerated() {
            let prefix = try FDLPrefix(value.stringValue ?? "", at: "fdlPrefixes[\(i)]")
            if fdlPrefixes.contains(prefix) { throw ConfigurationError("fdlPrefixes[\(i)]: \(prefix.text) is listed already") }
            // A link under a route's path would be that route's page, never the link.
            if !prefix.path.isEmpty, servesHost(prefix.host),
               let owner = router.routesMatchingPath("https://\(router.hosts.first ?? prefix.host)\(prefix.path)/x").first {
                throw ConfigurationError("fdlPrefixes[\(i)]: \(prefix.text) is under the route \(JSONWriter.quote(owner))'s path, so its links would be that route's page, never served; choose another path")
            }
            fdlPrefixes.append(prefix)
        }
        qrStyle = try Self.qrStyle(document["qr"], relativeTo: directory)
        if let path = visits.geoDatabase { visits.geoDatabase = Self.file(path, relativeTo: directory) }
        if let path = appleCDN.caFile { appleCDN.caFile = Self.file(path, relativeTo: directory) }
        if visits.userAgentRegexesConfigured, let path = visits.userAgentRegexes { visits.userAgentRegexes = Self.file(path, relativeTo: directory) }
        if let header = visits.countryHeader, trustedProxies == 0 {
            throw ConfigurationError("visits.countryHeader: \(header) is believed only from a proxy of yours, and service.trustForwardedFor says there is none; any client could send it")
        }
        let appSchemes = allowedSchemes
        // (With no app at all, `servingProblem` says so first: that is what to fix.)
        for route in router.routes where !(apple.isEmpty && android.isEmpty) {
            // A stored link's deep link must use an app scheme: a route on another scheme could
            // never be a link's target, and its landing pages would offer no "Open in the app".
            guard case .scheme(let written) = route.kind, case let scheme = written.lowercased(), !appSchemes.contains(scheme) else { continue }
            if let problem = Self.schemeProblem(scheme) {
                throw ConfigurationError("routes.\(route.name): the pattern \(JSONWriter.quote(route.pattern)) uses \(problem)")
            }
            throw ConfigurationError("routes.\(route.name): the pattern \(JSONWriter.quote(route.pattern)) uses the scheme \(scheme):, which is no app's scheme here; set apple[].scheme: \(scheme) (or list it in service.deepLinkSchemes)")
        }
        if !android.isEmpty, let problem = AssetLinks.validate(bytes: Array(JSONWriter.compact(assetLinks.json).utf8)).1.first(where: { $0.severity == .error }) {
            throw ConfigurationError("android: \(problem.message)")
        }
    }

    /// Schemes a stored deep link may use: the apps' own plus `deepLinkSchemes`.
    package var allowedSchemes: Set<String> {
        Set(apple.compactMap(\.scheme).map { $0.lowercased() } + deepLinkSchemes.map { $0.lowercased() })
    }

    /// Hosts a landing page may send a visitor to.
    package var allowedRedirectHosts: Set<String> {
        var hosts = Set(router.hosts.map { $0.lowercased() } + redirectHosts.map { $0.lowercased() })
        hosts.formUnion(Destinations.storeHosts)
        if !publicHost.isEmpty { hosts.insert(publicHost) }
        return hosts
    }

    /// The host of `publicURL` in lower case, as written: ASCII, so a punycode host stays
    /// punycode (`URLComponents` would decode it on Linux), as browsers and ``WebURL`` give it.
    package var publicHost: String {
        let origin = publicURL.split(separator: "/", omittingEmptySubsequences: true)
        return origin.count >= 2 ? String(origin[1].split(separator: ":").first ?? "").lowercased() : ""
    }

    /// The App Store page of the first iOS app with an App Store id.
    package var appStoreURL: String? { apple.lazy.compactMap(\.appStoreID).first.map { "https://apps.apple.com/app/id\($0)" } }

    /// The Play Store page of the first Android app.
    package var playStoreURL: String? { android.first.map { "https://play.google.com/store/apps/details?id=\($0.package)" } }

    /// Why `serve` cannot host this configuration, or nil: with no app, the association files
    /// would name none, and neither iOS nor Android would open a link in an app.
    public var servingProblem: String? {
        if !apple.isEmpty, case let size = JSONWriter.compact(appSiteAssociation).utf8.count, size > AppSiteAssociation.maximumBytes {
            return "routes: the AASA made from the route table would be \(size) bytes; iOS ignores files over \(AppSiteAssociation.maximumBytes) bytes (128 KB), so no link would open the app on iOS: serve fewer routes' paths (a catch-all route and the app's own routing), or split them across domains"
        }
        guard apple.isEmpty, android.isEmpty else { return nil }
        return "apple, android: no app is configured, so the association files would name none and no link would open an app; add an apple entry (teamId, bundleId) or an android entry (package, fingerprints) — `switchyard init` writes a configuration with both"
    }

    /// What `serve` warns of at start: settings that work but are probably not meant.
    public var servingWarnings: [String] {
        var out = domains.isEmpty ? publicURLWarnings
            : domains.enumerated().flatMap { i, domain in domain.publicURLWarnings.map { Self.domainMessage($0, at: "domains[\(i)]") } }
        if visits.record, visits.geo != .off, visits.geoDatabase == nil, visits.countryHeader == nil, visits.geoExplicit {
            out.append("visits.geo: \(visits.geo.rawValue) records no place without visits.geoDatabase or visits.countryHeader")
        }
        if visits.geo == .off, let path = visits.geoDatabase {
            out.append("visits.geoDatabase: \(path) is not read, as visits.geo is off")
        }
        if !visits.record, visits.geoDatabase != nil || visits.countryHeader != nil || visits.userAgentRegexesConfigured {
            out.append("visits: nothing of the audience is recorded, as visits.record is false")
        }
        return out
    }

    /// What `serve` warns of in the domain's public URL: links built on it that never open the app.
    var publicURLWarnings: [String] {
        let host = publicHost
        if !publicURL.hasPrefix("https://") {
            return ["service.publicURL: \(publicURL) is not https: universal links and App Links are https only, so the links and pages built on it never open the app"]
        } else if !host.isEmpty, !router.hosts.contains(where: { $0.lowercased() == host }) {
            return ["service.publicURL: \(publicURL) is not on the route table's hosts (\(router.hosts.joined(separator: ", "))): the links and pages built on it are no universal links or App Links, so they never open the app; put \(host) in hosts, or give publicURL one of them"]
        }
        return []
    }

    /// A path the configuration names: absolute as written, else relative to `directory` (the
    /// configuration file's; the current directory when nil).
    static func file(_ path: String, relativeTo directory: String?) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: directory ?? FileManager.default.currentDirectoryPath).appendingPathComponent(path).path
    }

    /// The route table: the file `routeTable` names (the same file the app routes with), or the
    /// configuration's own `hosts` and `routes`.
    static func router(of document: JSONValue, relativeTo directory: String?) throws(ConfigurationError) -> LinkRouter {
        guard let file = document["routeTable"]?.stringValue else {
            do { return try LinkRouter(document: document) } catch { throw ConfigurationError(error.message, cause: error) }
        }
        if document["hosts"] != nil || document["routes"] != nil {
            throw ConfigurationError("routeTable: the route table is either a file (routeTable) or in the configuration (hosts, routes), not both")
        }
        let path = Self.file(file, relativeTo: directory)
        do { return try LinkRouter(contentsOf: path) } catch {
            throw ConfigurationError("routeTable: \(error)", cause: error)
        }
    }

    /// The apple-app-site-association generated from the routes.
    package var appSiteAssociation: JSONValue {
        AssociationGenerator.appSiteAssociation(router: router, appIDs: apple.map(\.appID), webcredentials: webcredentials,
                                                appClips: apple.compactMap { a in a.appClipBundleID.map { "\(a.teamID).\($0)" } },
                                                reserved: Self.reservedAASAPaths)
    }

    /// The assetlinks.json statements, one per Android app, each with the Android 15 dynamic
    /// rules of the routes (the same entries, in the same order, as the AASA's components).
    package var assetLinks: AssetLinks {
        AssetLinks(statements: android.flatMap {
            AssociationGenerator.assetLinks(packageName: $0.package, fingerprints: $0.fingerprints, router: router, reserved: Self.reservedAASAPaths).statements
        })
    }
}

/// A service configuration that cannot be used (`invalid-configuration`): the message starts
/// with the key at fault; the location names the file (and line and column, for a syntax
/// error) when the configuration came from one; the YAML reader's or route table's error is the cause.
public typealias ConfigurationError = DomainError<ConfigurationErrors>

/// The domain of ``ConfigurationError``.
public enum ConfigurationErrors: SingleCodeErrorDomain {
    /// Every configuration error is `invalid-configuration`.
    public static var code: ErrorCode { .invalidConfiguration }
}
