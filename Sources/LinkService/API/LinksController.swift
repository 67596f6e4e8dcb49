import LinkCache
import LinkRequests
import Foundation
import Hummingbird
import LinkConfiguration
import LinkStorage
import Prometheus
import SwitchyardCore

/// `/api/links`: create, read, list, change and delete stored links, and their stats. The
/// guards (`links:read`, `links:write`, the address limit) are the groups' middleware.
struct LinksController: Sendable {
    let store: LinkStore
    let hot: HotLinks
    let answers: LinkAnswers
    /// The domains links are made on: each one's input checks, and the keys of their codes.
    let domains: LinkDomains
    let newLinks: NewLinks
    let bodies: RequestBodies
    /// Bodies of `POST /api/links/bulk`, up to `service.maximumBulkBodyBytes`.
    let bulkBodies: RequestBodies
    /// The token's limit, which a bulk request draws on once for each 100 links it carries.
    let limits: RequestLimits
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    /// Breakdowns (`?by=`), which the stats of one link hand over to.
    let breakdowns: StatsController

    /// How many referrer hosts the stats and the dashboard list.
    static let topReferrers = 20

    /// The reading routes on `reading` (behind `links:read`), the writing ones on `writing`.
    func addRoutes(reading: RouterGroup<ServiceContext>, writing: RouterGroup<ServiceContext>) {
        reading.get("links") { request, context in try await list(request, context) }
        reading.get("links/{code}") { request, context in try await get(request, context) }
        reading.get("links/{code}/stats") { request, context in try await stats(request, context) }
        reading.get("links/{code}/visits") { request, context in
            let (code, key, _) = try link(request, context, .linksRead)
            return try await breakdowns.visits(request, key: key, code: code)
        }
        writing.post("links") { request, context in try await create(request, context) }
        writing.post("links/bulk") { request, context in try await bulk(request, context) }
        writing.patch("links/{code}") { request, context in try await patch(request, context) }
        writing.delete("links/{code}") { request, context in try await delete(request, context) }
    }

    /// The domain a request names, checked against the verified token (``LinkDomains/index(named:field:token:_:)``).
    func domain(named name: String?, field: String, _ context: ServiceContext, _ scope: TokenScope) throws(APIError) -> Int {
        try domains.index(named: name, field: field, token: try context.verifiedToken(), scope)
    }

    /// The `domain` query parameter, given once at most.
    static func domainParameter(_ request: Request) throws(APIError) -> String? {
        let given = request.uri.queryParameters.getAll("domain")
        if given.count > 1 { throw APIError.badRequest(.invalidDomain, "domain is given more than once", field: "domain") }
        return given.first.map { String($0) }
    }

    /// The `{code}` of a request on the domain its `domain` query parameter names: the code as
    /// the API shows it, its stored key, and the domain's index.
    func link(_ request: Request, _ context: ServiceContext, _ scope: TokenScope) throws(APIError) -> (code: String, key: String, domain: Int) {
        let index = try domain(named: try Self.domainParameter(request), field: "domain", context, scope)
        let code = try domains.inputs[index].code(in: context)
        return (code, domains.key(code: code, domain: index), index)
    }

    func create(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let token = try context.verifiedToken()
        let body = try await bodies.json(request)
        // The domain first: the link is checked against that domain's routes and hosts.
        let asked = try LinkRequest.decode(body)
        // The domain in the body, or in the query as every other /api/links endpoint takes it.
        let queried = try Self.domainParameter(request)
        if let queried, let given = asked.domain, queried != given {
            throw APIError.badRequest(.invalidDomain, "domain is \(JSONWriter.quote(given)) in the body and \(JSONWriter.quote(queried)) in the query; give one", field: "domain")
        }
        let link = try await newLinks.create(asked, domain: queried, token: token, now: now())
        metrics.linksCreated.increment()
        return try Response.json(answers.response(link, now: now()), status: .created)
    }

    func get(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (code, key, _) = try link(request, context, .linksRead)
        guard let link = try await store.link(code: key) else { throw APIError.noLink(code) }
        return try Response.json(answers.response(link, now: now()))
    }

    func list(_ request: Request, _ context: ServiceContext) async throws -> Response {
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
        if request.uri.queryParameters.getAll("tag").count > 1 { throw APIError.badRequest(.invalidField, "tag is given more than once", field: "tag") }
        let tag = try request.uri.queryParameters["tag"].map { (t) throws(APIError) in try LinkInput.tagFilter(t) }
        // One domain when one is named; else every domain the token may read.
        let token = try context.verifiedToken()
        let only = try Self.domainParameter(request).map { name throws(APIError) in [domains.keyName(try domain(named: name, field: "domain", context, .linksRead))] }
            ?? domains.keyNames(for: token, .linksRead)
        let page = try await store.links(after: cursor, limit: limit + 1, tag: tag, domains: only)
        let links = page.prefix(limit)
        var next: String?
        if page.count > limit, let last = links.last { next = Self.encodeCursor(LinkStore.millis(last.createdAt), last.code) }
        let date = now()
        return try Response.json(LinkListResponse(links: links.map { answers.response($0, now: date) }, nextCursor: next))
    }

