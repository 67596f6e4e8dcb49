import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkRequests
import LinkRouting
import Prometheus
import LinkStorage
import Logging
import SwitchyardCore

/// The Firebase Dynamic Links REST API as Google served it at
/// `firebasedynamiclinks.googleapis.com`, so a backend that made or read short links changes its
/// host name and nothing else:
///
/// - `POST /v1/shortLinks?key=KEY` with `longDynamicLink` or `dynamicLinkInfo` (and `suffix`)
///   answers `{"shortLink", "previewLink", "warning"}`. The key is an API token with the
///   `fdl:create` scope (or `links:write`), in `key` or as a bearer token.
/// - `GET /v1/{short link, percent-encoded}/linkStats?durationDays=N` answers
///   `{"linkEventStats": [{"platform", "event", "count"}]}`: clicks by platform, and first opens
///   after an install (redeemed deferred-link claims). Needs `links:read`.
///
/// Errors have Google's shape, `{"error": {"code", "message", "status"}}`.
struct FirebaseAPIController: Sendable {
    let store: LinkStore
    /// The domains short links are made on: a `domainUriPrefix` names one (by its URL prefixes or hosts).
    let domains: LinkDomains
    let tokens: TokenVerifier
    let limits: RequestLimits
    let bodies: RequestBodies
    let now: @Sendable () -> Date
    let metrics: ServiceMetrics

    /// The longest `durationDays` a stats request may ask for (ten years).
    static let longestDuration = 3_650

    func addRoutes(to group: RouterGroup<ServiceContext>) {
        group.post("shortLinks") { request, context in try await shortLinks(request, context) }
        group.get("{link}/linkStats") { request, context in try await linkStats(request, context) }
    }

    /// The token of `request`: `key` in the query, else `Authorization: Bearer`.
    func token(_ request: Request, _ context: ServiceContext, _ scope: TokenScope) async throws -> StoredToken {
        let keys = request.uri.queryParameters.getAll("key")
        if keys.count > 1 || (!keys.isEmpty && request.headers[.authorization] != nil) {
            throw APIError.badRequest(.invalidField, "give the key once: ?key=<token> or Authorization: Bearer <token>, not both", field: "key")
        }
        guard let key = keys.first else {
            guard request.headers[.authorization] != nil else {
                try await limits.failedAuthentication(request, context)
                throw APIError(.unauthorized, .missingToken, "this API needs a key: ?key=<token> or Authorization: Bearer <token> (a token with the \(scope.rawValue) scope)")
            }
            return try await tokens.authenticateCounted(request, context, scope)
        }
        do { return try await tokens.verify(String(key), scope) } catch let error as APIError {
            if error.status == .unauthorized { try await limits.failedAuthentication(request, context) }
            throw error
        }
    }

    // MARK: Short links

    func shortLinks(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let token = try await token(request, context, .fdlCreate)
        let asked = try FirebaseShortLinkRequest(try await bodies.json(request))
        let (domain, base, atRoot) = try prefix(asked.prefix)
        var link = try FirebaseLink(asked.parameters, input: domains.inputs[domain]).storedLink(code: "", now: now())
        link.createdBy = token.id
        try await insert(&link, suffix: asked.suffix, domain: domain, atRoot: atRoot)
        metrics.linksCreated.increment()
        let short = base + "/" + LinkKey.code(of: link.code)
        return try Response.json(FirebaseShortLinkResponse(shortLink: short, warning: asked.warnings))
    }

