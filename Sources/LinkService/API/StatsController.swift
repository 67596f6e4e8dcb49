import Foundation
import Hummingbird
import LinkAudience
import LinkConfiguration
import LinkRequests
import LinkStorage
import SwitchyardCore
import SwitchyardDocuments
import NIOCore

/// Breakdowns of human visits, from the visit records: `GET /api/stats?by=…` over every link
/// and `GET /api/links/{code}/stats?by=…` for one (``LinksController`` hands those over), by
/// country, region, city, browser, OS, device, platform, referrer, UTM source, medium or
/// campaign, or day, over whole UTC days `from`–`to`, optionally for one `campaign`.
struct StatsController: Sendable {
    let store: LinkStore
    let input: LinkInput
    let now: @Sendable () -> Date
    /// Whether visitors are counted (`visits.uniques`): if not, `uniques` is null, not 0.
    let countsUniques: Bool
    /// The domains `domain` names, and a token's limits.
    let domains: LinkDomains

    /// The query parameters of a breakdown, `by` first.
    static let parameters: [Substring] = ["by", "from", "to", "campaign", "tag", "limit", "format"]

    /// Days a breakdown may span, and groups it may list.
    static let maximumDays: Int64 = 366
    static let maximumGroups = 1000

    func addRoutes(reading: RouterGroup<ServiceContext>) {
        reading.get("stats") { request, context in
            // One domain's links with `domain`; a token limited to some domains reads theirs only.
            let token = try context.verifiedToken()
            let only = try LinksController.domainParameter(request).map { name throws(APIError) in
                [domains.keyName(try domains.index(named: name, field: "domain", token: token, .linksRead))]
            } ?? domains.keyNames(for: token, .linksRead)
            return try await breakdown(request, code: nil, domains: only)
        }
    }

    struct Answer: Encodable {
        struct Row: Encodable {
            var value: String?
            var country: String?
            var visits: Int64
            var uniques: Int64?
        }
        var code: String?
        var by: String
        var from: String
        var to: String
        var campaign: String?
        var tag: String?
        var visits: Int64
        var uniques: Int64?
        var rows: [Row]
    }

    /// The breakdown `request` asks for, of link `code` (checked to exist) or of every link.
    /// `domains`: with no code, only the links of these domains (see ``LinkKey``).
    func breakdown(_ request: Request, code: String?, domains: [String?]? = nil) async throws -> Response {
        let query = request.uri.queryParameters
        for name in Self.parameters where query.getAll(String(name)).count > 1 {
            throw APIError.badRequest(.invalidField, "\(name) is given more than once", field: String(name))
        }
        let names = LinkStore.Breakdown.allCases.map(\.rawValue)
        if query["by"] != nil, query["days"] != nil {
            throw APIError.badRequest(.invalidField, "days is the summary's; a breakdown takes from and to", field: "days")
        }
        if query["by"] == nil, let given = Self.parameters.dropFirst().first(where: { query[$0] != nil }) {
            throw APIError.badRequest(.invalidField, "\(given) applies to a breakdown: give by too (one of \(names.joined(separator: ", ")))", field: "by")
        }
        guard let byText = query["by"].map(String.init), let by = LinkStore.Breakdown(rawValue: byText) else {
            throw APIError.badRequest(.invalidField, "by must be one of " + names.joined(separator: ", "), field: "by")
        }
        let csv = try Self.wantsCSV(query)
        let (from, to) = try span(query)
        var limit = 100
        if let l = query["limit"] {
            guard let n = Int(l), (1...Self.maximumGroups).contains(n) else {
                throw APIError.badRequest(.invalidLimit, "limit must be a whole number from 1 to \(Self.maximumGroups)", field: "limit")
            }
            limit = n
        }
        let campaign = query["campaign"].map(String.init)
        if let campaign, campaign.isEmpty || campaign.count > Visit.Campaign.maximumCharacters || VisitText.cleaned(campaign) != campaign {
            throw APIError.badRequest(.invalidField, "campaign must be 1–\(Visit.Campaign.maximumCharacters) characters, as campaigns are kept: no control characters, no spaces around", field: "campaign")
        }
        var tag: String?
        if let t = query["tag"] {
            guard code == nil else { throw APIError.badRequest(.invalidField, "tag chooses links: it applies to GET /api/stats, across links", field: "tag") }
            tag = try LinkInput.tagFilter(t)
        }
        if let code { guard try await store.link(code: code) != nil else { throw APIError.noLink(LinkKey.code(of: code)) } }
        let result = try await store.breakdown(by, .init(code: code, days: from...to, campaign: campaign, tag: tag, domains: domains),
                                               limit: by == .day ? Int(to - from + 1) : limit)
        if csv {
            let counts = countsUniques ? ["visits", "uniques"] : ["visits"]
            var text = CSVFields.record((by == .city ? ["city", "country"] : [by.rawValue]) + counts)
            for row in result.rows {
                let value = CSVFields.spreadsheetSafe(row.value ?? "")
                text += CSVFields.record((by == .city ? [value, row.country ?? ""] : [value]) + [String(row.visits)] + (countsUniques ? [String(row.uniques)] : []))
            }
            let name = (code.map { LinkKey.code(of: $0) + "-" } ?? "") + by.rawValue + "-\(Timestamp.formatDay(from))-\(Timestamp.formatDay(to)).csv"
            return Self.csvResponse(ByteBuffer(string: text), name: name)
        }
        return try Response.json(Answer(
            code: code.map(LinkKey.code(of:)), by: by.rawValue, from: Timestamp.formatDay(from), to: Timestamp.formatDay(to), campaign: campaign, tag: tag,
            visits: result.visits, uniques: countsUniques ? result.uniques : nil,
            rows: result.rows.map { .init(value: $0.value, country: $0.country, visits: $0.visits, uniques: countsUniques ? $0.uniques : nil) }),
            nilMembers: .null)
    }

