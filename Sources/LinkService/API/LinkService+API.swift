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

    func createLink(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let token = try context.verifiedToken()
        let body = try await readJSON(request, context)
        var link = try input.read(body, now: now())
        link.createdBy = token.id
        try await insert(&link, chosenCode: !link.code.isEmpty)
        metrics.linksCreated.increment()
        return try Response.json(response(link), status: .created)
    }

    func getLink(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let code = try codeParameter(context)
        guard let link = try await store.link(code: code) else {
            throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code")
        }
        return try Response.json(response(link))
    }

    func listLinks(_ request: Request, _ context: ServiceContext) async throws -> Response {
        var limit = 50
        if let l = request.uri.queryParameters["limit"] {
            guard let n = Int(l), (1...200).contains(n) else { throw APIError.badRequest(.invalidLimit, "limit must be 1–200", field: "limit") }
            limit = n
        }
        var cursor: (Int64, String)?
        if let c = request.uri.queryParameters["cursor"] {
            guard let decoded = Self.decodeCursor(String(c)) else { throw APIError.badRequest(.invalidCursor, "cursor is not one this service returned", field: "cursor") }
            cursor = decoded
        }
        let page = try await store.links(after: cursor, limit: limit + 1)
        let links = page.prefix(limit)
        var next: String?
        if page.count > limit, let last = links.last { next = Self.encodeCursor(LinkStore.millis(last.createdAt), last.code) }
        return try Response.json(LinkListResponse(links: links.map(response), nextCursor: next))
    }

    /// PATCH `/api/links/{code}`: changes some fields of a link, checked as on create. This node's
    /// cache forgets the link at once; other nodes when the change is announced (PostgreSQL), or
    /// else when their cached copy expires (`HotLinks.ttl`, 5 s).
    func patchLink(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let code = try codeParameter(context)
        let body = try await readJSON(request, context)
        guard let members = body.objectMembers else { throw APIError.badRequest(.notAnObject, "the body must be a JSON object") }
        // Clicks still counted in memory are written first: a new `maxUses` is weighed against
        // every use so far, and the answer's `clicks` is the real count.
        try await hot.flush()
        guard let current = try await store.link(code: code) else {
            throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code")
        }
        let edited = try input.edit(current, with: members, now: now())
        let stored = try await store.update(edited)
        hot.forget(code)
        // Clicks the lane counted while the edit ran are written too, so a use limit set
        // just now is weighed against them from the next visit on.
        try? await hot.flush()
        guard let stored else { throw APIError(.notFound, .notFound, "no link with code \(code) (it was deleted meanwhile)", field: "code") }
        return try Response.json(response(stored))
    }

    func deleteLink(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let code = try codeParameter(context)
        let deleted = try await store.delete(code: code)
        hot.forget(code)
        guard deleted else { throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code") }
        return Response(status: .noContent)
    }

    // MARK: Plur-compatible invites

    func createInvite(_ request: Request, _ context: ServiceContext) async throws -> Response {
        guard let invites = configuration.invites else { throw Self.invitesNotConfigured }
        let token = try context.verifiedToken()
        let body = try await readBody(InviteRequest.self, request, context)
        for (key, _) in body.fields.members where !invites.fields.contains(where: { $0.field == key }) {
            let known = invites.fields.map(\.field)
            let meant = DocumentShape.suggestion(for: key, among: known).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
            throw APIError.badRequest(.unknownField, "unknown field \(JSONWriter.quote(key))\(meant) (known: \(known.joined(separator: ", ")))", field: key)
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
                if invites.required.contains(field) { throw APIError.badRequest(.missingField, "\(field) is required", field: field) }
                continue
            case .string(let s)?: value = s
            case let other?: throw APIError.badRequest(.invalidField, "\(field) must be a string, not \(other.typeName)", field: field)
            }
            if value.isEmpty && invites.required.contains(field) { throw APIError.badRequest(.missingField, "\(field) is required and must not be empty", field: field) }
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

    func getInvite(_ request: Request, _ context: ServiceContext) async throws -> Response {
        guard let invites = configuration.invites else { throw Self.invitesNotConfigured }
        let code = try codeParameter(context)
        guard let link = try await store.link(code: code), link.kind == "invite" else {
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
            try await limits.address(request, context)
            let date = now()
            let audience = LandingPage.Audience(userAgent: request.headers[.userAgent])
            let address = { clientAddress(request, context) }
            let visit = hot.visit(code, platform: audience, at: date, bot: false, referer: request.headers[.referer], address: address)
            switch try await countUse(code, audience, at: date, visit: visit, address: address) {
            case .counted: break
            case .exhausted: throw APIError(.gone, .usedUp, "invite \(code) has been used \(link.maxUses ?? 0) times, its limit")
            case .missing: throw APIError(.notFound, .notFound, "no invite with code \(code)", field: "code")
            }
        } else if link.maxUses != nil, request.headers[.authorization] != nil {
            _ = try await tokens.authenticateCounted(request, context, .linksRead)
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

    func resolve(_ request: Request, _ context: ServiceContext) async throws -> Response {
        guard let url = request.uri.queryParameters["url"].map(String.init), !url.isEmpty else {
            throw APIError.badRequest(.missingURL, "give the link to resolve as ?url=…", field: "url")
        }
        guard url.utf8.count <= 4096 else { throw APIError.badRequest(.invalidURL, "url is longer than 4096 bytes", field: "url") }
        // The same check as `switchyard resolve`: an absolute URL without spaces or control characters.
        if let problem = URLInput.problem(url) { throw APIError.badRequest(.invalidURL, "url \(LinkInput.excerpt(url)): \(problem)", field: "url") }
        // The engine runs matching and scripts (and their network calls) on its own threads; a
        // request that would wait behind more than a few per thread is turned away at once.
        let gate = resolveGate
        return try await gate.enter(busy: { others in
            var busy = APIError(.serviceUnavailable, .resolveBusy, "\(others) resolves are already running or waiting (the limit is \(gate.limit)); try again shortly")
            busy.retryAfter = 1
            return busy
        }) { () async throws -> Response in
            Response.json(await engine.resolve(url).json)
        }
    }

    // MARK: Shared

    func insert(_ link: inout StoredLink, chosenCode: Bool) async throws {
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
            } catch {
                // Anything but a taken code is the store failing (answered 503 by `StoreFailures`).
                guard error.code == .duplicate else { throw error }
                if chosenCode { throw APIError(.conflict, .codeTaken, "code \(link.code) is already taken", field: "code") }
                logger.notice("short code collision; drawing another", metadata: ["code": "\(link.code)"])
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
            throw APIError.badRequest(.invalidCode, "code \(JSONWriter.quote(code)) is no link's code: codes are 1–64 ASCII letters, digits, \"-\" and \"_\"", field: "code")
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
    func readBody<T: RequestBody>(_ type: T.Type, _ request: Request, _ context: ServiceContext) async throws -> T {
        try T.decode(await readJSON(request, context))
    }

    /// The JSON body, within the configured size limit.
    func readJSON(_ request: Request, _ context: ServiceContext) async throws -> JSONValue {
        if Self.declaresMore(request, than: configuration.maximumBodyBytes) {
            throw APIError(.contentTooLarge, .bodyTooLarge, "the body is larger than \(configuration.maximumBodyBytes) bytes, the service.maximumBodyBytes of the configuration")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: configuration.maximumBodyBytes) } catch {
            throw APIError(.contentTooLarge, .bodyTooLarge, "the body is larger than \(configuration.maximumBodyBytes) bytes, the service.maximumBodyBytes of the configuration")
        }
        do { return try JSONParser.parse(bytes: Array(buffer.readableBytesView), loneSurrogates: .refuse, duplicateKeys: .refuse) } catch {
            throw APIError.badRequest(.malformedJSON, "the body is not valid JSON: \(error)")
        }
    }

    /// The API's 503 for a store that failed (`StoreFailures` maps every store error a handler
    /// throws to it; a page that catches one itself logs it through here).
    func storeFailure(_ error: StoreError) -> APIError {
        logger.error("storage failed", metadata: ["error": "\(error)", "statement": "\(error.statement ?? "")"])
        return APIError.storageUnavailable(cause: error)
    }

    func clientAddress(_ request: Request, _ context: ServiceContext) -> String { limits.addresses.address(request, context) }

    static func encodeCursor(_ created: Int64, _ code: String) -> String {
        Base64URL.encode("\(created):\(code)".utf8)
    }

    static func decodeCursor(_ text: String) -> (Int64, String)? {
        guard let bytes = Base64URL.decode(text), let s = String(validating: bytes, as: UTF8.self),
              let colon = s.firstIndex(of: ":"), let created = Int64(s[..<colon]) else { return nil }
        return (created, String(s[s.index(after: colon)...]))
    }
}