    /// The domain `prefix` (a `domainUriPrefix`) is, and the prefix as short links are written
    /// on it: one of a domain's `fdlPrefixes`, or the root of one of its hosts (or its public
    /// URL's host) when it has no path; and whether links under it are at the root of the host.
    func prefix(_ prefix: String) throws(APIError) -> (domain: Int, base: String, atRoot: Bool) {
        // The host as browsers send it (URLComponents would decode a punycode host on Linux).
        guard let parts = URLComponents(string: prefix), parts.scheme?.lowercased() == "https", let host = BrowserURL.host(prefix), !host.isEmpty,
              parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil else {
            throw APIError.badRequest(.invalidField, "the Dynamic Links domain \(LinkInput.excerpt(prefix)) is not https://HOST or https://HOST/PATH")
        }
        let path = parts.percentEncodedPath == "/" ? "" : parts.percentEncodedPath
        if parts.port == nil {
            for (d, domain) in domains.configurations.enumerated() {
                if let configured = domain.fdlPrefixes.first(where: { $0.host == host && $0.path == path }) {
                    // Links are served on the domain's hosts: a prefix elsewhere (a *.page.link) maps imports only.
                    guard domain.servesHost(host) else {
                        throw APIError.badRequest(.unknownDomain, "the Dynamic Links domain \(LinkInput.excerpt(prefix)) is one of \(domain.domainName)'s fdlPrefixes but not on one of its hosts, so a link made under it could not be served; ask for \(domain.fdlBase)")
                    }
                    return (d, configured.text, configured.path.isEmpty)
                }
            }
            if let d = domains.configurations.firstIndex(where: { $0.servesHost(host) }) {
                guard path.isEmpty else {
                    throw APIError.badRequest(.unknownDomain, "the Dynamic Links domain \(LinkInput.excerpt(prefix)) has a path that is none of the fdlPrefixes of \(domains.configurations[d].domainName); short links on \(host) are at its root (https://\(host)/CODE), or list the prefix in fdlPrefixes")
                }
                return (d, "https://" + host, true)
            }
        }
        let known = domains.configurations.flatMap { domain in domain.fdlPrefixes.map(\.text) + domain.router.hosts.map { "https://" + $0 } }
        throw APIError.badRequest(.unknownDomain, "this service does not serve the Dynamic Links domain \(LinkInput.excerpt(prefix)); it serves \(Array(Set(known)).sorted().joined(separator: ", ")) (a domain's hosts, and its fdlPrefixes)")
    }

    /// Stores `link` under a random base62 code: 17 characters for `UNGUESSABLE`, and for
    /// `SHORT` the shortest free one from 4 characters up. A code the service answers itself, or
    /// that a route of the configuration takes, is drawn again.
    /// On the domain at `domain`; `atRoot`: the link's path is its code alone, so a code a
    /// route or the service takes there is drawn again.
    func insert(_ link: inout StoredLink, suffix: FirebaseShortLinkRequest.Suffix, domain: Int, atRoot: Bool) async throws {
        var rng = SystemRandomNumberGenerator()
        let lengths = suffix == .short ? Array(4...17) : [17]
        for length in lengths {
            for _ in 0..<8 {
                let code = String((0..<length).map { _ in Self.base62.randomElement(using: &rng)! })
                guard !atRoot || domains.inputs[domain].rootPathProblem(code) == nil else { continue }
                link.code = domains.key(code: code, domain: domain)
                do {
                    try await store.insert(link)
                    return
                } catch {
                    // Anything but a taken code is the store failing (answered 503).
                    guard error.code == .duplicate else { throw error }
                }
            }
        }
        throw APIError(.serviceUnavailable, .codeSpaceExhausted, "no free short code was found; try again")
    }

    static let base62 = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    // MARK: Stats

    func linkStats(_ request: Request, _ context: ServiceContext) async throws -> Response {
        _ = try await token(request, context, .linksRead)
        let raw = context.parameters.get("link") ?? ""
        let shortLink = raw.removingPercentEncoding ?? raw
        let given = request.uri.queryParameters.getAll("durationDays")
        guard given.count <= 1 else { throw APIError.badRequest(.invalidField, "durationDays is given more than once", field: "durationDays") }
        let days = try Self.duration(given.first.map { String($0) })
        let code = try ownKey(of: shortLink)
        guard try await store.link(code: code) != nil else {
            throw APIError(.notFound, .notFound, "no short link \(LinkInput.excerpt(shortLink)) on this service")
        }
        let firstDay = ClickDay.day(of: now()) - Int64(days) + 1
        var stats: [FirebaseLinkStats.Stat] = []
        let clicks = try await store.clickDays(code: code, from: firstDay)
        for platform in [VisitPlatform.android, .ios, .desktop, .unknown] {
            let count = clicks.filter { $0.platform == platform }.reduce(0) { $0 + $1.clicks }
            if count > 0 { stats.append(.init(platform: Self.name(platform), event: "CLICK", count: String(count))) }
        }
        for (platform, opens) in try await store.appOpens(code: code, from: firstDay) where opens > 0 {
            stats.append(.init(platform: platform == .ios ? "IOS" : "ANDROID", event: "APP_FIRST_OPEN", count: String(opens)))
        }
        return try Response.json(FirebaseLinkStats(stats))
    }