    /// PATCH `/api/links/{code}`: changes some fields of a link, checked as on create. This node's
    /// cache forgets the link at once; other nodes when the change is announced (PostgreSQL), or
    /// else when their cached copy expires (`HotLinks.ttl`, 5 s).
    func patch(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (code, key, index) = try link(request, context, .linksWrite)
        let body = try await bodies.json(request)
        guard let members = body.objectMembers else { throw APIError.badRequest(.notAnObject, "the body must be a JSON object") }
        // Clicks still counted in memory are written first: a new `maxUses` is weighed against
        // every use so far, and the answer's `clicks` is the real count.
        try await hot.flush()
        guard let current = try await store.link(code: key) else { throw APIError.noLink(code) }
        var edited = try domains.inputs[index].edit(current, with: members, now: now())
        try await newLinks.passwords.apply(LinkPatch.passwordChange(members), to: &edited)
        let stored = try await store.update(edited)
        hot.forget(key)
        // Clicks the lane counted while the edit ran are written too, so a use limit set
        // just now is weighed against them from the next visit on.
        try? await hot.flush()
        guard let stored else { throw APIError(.notFound, .notFound, "no link with code \(code) (it was deleted meanwhile)", field: "code") }
        return try Response.json(answers.response(stored, now: now()))
    }

    func delete(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (code, key, _) = try link(request, context, .linksWrite)
        let deleted = try await store.delete(code: key)
        hot.forget(key)
        guard deleted else { throw APIError.noLink(code) }
        return Response(status: .noContent)
    }

    /// GET `/api/links/{code}/stats` (`links:read`): human clicks and bot visits in all, human
    /// visits by platform, a day-by-day series over `days` days (default 30, at most 366) ending
    /// today (UTC), and the hosts people came from (from the visit records, so within
    /// `visits.retentionDays`). Visits of the last second may still be in memory.
    func stats(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (code, key, _) = try link(request, context, .linksRead)
        // A breakdown's parameters without `by` are the breakdown's to refuse.
        if StatsController.parameters.contains(where: { request.uri.queryParameters[$0] != nil }) {
            return try await breakdowns.breakdown(request, code: key)
        }
        var days = 30
        if request.uri.queryParameters.getAll("days").count > 1 {
            throw APIError.badRequest(.invalidDays, "days is given more than once", field: "days")
        }
        if let d = request.uri.queryParameters["days"] {
            guard let n = Int(d), (1...366).contains(n) else { throw APIError.badRequest(.invalidDays, "days must be a whole number from 1 to 366", field: "days") }
            days = n
        }
        guard let link = try await store.link(code: key) else { throw APIError.noLink(code) }
        let today = ClickDay.day(of: now())
        let firstDay = today - Int64(days) + 1
        let rows = try await store.clickDays(code: key, from: firstDay)
        let platforms = try await store.clicksByPlatform(code: key)
        let referrers = try await store.referrers(code: key, limit: Self.topReferrers)
        var human = [Int64](repeating: 0, count: days), bot = [Int64](repeating: 0, count: days)
        for row in rows where row.day >= firstDay && row.day <= today {
            let i = Int(row.day - firstDay)
            if row.platform == .bot { bot[i] += row.clicks } else { human[i] += row.clicks }
        }
        let botTotal = platforms.filter { $0.platform == .bot }.reduce(0) { $0 + $1.clicks }
        return try Response.json(LinkStatsResponse(
            code: code,
            clicks: .init(human: link.clicks, bot: botTotal),
            byPlatform: OrderedMembers(platforms.filter { $0.platform != .bot }.map { ($0.platform.rawValue, $0.clicks) }),
            byDay: (0..<days).map { i in .init(day: Timestamp.formatDay(firstDay + Int64(i)), human: human[i], bot: bot[i]) },
            referrers: referrers.map { .init(host: $0.host, count: $0.visits) }))
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

extension APIError {
    /// 404 for a code no stored link has.
    static func noLink(_ code: String) -> APIError { APIError(.notFound, .notFound, "no link with code \(code)", field: "code") }
}

extension LinkInput {
    /// The `{code}` path parameter, when it could be a stored link's code; else 400 saying why.
    func code(in context: ServiceContext) throws(APIError) -> String {
        let code = context.parameters.get("code") ?? ""
        guard isStoredCode(code) else {
            throw .badRequest(.invalidCode, "code \(JSONWriter.quote(code)) is no link's code: codes are 1–64 ASCII letters, digits, \"-\" and \"_\"", field: "code")
        }
        return code
    }
}