    /// The first and last UTC day `from` and `to` name (default: the 30 days to today), checked.
    func span(_ query: Parameters) throws(APIError) -> (Int64, Int64) { try Self.span(query, today: ClickDay.day(of: now())) }

    /// `from` and `to` of `query` as UTC days, checked; the 30 days to `today` when not given.
    static func span(_ query: Parameters, today: Int64) throws(APIError) -> (Int64, Int64) {
        let to = try query["to"].map { (t) throws(APIError) in try Self.day(String(t), field: "to") } ?? today
        let from = try query["from"].map { (f) throws(APIError) in try Self.day(String(f), field: "from") } ?? (to - 29)
        guard from <= to else { throw APIError.badRequest(.invalidField, "from (\(Timestamp.formatDay(from))) is after to (\(Timestamp.formatDay(to)))", field: "from") }
        guard to - from < Self.maximumDays else { throw APIError.badRequest(.invalidField, "from–to spans more than \(Self.maximumDays) days", field: "from") }
        return (from, to)
    }

    /// Whether `format` asks for CSV (`csv`) rather than JSON (`json`, the default).
    static func wantsCSV(_ query: Parameters) throws(APIError) -> Bool {
        switch query["format"].map(String.init) {
        case nil, "json": return false
        case "csv": return true
        case let other?: throw APIError.badRequest(.invalidField, "format must be json or csv, not \(JSONWriter.quote(other))", field: "format")
        }
    }

    static func csvResponse(_ body: ResponseBody, name: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(name)\"",
                                        .cacheControl: "no-store"], body: body)
    }

    static func csvResponse(_ buffer: ByteBuffer, name: String) -> Response { csvResponse(ResponseBody(byteBuffer: buffer), name: name) }

    /// The columns of a link's raw visits as CSV.
    static let visitColumns = ["time", "platform", "bot", "referrer", "network", "continent", "country", "region", "city", "browser", "os", "device",
                               "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "visitor", "visits"]
    /// Records read from the store per page of the CSV.
    static let visitsPerPage = 5_000

    /// GET `/api/links/{code}/visits?from=&to=` (`links:read`): the link's visit records (bots
    /// too) over whole UTC days as CSV, oldest first, written page by page; text a visitor chose
    /// (referrer, campaign, software names) is made inert for spreadsheets, and so is the
    /// visitor's hash, whose base64url text may begin with `-`.
    func visits(_ request: Request, key: String, code: String) async throws -> Response {
        let query = request.uri.queryParameters
        for name in ["from", "to"] where query.getAll(name).count > 1 {
            throw APIError.badRequest(.invalidField, "\(name) is given more than once", field: name)
        }
        let (from, to) = try span(query)
        guard try await store.link(code: key) != nil else { throw APIError.noLink(code) }
        let store = self.store
        let end = (to + 1) * 86_400
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: CSVFields.record(Self.visitColumns)))
            var start = from * 86_400
            while start < end {
                // Whole seconds per page: the page ends before the last second it reached, which
                // the next page reads whole (a page of one second alone is read whole too).
                let page = try await store.visits(code: key, seconds: start..<end, limit: Self.visitsPerPage)
                var rows = page
                if page.count == Self.visitsPerPage, let last = page.last?.visit.second, last > start {
                    rows = page.filter { $0.visit.second < last }
                    start = last
                } else if page.count == Self.visitsPerPage, let last = page.last?.visit.second {
                    rows = try await store.visits(code: key, seconds: last..<(last + 1))
                    start = last + 1
                } else {
                    start = end
                }
                var text = ""
                for (v, n) in rows {
                    let safe = { (t: String?) in CSVFields.spreadsheetSafe(t ?? "") }
                    text += CSVFields.record([
                        Timestamp.format(Date(timeIntervalSince1970: Double(v.second)), fractionalSeconds: false), v.platform.rawValue, v.bot ? "1" : "0",
                        safe(v.referrerHost), v.address ?? "", v.place.continent ?? "", v.place.country ?? "", safe(v.place.region), safe(v.place.city),
                        safe(v.software.browser), safe(v.software.os), safe(v.software.device), safe(v.campaign.source), safe(v.campaign.medium),
                        safe(v.campaign.campaign), safe(v.campaign.term), safe(v.campaign.content), safe(v.visitor), String(n),
                    ])
                }
                if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
            }
            try await writer.finish(nil)
        }
        return Self.csvResponse(body, name: "\(code)-visits-\(Timestamp.formatDay(from))-\(Timestamp.formatDay(to)).csv")
    }

    /// A UTC day written `YYYY-MM-DD`, as days since 1970.
    static func day(_ text: String, field: String) throws(APIError) -> Int64 {
        guard text.utf8.count == 10, case .success(let date) = Timestamp.parse(text + "T00:00:00Z") else {
            throw APIError.badRequest(.invalidField, "\(field) must be a day written YYYY-MM-DD, not \(JSONWriter.quote(text))", field: field)
        }
        return ClickDay.day(of: date)
    }
}