    /// Google's name of a visit's platform.
    static func name(_ platform: VisitPlatform) -> String {
        switch platform {
        case .android: return "ANDROID"
        case .ios: return "IOS"
        case .desktop: return "DESKTOP"
        case .unknown, .bot: return "OTHER"
        }
    }

    /// `durationDays` as a number of days, 1 to ``longestDuration``.
    static func duration(_ text: String?) throws(APIError) -> Int {
        guard let text else { throw APIError.badRequest(.invalidField, "durationDays is required: the number of days to count, ending today", field: "durationDays") }
        guard text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let days = Int(text), (1...longestDuration).contains(days) else {
            throw APIError.badRequest(.invalidField, "durationDays must be a whole number from 1 to \(longestDuration)", field: "durationDays")
        }
        return days
    }

    /// The stored key of a short link of this service: `https://HOST/CODE` (or under one of a
    /// domain's `fdlPrefixes`) or `https://HOST/i/CODE` on one of a domain's hosts.
    func ownKey(of shortLink: String) throws(APIError) -> String {
        let notFound = APIError(.notFound, .notFound, "no short link \(LinkInput.excerpt(shortLink)) on this service")
        guard let parts = URLComponents(string: shortLink), let host = BrowserURL.host(shortLink) else { throw notFound }
        let path = parts.percentEncodedPath
        let found: (domain: Int, code: String)?
        if path.hasPrefix("/i/"), let d = domains.configurations.firstIndex(where: { $0.servesHost(host) }) {
            found = (d, String(path.dropFirst(3)))
        } else {
            found = domains.configuration.shortLink(host: host, path: path).map { ($0.domain, $0.code) }
        }
        guard let (domain, code) = found, domains.inputs[domain].isStoredCode(code) || LinkInput.isImportedCode(code) else { throw notFound }
        return domains.key(code: code, domain: domain)
    }
}

/// Where the Firebase REST API's errors take Google's shape: `{"error": {"code", "message", "status"}}`
/// with the status name Google's APIs use for the HTTP status.
struct FirebaseAPIErrors: RouterMiddleware {
    typealias Context = ServiceContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch let error as APIError {
            // Counted as every other refusal is (the API's are counted where they are logged).
            metrics.countRefusal(error.status)
            return Self.response(status: error.status, message: error.message, retryAfter: error.retryAfter)
        } catch let error as StoreError {
            let unavailable = APIError.storageUnavailable(cause: error)
            context.logger.error("request failed", metadata: ["path": "/v1", "code": "\(unavailable.code)", "cause": "\(error)"])
            return Self.response(status: unavailable.status, message: unavailable.message, retryAfter: APIError.retryAfterSeconds)
        }
    }

    /// Google's shape of `error` (a refusal, or the answer to a request no route takes).
    static func response(_ error: APIError) -> Response {
        var response = response(status: error.status, message: error.message, retryAfter: error.retryAfter)
        if let allow = error.allow { response.headers[.allow] = allow.joined(separator: ", ") }
        return response
    }

    static func response(status: HTTPResponse.Status, message: String, retryAfter: Int?) -> Response {
        let body = JSONWriter.compact(.object([("error", .object([
            ("code", .int(Int(status.code))), ("message", .string(message)), ("status", .string(googleStatus(status))),
        ]))])) + "\n"
        var headers: HTTPFields = [.contentType: "application/json; charset=UTF-8", .cacheControl: "no-store"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The canonical status name Google's APIs give an HTTP status.
    static func googleStatus(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 409: return "ALREADY_EXISTS"
        case 413: return "INVALID_ARGUMENT"
        case 429: return "RESOURCE_EXHAUSTED"
        case 501: return "UNIMPLEMENTED"
        case 503: return "UNAVAILABLE"
        default: return status.code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
        }
    }
}
