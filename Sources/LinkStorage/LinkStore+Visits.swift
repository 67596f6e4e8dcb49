import SwitchyardCore
import Foundation

extension LinkStore {
    /// Rows per INSERT: 20 values each, well under SQLite's and PostgreSQL's bind limits.
    static let visitRowsPerStatement = 200

    /// The stored columns of `visits`, in the order rows are written and read.
    enum VisitColumn: String, SQLColumns {
        case code, second, platform, referrerHost = "referrer_host", bot, address, visits
        case continent, country, region, city, browser, os, device
        case utmSource = "utm_source", utmMedium = "utm_medium", utmCampaign = "utm_campaign", utmTerm = "utm_term", utmContent = "utm_content"
        case visitor
    }

    static func values(_ v: Visit, count n: Int64) -> [SQLValue] {
        [.text(v.code), .int(v.second), .text(v.platform.rawValue), SQLValue(v.referrerHost), .int(v.bot ? 1 : 0), SQLValue(v.address), .int(n),
         SQLValue(v.place.continent), SQLValue(v.place.country), SQLValue(v.place.region), SQLValue(v.place.city),
         SQLValue(v.software.browser), SQLValue(v.software.os), SQLValue(v.software.device),
         SQLValue(v.campaign.source), SQLValue(v.campaign.medium), SQLValue(v.campaign.campaign), SQLValue(v.campaign.term), SQLValue(v.campaign.content),
         SQLValue(v.visitor)]
    }

    /// Writes visit records in `tx`, many rows per statement, in a stable order.
    static func addVisits(_ visits: [Visit: Int64], in tx: any SQLExecutor) async throws(StoreError) {
        // The order key is made once per row, not on every comparison.
        let rows = visits.map { visit, count -> (values: [SQLValue], code: String, second: Int64, rest: [String]) in
            let values = values(visit, count: count)
            return (values, visit.code, visit.second, values.map { $0.text ?? $0.int.map(String.init) ?? "" })
        }.sorted { a, b in
            if (a.code, a.second) != (b.code, b.second) { return (a.code, a.second) < (b.code, b.second) }
            return a.rest.lexicographicallyPrecedes(b.rest)
        }
        var start = 0
        let placeholders = "(" + Array(repeating: "?", count: VisitColumn.allCases.count).joined(separator: ", ") + ")"
        while start < rows.count {
            let chunk = rows[start..<min(start + visitRowsPerStatement, rows.count)]
            var binds: [SQLValue] = []
            binds.reserveCapacity(chunk.count * VisitColumn.allCases.count)
            for row in chunk { binds += row.values }
            let values = Array(repeating: placeholders, count: chunk.count).joined(separator: ", ")
            try await tx.run("INSERT INTO visits (\(VisitColumn.list)) VALUES " + values, binds)
            start += chunk.count
        }
    }

