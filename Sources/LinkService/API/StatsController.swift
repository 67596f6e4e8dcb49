import Foundation
import Hummingbird
import LinkAudience
import LinkRequests
import LinkStorage
import SwitchyardCore

/// Breakdowns of human visits, from the visit records: `GET /api/stats?by=…` over every link
/// and `GET /api/links/{code}/stats?by=…` for one (``LinksController`` hands those over), by
/// country, region, city, browser, OS, device, platform, referrer, UTM source, medium or
/// campaign, or day, over whole UTC days `from`–`to`, optionally for one `campaign`.
struct StatsController: Sendable {
    let store: LinkStore
    let now: @Sendable () -> Date

    /// Days a breakdown may span, and groups it may list.
    static let maximumDays: Int64 = 366
    static let maximumGroups = 1000

    func addRoutes(reading: RouterGroup<ServiceContext>) {
        reading.get("stats") { request, _ in try await breakdown(request, code: nil) }
    }

    struct Answer: Encodable {
        struct Row: Encodable {
            var value: String?
            var country: String?
            var visits: Int64
            var uniques: Int64
        }
        var code: String?
        var by: String
        var from: String
        var to: String
        var campaign: String?
        var visits: Int64
        var uniques: Int64
        var rows: [Row]
    }

    /// The breakdown `request` asks for, of link `code` (checked to exist) or of every link.
    func breakdown(_ request: Request, code: String?) async throws -> Response {
        let query = request.uri.queryParameters
        for name in ["by", "from", "to", "campaign", "limit"] where query.getAll(name).count > 1 {
            throw APIError.badRequest(.invalidField, "\(name) is given more than once", field: name)
        }
        let names = LinkStore.Breakdown.allCases.map(\.rawValue)
        guard let byText = query["by"].map(String.init), let by = LinkStore.Breakdown(rawValue: byText) else {
            throw APIError.badRequest(.invalidField, "by must be one of " + names.joined(separator: ", "), field: "by")
        }
        let today = ClickDay.day(of: now())
        let to = try query["to"].map { try Self.day(String($0), field: "to") } ?? today
        let from = try query["from"].map { try Self.day(String($0), field: "from") } ?? (to - 29)
        guard from <= to else { throw APIError.badRequest(.invalidField, "from (\(Timestamp.formatDay(from))) is after to (\(Timestamp.formatDay(to)))", field: "from") }
        guard to - from < Self.maximumDays else { throw APIError.badRequest(.invalidField, "from–to spans more than \(Self.maximumDays) days", field: "from") }
        var limit = 100
        if let l = query["limit"] {
            guard let n = Int(l), (1...Self.maximumGroups).contains(n) else {
                throw APIError.badRequest(.invalidLimit, "limit must be a whole number from 1 to \(Self.maximumGroups)", field: "limit")
            }
            limit = n
        }
        let campaign = query["campaign"].map(String.init)
        if let campaign, campaign.isEmpty || campaign.count > Visit.Campaign.maximumCharacters {
            throw APIError.badRequest(.invalidField, "campaign must be 1–\(Visit.Campaign.maximumCharacters) characters", field: "campaign")
        }
        if let code { guard try await store.link(code: code) != nil else { throw APIError.noLink(code) } }
        let result = try await store.breakdown(by, .init(code: code, days: from...to, campaign: campaign), limit: by == .day ? Int(to - from + 1) : limit)
        return try Response.json(Answer(
            code: code, by: by.rawValue, from: Timestamp.formatDay(from), to: Timestamp.formatDay(to), campaign: campaign,
            visits: result.visits, uniques: result.uniques,
            rows: result.rows.map { .init(value: $0.value, country: $0.country, visits: $0.visits, uniques: $0.uniques) }),
            nilMembers: .null)
    }

    /// A UTC day written `YYYY-MM-DD`, as days since 1970.
    static func day(_ text: String, field: String) throws(APIError) -> Int64 {
        guard text.utf8.count == 10, case .success(let date) = Timestamp.parse(text + "T00:00:00Z") else {
            throw APIError.badRequest(.invalidField, "\(field) must be a day written YYYY-MM-DD, not \(JSONWriter.quote(text))", field: field)
        }
        return ClickDay.day(of: date)
    }
}
