import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkPages
import LinkRules
import LinkStorage
import Logging
import NIOCore
import Prometheus
import NIOPosix
import SwitchyardCore
import SwitchyardNetwork

extension LinkService {
    // MARK: Links API

    func createLink(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let token = try context.verifiedToken()
        let body = try await readJSON(request, context)
        var link = try input.read(body, now: now())
        link.createdBy = token.id
        try await insert(&link, chosenCode: !link.code.isEmpty)
        metrics.linksCreated.increment()
        return try Response.json(response(link), status: .created)
    }

    func getLink(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let code = try codeParameter(context)
        guard let link = try await storeCall({ () async throws(StoreError) in try await store.link(code: code) }) else {
            throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code")
        }
        return try Response.json(response(link))
    }

    func listLinks(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        var limit = 50
        if let l = request.uri.queryParameters["limit"] {
            guard let n = Int(l), (1...200).contains(n) else { throw .badRequest(.invalidLimit, "limit must be 1–200", field: "limit") }
            limit = n
        }
        var cursor: (Int64, String)?
        if let c = request.uri.queryParameters["cursor"] {
            guard let decoded = Self.decodeCursor(String(c)) else { throw .badRequest(.invalidCursor, "cursor is not one this service returned", field: "cursor") }
            cursor = decoded
        }
        let page = try await storeCall { () async throws(StoreError) in try await store.links(after: cursor, limit: limit + 1) }
        let links = page.prefix(limit)
        var next: String?
        if page.count > limit, let last = links.last { next = Self.encodeCursor(LinkStore.millis(last.createdAt), last.code) }
        return try Response.json(LinkListResponse(links: links.map(response), nextCursor: next))
    }

    /// PATCH `/api/links/{code}`: changes some fields of a link, checked as on create. This node's
    /// cache forgets the link at once; other nodes when the change is announced (PostgreSQL), or
    /// else when their cached copy expires (`HotLinks.ttl`, 5 s).
    func patchLink(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let code = try codeParameter(context)
        let body = try await readJSON(request, context)
        guard let members = body.objectMembers else { throw .badRequest(.notAnObject, "the body must be a JSON object") }
        // Clicks still counted in memory are written first: a new `maxUses` is weighed against
        // every use so far, and the answer's `clicks` is the real count.
        try await storeCall { () async throws(StoreError) in try await hot.flush() }
        guard let current = try await storeCall({ () async throws(StoreError) in try await store.link(code: code) }) else {
            throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code")
        }
        let edited = try input.edit(current, with: members, now: now())
        let stored = try await storeCall { () async throws(StoreError) in try await store.update(edited) }
        hot.forget(code)
        // Clicks the lane counted while the edit ran are written too, so a use limit set
        // just now is weighed against them from the next visit on.
        try? await hot.flush()
        guard let stored else { throw APIError(.notFound, .notFound, "no link with code \(code) (it was deleted meanwhile)", field: "code") }
        return try Response.json(response(stored))
    }