    /// Deletes visit records older than `date`, and notes how far records have been deleted
    /// (the rollups never make a day again from part of its records).
    package func pruneVisits(before date: Date) async throws(StoreError) {
        let second = Int64(date.timeIntervalSince1970.rounded(.down))
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) in
                try await tx.run("DELETE FROM visits WHERE second < ?", [.int(second)])
                try await tx.run("INSERT INTO visit_rollup_marks (name, day) VALUES ('records-deleted-before-second', ?) "
                                    + "ON CONFLICT (name) DO UPDATE SET day = CASE WHEN visit_rollup_marks.day > excluded.day THEN visit_rollup_marks.day ELSE excluded.day END",
                                 [.int(second)])
            }
        }
    }

    /// The hosts people came from to a link (human visits, within the retention), most first.
    package func referrers(code: String, limit: Int) async throws(StoreError) -> [(host: String, visits: Int64)] {
        try await db.read(
            "SELECT \(ReferrerColumn.list) FROM visits WHERE code = ? AND bot = 0 AND referrer_host IS NOT NULL "
                + "GROUP BY referrer_host ORDER BY total DESC, referrer_host LIMIT ?",
            [.text(code), .int(Int64(limit))])
            .map { SQLRow<ReferrerColumn>($0) }.map { (host: $0.text(.host) ?? "", visits: $0.int(.total) ?? 0) }
    }

    /// A referrer host and its human visits (PostgreSQL sums BIGINT as NUMERIC: cast back).
    enum ReferrerColumn: String, SQLColumns {
        case host = "referrer_host", total = "CAST(SUM(visits) AS BIGINT) AS total"
    }

    /// A link's visit records in seconds `seconds` (all by default), oldest first, at most `limit`.
    package func visits(code: String, seconds: Range<Int64> = Int64.min..<Int64.max, limit: Int = Int.max) async throws(StoreError) -> [(visit: Visit, count: Int64)] {
        try await db.read(
            "SELECT \(VisitColumn.list) FROM visits WHERE code = ? AND second >= ? AND second < ? "
                + "ORDER BY second, platform, referrer_host, bot, address, visitor LIMIT ?",
            [.text(code), .int(seconds.lowerBound), .int(seconds.upperBound), .int(Int64(min(limit, Int(Int64.max))))])
            .map { values in
                let row = SQLRow<VisitColumn>(values)
                var v = Visit(code: code, at: Date(timeIntervalSince1970: 0), platform: VisitPlatform(stored: row.text(.platform)),
                              referrerHost: row.text(.referrerHost), bot: row.int(.bot) == 1, address: row.text(.address))
                v.second = row.int(.second) ?? 0
                v.updateAudience { a in
                    a.place = .init(continent: row.text(.continent), country: row.text(.country), region: row.text(.region), city: row.text(.city))
                    a.software = .init(browser: row.text(.browser), os: row.text(.os), device: row.text(.device))
                    a.campaign = .init(source: row.text(.utmSource), medium: row.text(.utmMedium), campaign: row.text(.utmCampaign),
                                       term: row.text(.utmTerm), content: row.text(.utmContent))
                    a.visitor = row.text(.visitor)
                }
                return (v, row.int(.visits) ?? 0)
            }
    }

    // MARK: - Visitors of the day

    /// The secret that keys the visitor hashes of UTC day `day` (days since 1970), made by the
    /// first node that asks and shared by every node on this database; deleted by
    /// ``pruneVisitorSecrets(at:)`` once the day is over.
    package func visitorSecret(day: Int64, at date: Date) async throws(StoreError) -> String {
        try await sharedSecret(Self.visitorSecretPrefix + String(day), at: date)
    }

    static let visitorSecretPrefix = "visitors-"

    /// How long after a UTC day ends its visitor secret is kept: the flush of the day's last
    /// second still needs it.
    package static let visitorSecretGrace: Double = 300

    /// Deletes the visitor secrets of days that ended more than ``visitorSecretGrace`` before
    /// `date`: after that, no one (not the operator either) can tell whether two of that day's
    /// hashes came from a given address.
    package func pruneVisitorSecrets(at date: Date) async throws(StoreError) {
        let current = ClickDay.day(of: date.addingTimeInterval(-Self.visitorSecretGrace))
        let names = try await db.read("SELECT name FROM service_keys WHERE name LIKE ?", [.text(Self.visitorSecretPrefix + "%")])
            .compactMap { $0.first?.text }
        let old = names.filter { name in Int64(name.dropFirst(Self.visitorSecretPrefix.count)).map { $0 < current } ?? false }
        guard !old.isEmpty else { return }
        try await write { () async throws(StoreError) in
            for name in old { try await db.run("DELETE FROM service_keys WHERE name = ?", [.text(name)]) }
        }
    }

    // MARK: - Breakdowns

    /// What a breakdown groups human visits by.
    package enum Breakdown: String, Sendable, CaseIterable {
        case country, region, city, browser, os, device, platform, referrer
        case utmSource = "utm_source", utmMedium = "utm_medium", utmCampaign = "utm_campaign", day

        /// The SQL expression of the group's value.
        var expression: String {
            switch self {
            case .country: "country"
            case .region: "region"
            case .city: "city"
            case .browser: "browser"
            case .os: "os"
            case .device: "device"
            case .platform: "platform"
            case .referrer: "referrer_host"
            case .utmSource: "utm_source"
            case .utmMedium: "utm_medium"
            case .utmCampaign: "utm_campaign"
            case .day: "second / 86400"
            }
        }
    }

    /// One group of a breakdown: its value (nil: not known), human visits, and visitors counted
    /// once per link and day; for cities, the country too.
    package struct BreakdownRow: Sendable, Equatable {
        package var value: String?
        package var country: String?
        package var visits: Int64
        package var uniques: Int64
    }

    /// What a breakdown is taken over: one link or all, a span of whole UTC days, and a campaign.
    package struct BreakdownFilter: Sendable {
        package var code: String?
        /// First and last UTC day (days since 1970), both included.
        package var days: ClosedRange<Int64>
        package var campaign: String?
        /// Only the links carrying this tag (with no `code`).
        package var tag: String?
        /// Only the links of these domains (with no `code`; nil in it: the first; see ``LinkKey``).
        package var domains: [String?]?
        package init(code: String? = nil, days: ClosedRange<Int64>, campaign: String? = nil, tag: String? = nil, domains: [String?]? = nil) {
            (self.code, self.days, self.campaign, self.tag, self.domains) = (code, days, campaign, tag, domains)
        }

        /// The condition on a `code` column that a link carries the tag and is of the domains,
        /// with its values; nil with neither (or with a code).
        var linksCondition: (String, [SQLValue])? {
            guard code == nil, tag != nil || domains != nil else { return nil }
            var conditions: [String] = [], values: [SQLValue] = []
            if let tag { conditions.append(LinkStore.tagCondition); values.append(LinkStore.tagPattern(tag)) }
            if let domains { let (c, v) = LinkStore.domainCondition(domains); conditions.append(c); values += v }
            return ("code IN (SELECT code FROM links WHERE " + conditions.joined(separator: " AND ") + ")", values)
        }
    }

    enum BreakdownColumn: String, SQLColumns {
        case value, country, total = "CAST(SUM(visits) AS BIGINT) AS total", uniques = "COUNT(DISTINCT visitor) AS uniques"
    }

    /// Human visits grouped by `by`, most first (days in order, a group not known last), at most
    /// `limit` groups; and the totals. Days rolled up come from the rollups (kept after the
    /// records), the others from the visit records; with a campaign, all from the records (so
    /// within `visits.retentionDays`).
    package func breakdown(_ by: Breakdown, _ filter: BreakdownFilter, limit: Int) async throws(StoreError) -> (rows: [BreakdownRow], visits: Int64, uniques: Int64) {
        var parts: [(rows: [BreakdownRow], visits: Int64, uniques: Int64)] = []
        if filter.campaign == nil, let mark = try await rolledThrough(), filter.days.lowerBound <= mark {
            parts.append(try await rolledBreakdown(by, filter: filter, days: filter.days.lowerBound...min(mark, filter.days.upperBound)))
            if filter.days.upperBound > mark {
                var rest = filter
                rest.days = (mark + 1)...filter.days.upperBound
                parts.append(try await recordedBreakdown(by, rest))
            }
        } else {
            parts.append(try await recordedBreakdown(by, filter))
        }
        struct Key: Hashable { var value: String?, country: String? }
        var merged: [Key: (visits: Int64, uniques: Int64)] = [:]
        for part in parts {
            for row in part.rows {
                let key = Key(value: row.value, country: row.country)
                let sum = merged[key] ?? (0, 0)
                merged[key] = (sum.visits + row.visits, sum.uniques + row.uniques)
            }
        }
        let rows = merged.map { BreakdownRow(value: $0.key.value, country: $0.key.country, visits: $0.value.visits, uniques: $0.value.uniques) }
            .sorted { a, b in
                if by == .day { return (a.value ?? "") < (b.value ?? "") }
                if (a.value == nil) != (b.value == nil) { return b.value == nil }
                if a.visits != b.visits { return a.visits > b.visits }
                return ((a.value ?? ""), (a.country ?? "")) < ((b.value ?? ""), (b.country ?? ""))
            }
        return (Array(rows.prefix(limit)), parts.reduce(0) { $0 + $1.visits }, parts.reduce(0) { $0 + $1.uniques })
    }

    /// The same from the visit records alone, every group, in no order.
    func recordedBreakdown(_ by: Breakdown, _ filter: BreakdownFilter) async throws(StoreError) -> (rows: [BreakdownRow], visits: Int64, uniques: Int64) {
        var conditions = ["bot = 0", "second >= ?", "second < ?"]
        var binds: [SQLValue] = [.int(filter.days.lowerBound * 86400), .int((filter.days.upperBound + 1) * 86400)]
        if let code = filter.code { conditions.insert("code = ?", at: 0); binds.insert(.text(code), at: 0) }
        if let campaign = filter.campaign { conditions.append("utm_campaign = ?"); binds.append(.text(campaign)) }
        if let (condition, values) = filter.linksCondition {
            conditions.append(condition)
            binds += values
        }
        let whereClause = " FROM visits WHERE " + conditions.joined(separator: " AND ")
        // Uniques are per link and day: a visitor's hash is keyed by both.
        // A city with its country; cities not known are one group.
        let country = by == .city ? "CASE WHEN city IS NULL THEN NULL ELSE country END" : "NULL"
        let group = by == .city ? "value, country" : "value"
        let rows = try await db.read(
            "SELECT \(by.expression) AS value, \(country) AS country, CAST(SUM(visits) AS BIGINT) AS total, COUNT(DISTINCT visitor) AS uniques"
                + whereClause + " GROUP BY \(group)", binds)
            .map { SQLRow<BreakdownColumn>($0) }
            .map { row in
                let value: String? = by == .day ? row.int(.value).map { Timestamp.formatDay($0) } : row.text(.value)
                return BreakdownRow(value: value, country: row.text(.country), visits: row.int(.total) ?? 0, uniques: row.int(.uniques) ?? 0)
            }
        // A hash is keyed by link and day, so distinct hashes are distinct visitors of a link in a day.
        let totals = try await db.read("SELECT CAST(SUM(visits) AS BIGINT), COUNT(DISTINCT visitor)" + whereClause, binds)
        return (rows, totals.first?.first?.int ?? 0, totals.first.flatMap { $0.count > 1 ? $0[1].int : nil } ?? 0)
    }
}
