import Foundation
import Hummingbird
import LinkStorage
import SwitchyardCore

extension LinkService {
    /// How many referrer hosts the stats and the dashboard list.
    static let topReferrers = 20

    /// GET `/api/links/{code}/stats` (`links:read`): human clicks and bot visits in all, human
    /// visits by platform, a day-by-day series over `days` days (default 30, at most 366) ending
    /// today (UTC), and the hosts people came from (from the visit records, so within
    /// `visits.retentionDays`). Visits of the last second may still be in memory.
    func linkStats(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let code = try codeParameter(context)
        var days = 30
        if request.uri.queryParameters.getAll("days").count > 1 {
            throw APIError.badRequest(.invalidDays, "days is given more than once", field: "days")
        }
        if let d = request.uri.queryParameters["days"] {
            guard let n = Int(d), (1...366).contains(n) else { throw APIError.badRequest(.invalidDays, "days must be a whole number from 1 to 366", field: "days") }
            days = n
        }
        guard let link = try await store.link(code: code) else {
            throw APIError(.notFound, .notFound, "no link with code \(code)", field: "code")
        }
        let today = ClickDay.day(of: now())
        let firstDay = today - Int64(days) + 1
        let rows = try await store.clickDays(code: code, from: firstDay)
        let platforms = try await store.clicksByPlatform(code: code)
        let referrers = try await store.referrers(code: code, limit: Self.topReferrers)
        var human = [Int64](repeating: 0, count: days), bot = [Int64](repeating: 0, count: days)
        for row in rows where row.day >= firstDay && row.day <= today {
            let i = Int(row.day - firstDay)
            if row.platform == ClickDay.bot { bot[i] += row.clicks } else { human[i] += row.clicks }
        }
        let botTotal = platforms.filter { $0.platform == ClickDay.bot }.reduce(0) { $0 + $1.clicks }
        return try Response.json(LinkStatsResponse(
            code: link.code,
            clicks: .init(human: link.clicks, bot: botTotal),
            byPlatform: OrderedMembers(platforms.filter { $0.platform != ClickDay.bot }.map { ($0.platform, $0.clicks) }),
            byDay: (0..<days).map { i in .init(day: Timestamp.formatDay(firstDay + Int64(i)), human: human[i], bot: bot[i]) },
            referrers: referrers.map { .init(host: $0.host, count: $0.visits) }))
    }
}