    func deleteLink(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let code = try codeParameter(context)
        let deleted = try await storeCall { () async throws(StoreError) in try await store.delete(code: code) }
        hot.forget(code)
        guard deleted else { throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code") }
        return Response(status: .noContent)
    }

    // MARK: Plur-compatible invites

    func createInvite(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        guard let invites = configuration.invites else { throw Self.invitesNotConfigured }
        let token = try context.verifiedToken()
        let body = try await readBody(InviteRequest.self, request, context)
        for (key, _) in body.fields.members where !invites.fields.contains(where: { $0.field == key }) {
            let known = invites.fields.map(\.field)
            let meant = DocumentShape.suggestion(for: key, among: known).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
            throw .badRequest(.unknownField, "unknown field \(JSONWriter.quote(key))\(meant) (known: \(known.joined(separator: ", ")))", field: key)
        }
        var link = StoredLink(code: "", createdAt: now())
        link.kind = "invite"
        link.route = invites.route
        link.createdBy = token.id
        let given = body.fields.members
        for (field, parameter) in invites.fields {
            // Plur's client sends strings; a number is not silently made one.
            let value: String
            switch given.last(where: { $0.key == field })?.value {
            case nil, .null?:
                if invites.required.contains(field) { throw .badRequest(.missingField, "\(field) is required", field: field) }
                continue
            case .string(let s)?: value = s
            case let other?: throw .badRequest(.invalidField, "\(field) must be a string, not \(other.typeName)", field: field)
            }
            if value.isEmpty && invites.required.contains(field) { throw .badRequest(.missingField, "\(field) is required and must not be empty", field: field) }
            try LinkInput.checkText(value, field: field)
            link.parameters.append((parameter, value))
        }
        try await insert(&link, chosenCode: false)
        metrics.linksCreated.increment()
        // A superset of both shapes Plur's client decodes: `{code, url}` (InviteCreateResponse)
        // and `{code, groupId, relay}` (InviteResponse), the fields in configuration order.
        var answer = inviteFields(link, invites)
        answer.members.insert(("url", pageURL(of: link)), at: 1)
        return try Response.json(answer, status: .created)
    }

    static let invitesNotConfigured = APIError(.notFound, .invitesNotConfigured, "this service has no invites section in its configuration")
    /// The header Plur's client sends its token in when it creates an invite.
    static let inviteTokenHeader = HTTPField.Name("X-Invite-Token")!

    func getInvite(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        guard let invites = configuration.invites else { throw Self.invitesNotConfigured }
        let code = try codeParameter(context)
        guard let link = try await storeCall({ () async throws(StoreError) in try await store.link(code: code) }), link.kind == "invite" else {
            throw APIError(.notFound, .notFound, "no invite with code \(code)", field: "code")
        }
        if let e = link.expiresAt, e <= now() { throw APIError(.gone, .expired, "invite \(code) expired") }
        // As its page answers: an invite used as often as it may be is gone.
        if let max = link.maxUses, link.clicks >= max { throw APIError(.gone, .usedUp, "invite \(code) has been used \(max) times, its limit") }
        if link.maxUses != nil, request.headers[.authorization] == nil, request.method == .get {
            // A use-limited invite's fields are what its uses protect: reading them without a
            // token is a use, counted as a visit to its page counts one (the app that a universal
            // link opened reads the invite instead of visiting the page). With a token
            // (`links:read`) it is an administrator's read and counts nothing.
            try await limitAddress(request, context)
            let date = now()
            let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
            let address = { clientAddress(request, context) }
            let visit = hot.visit(code, platform: audience, at: date, bot: false, referer: request.headers[.referer], address: address)
            switch try await storeCall({ () async throws(StoreError) in try await countUse(code, audience, at: date, visit: visit, address: address) }) {
            case .counted: break
            case .exhausted: throw APIError(.gone, .usedUp, "invite \(code) has been used \(link.maxUses ?? 0) times, its limit")
            case .missing: throw APIError(.notFound, .notFound, "no invite with code \(code)", field: "code")
            }
        } else if link.maxUses != nil, request.headers[.authorization] != nil {
            _ = try await authenticateCounted(request, context, .linksRead)
        } else if link.maxUses != nil {
            // HEAD without a token: the status and headers of the read, no use counted and no body.
            return Response(status: .ok, headers: [.contentType: "application/json"])
        }
        return try Response.json(inviteFields(link, invites))
    }

    /// `code`, then every invite field (null when the invite has none).
    func inviteFields(_ link: StoredLink, _ invites: ServiceConfiguration.Invites) -> OrderedMembers<String?> {
        var fields = OrderedMembers<String?>([("code", link.code)])
        for (field, parameter) in invites.fields where parameter != invites.codeParameter {
            fields.members.append((field, link.parameter(parameter)))
        }
        return fields
    }

    // MARK: Resolve

    func resolve(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        guard let url = request.uri.queryParameters["url"].map(String.init), !url.isEmpty else {
            throw .badRequest(.missingURL, "give the link to resolve as ?url=…", field: "url")
        }
        guard url.utf8.count <= 4096 else { throw .badRequest(.invalidURL, "url is longer than 4096 bytes", field: "url") }
        // The same check as `switchyard resolve`: an absolute URL without spaces or control characters.
        if let problem = URLInput.problem(url) { throw .badRequest(.invalidURL, "url \(LinkInput.excerpt(url)): \(problem)", field: "url") }
        // The engine runs matching and scripts (and their network calls) on its own threads; a
        // request that would wait behind more than a few per thread is turned away at once.
        let gate = resolveGate
        return try await gate.enter(busy: { others in
            var busy = APIError(.serviceUnavailable, .resolveBusy, "\(others) resolves are already running or waiting (the limit is \(gate.limit)); try again shortly")
            busy.retryAfter = 1
            return busy
        }) { () async throws(APIError) -> Response in
            Response.json(await engine.resolve(url).json)
        }
    }

    // MARK: Shared

    func insert(_ link: inout StoredLink, chosenCode: Bool) async throws(APIError) {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            if !chosenCode {
                link.code = String((0..<configuration.codeLength).map { _ in configuration.codeAlphabet.randomElement(using: &rng)! })
                if let invites = configuration.invites, link.kind == "invite", let p = invites.codeParameter {
                    link.parameters.removeAll { $0.0 == p }
                    link.parameters.append((p, link.code))
                }
            }
            do {
                try await store.insert(link)
                hot.forget(link.code)
                return
            } catch where error.code == .duplicate {
                if chosenCode { throw APIError(.conflict, .codeTaken, "code \(link.code) is already taken", field: "code") }
                logger.notice("short code collision; drawing another", metadata: ["code": "\(link.code)"])
            } catch {
                throw storeFailure(error)
            }
        }
        throw APIError(.serviceUnavailable, .codeSpaceExhausted, "8 random codes in a row were taken; raise links.length")
    }

    /// Where a stored link's page is: an imported Firebase link at its old path, others at /i/.
    func pageURL(of link: StoredLink) -> String { Self.pageURL(code: link.code, kind: link.kind, configuration: configuration) }

    static func pageURL(of link: StoredLink, configuration: ServiceConfiguration) -> String {
        pageURL(code: link.code, kind: link.kind, configuration: configuration)
    }

    /// The one definition of a page URL: every response, page, QR image and webhook event uses it.
    static func pageURL(code: String, kind: String, configuration: ServiceConfiguration) -> String {
        configuration.publicURL + (kind == "fdl" ? "/" : "/i/") + code
    }

    /// The deep link a stored link stands for.
    func deepLink(of link: StoredLink) -> String? { Self.deepLink(of: link, input: input) }

    static func deepLink(of link: StoredLink, input: LinkInput) -> String? {
        if let d = link.deepLink { return d }
        if let r = link.route { return input.deepLink(route: r, parameters: link.parameters) }
        return nil
    }

    func response(_ link: StoredLink) -> LinkResponse { Self.response(link, configuration: configuration, input: input) }

    /// A link as the API answers it (and as webhook events carry it).
    static func response(_ link: StoredLink, configuration: ServiceConfiguration, input: LinkInput) -> LinkResponse {
        var body = LinkResponse(link, url: pageURL(of: link, configuration: configuration), deepLink: deepLink(of: link, input: input))
        if link.kind != "fdl", let warning = appButtonWarning(for: body.deepLink, route: link.route, configuration: configuration) { body.warnings = [warning] }
        return body
    }

    func codeParameter(_ context: ServiceContext) throws(APIError) -> String {
        let code = context.parameters.get("code") ?? ""
        guard input.isStoredCode(code) else {
            throw .badRequest(.invalidCode, "code \(JSONWriter.quote(code)) is no link's code: codes are 1–64 ASCII letters, digits, \"-\" and \"_\"", field: "code")
        }
        return code
    }

    /// Whether the request's Content-Length says its body is over `limit`: refused before any
    /// of it is read, instead of when the bytes (which may never come) have arrived.
    static func declaresMore(_ request: Request, than limit: Int) -> Bool {
        // (A length too long for an Int, or not a number, never gets here: NIO's parser answers 400.)
        request.headers[.contentLength].flatMap { Int($0) }.map { $0 > limit } ?? false
    }

    /// The body read as `T`, within the configured size limit.
    func readBody<T: RequestBody>(_ type: T.Type, _ request: Request, _ context: ServiceContext) async throws(APIError) -> T {
        try T.decode(await readJSON(request, context))
    }

    /// The JSON body, within the configured size limit.
    func readJSON(_ request: Request, _ context: ServiceContext) async throws(APIError) -> JSONValue {
        if Self.declaresMore(request, than: configuration.maximumBodyBytes) {
            throw APIError(.contentTooLarge, .bodyTooLarge, "the body is larger than \(configuration.maximumBodyBytes) bytes, the service.maximumBodyBytes of the configuration")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: configuration.maximumBodyBytes) } catch {
            throw APIError(.contentTooLarge, .bodyTooLarge, "the body is larger than \(configuration.maximumBodyBytes) bytes, the service.maximumBodyBytes of the configuration")
        }
        do { return try JSONParser.parse(bytes: Array(buffer.readableBytesView), loneSurrogates: .refuse, duplicateKeys: .refuse) } catch {
            throw .badRequest(.malformedJSON, "the body is not valid JSON: \(error)")
        }
    }

    /// Checks the bearer token (or `header`): 401 when missing or wrong, 403 without `scope`.
    func authenticate(_ request: Request, _ scope: TokenScope, header: HTTPField.Name? = nil) async throws(APIError) -> StoredToken {
        var text: String?
        if let header, let v = request.headers[header] { text = v }
        if text == nil, let auth = request.headers[.authorization] {
            guard auth.lowercased().hasPrefix("bearer ") else { throw APIError(.unauthorized, .invalidToken, "Authorization must be 'Bearer <token>'") }
            text = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard let text else {
            throw APIError(.unauthorized, .missingToken, "this endpoint needs a token: Authorization: Bearer <token>\(header.map { " or \($0.rawName)" } ?? "")")
        }
        return try await verifyToken(text, scope)
    }

    /// ``authenticate(_:_:header:)``, with a refused token (401) counted against the address's
    /// failed-authentication bucket (429 once past it): guessing tokens is bounded on every
    /// route that takes one, whether a group guard or the handler asks.
    func authenticateCounted(_ request: Request, _ context: ServiceContext, _ scope: TokenScope, header: HTTPField.Name? = nil) async throws(APIError) -> StoredToken {
        do { return try await authenticate(request, scope, header: header) } catch {
            if error.status == .unauthorized { try await limitFailedAuthentication(request, context) }
            throw error
        }
    }

    /// The stored token `text` names: 401 when unknown, revoked or mistyped, 403 without
    /// `scope`, 429 past the token's rate limit.
    func verifyToken(_ text: String, _ scope: TokenScope) async throws(APIError) -> StoredToken {
        let invalid = APIError(.unauthorized, .invalidToken, "the token is not valid (unknown, revoked or mistyped)")
        guard let (id, secret) = APIToken.parse(text) else { throw invalid }
        let record = try await storeCall { () async throws(StoreError) in try await store.token(id: id) }
        // Compare even when the id is unknown, so timing says nothing about which ids exist.
        let expected = record?.secretHash ?? String(repeating: "0", count: 64)
        guard APIToken.constantTimeEquals(APIToken.hash(secret), expected), let record, record.revokedAt == nil else { throw invalid }
        guard APIToken.grants(record, scope) else {
            throw APIError(.forbidden, .insufficientScope, "token \(record.name) lacks the \(scope.rawValue) scope")
        }
        if let wait = await take(perToken, configuration.perTokenLimit, "token:" + record.id) { throw tooMany(wait, "token \(record.name)") }
        return record
    }

    func limitAddress(_ request: Request, _ context: ServiceContext) async throws(APIError) {
        let address = clientAddress(request, context)
        if let wait = await take(perAddress, configuration.perAddressLimit, "address:" + VisitSettings.rateLimitKey(address)) { throw tooMany(wait, "address \(address)") }
    }

    /// A request whose token was refused (401): one more against the address's limit, counted
    /// apart from its other requests; 429 once past it.
    func limitFailedAuthentication(_ request: Request, _ context: ServiceContext) async throws(APIError) {
        let address = clientAddress(request, context)
        if let wait = await take(perAddress, configuration.perAddressLimit, "auth-failures:" + VisitSettings.rateLimitKey(address)) {
            throw tooMany(wait, "address \(address) (refused tokens)")
        }
    }

    /// One request of `key` against `limit`: nil when allowed, else the seconds to wait. This
    /// node's bucket first: a client past the limit here is past it everywhere, and is refused
    /// without a round trip. Then, on PostgreSQL, the bucket every node takes from, so the limit
    /// holds whatever node answers; requests that arrive while a take is in flight share the next
    /// one (`SharedTakes`). While the database does not answer, this node's bucket alone decides
    /// (the request itself will need the database anyway).
    func take(_ local: RateLimiter, _ limit: ServiceConfiguration.RateLimit, _ key: String) async -> Double? {
        if let wait = local.take(key) { return wait }
        guard store.sharesRateLimits else { return nil }
        let (store, metrics) = (self.store, self.metrics)
        return await sharedTakes.token(key) { count -> SharedTakes.Take in
            do { return try await store.takeSharedTokens(key, count: count, perSecond: limit.perMinute / 60, burst: limit.burst) } catch {
                metrics.sharedLimitFailures.increment()
                return nil
            }
        }
    }

    func clientAddress(_ request: Request, _ context: ServiceContext) -> String {
        clientAddress(forwardedFor: { request.headers[values: Self.forwardedFor] }, peer: { context.remoteAddress?.ipAddress }) ?? "unknown"
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address: with `service.trustForwardedFor` (N proxies of your own in front),
    /// the entry of X-Forwarded-For (all its lines, in order) N from the right, the address the
    /// outermost of those proxies saw (each proxy appends the address it got the request from;
    /// entries further left are whatever the client sent). Else, or when that entry is empty,
    /// the peer's.
    func clientAddress(forwardedFor: String?, peer: () -> String?) -> String? {
        clientAddress(forwardedFor: { forwardedFor.map { [$0] } ?? [] }, peer: peer)
    }

    /// The same, with `forwardedFor` giving the header's lines (read only when they are trusted).
    func clientAddress(forwardedFor lines: () -> [String], peer: () -> String?) -> String? {
        let hops = configuration.trustedProxies
        if hops > 0, case let lines = lines(), !lines.isEmpty {
            let forwardedFor = lines.joined(separator: ",")
            let entries = forwardedFor.split(separator: ",", omittingEmptySubsequences: false)
            // Fewer entries than proxies: the request skipped the outer ones; the left-most is
            // still a proxy's.
            let entry = entries[max(0, entries.count - hops)].trimmingCharacters(in: .whitespaces)
            // Some proxies write `address:port` or `[v6]:port`: the port is not the client's, and
            // a new port per connection must not make a new client. What is not an address is
            // not believed either.
            if let address = Self.address(inForwardedEntry: entry) { return address }
        }
        return peer()
    }

    /// The IP address an X-Forwarded-For entry names (`203.0.113.7`, `203.0.113.7:4711`,
    /// `2001:db8::1`, `[2001:db8::1]:443`), in the form it was written; nil for anything else
    /// (`unknown`, a name, an empty entry).
    static func address(inForwardedEntry entry: String) -> String? {
        var text = Substring(entry)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"), !text[text.index(after: colon)...].contains(":") {
            text = text[..<colon]
        }
        let candidate = String(text)
        return HTTPFetcher.isAddressLiteral(candidate) ? candidate : nil
    }

    func tooMany(_ wait: Double, _ who: String) -> APIError {
        var e = APIError(.tooManyRequests, .rateLimited, "too many requests from \(who); retry in \(Int(wait.rounded(.up))) s")
        e.retryAfter = max(1, Int(wait.rounded(.up)))
        return e
    }

    func storeCall<T>(_ body: () async throws(StoreError) -> T) async throws(APIError) -> T {
        do { return try await body() } catch { throw storeFailure(error) }
    }

    func storeFailure(_ error: StoreError) -> APIError {
        logger.error("storage failed", metadata: ["error": "\(error)", "statement": "\(error.statement ?? "")"])
        return APIError(.serviceUnavailable, .storageUnavailable, "the database is not available; nothing was stored")
    }

    static func encodeCursor(_ created: Int64, _ code: String) -> String {
        Base64URL.encode("\(created):\(code)".utf8)
    }

    static func decodeCursor(_ text: String) -> (Int64, String)? {
        guard let bytes = Base64URL.decode(text), let s = String(validating: bytes, as: UTF8.self),
              let colon = s.firstIndex(of: ":"), let created = Int64(s[..<colon]) else { return nil }
        return (created, String(s[s.index(after: colon)...]))
    }
}
