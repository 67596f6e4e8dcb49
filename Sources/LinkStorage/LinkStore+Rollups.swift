import Foundation
import SwitchyardCore

/// Daily rollups of people's visits (`visit_rollups`): for each link and all links together
/// (`*`), each UTC day and each group of each breakdown, the visits and the visitors. A visitor's
/// hash is keyed by link and day, so the visitors of several days or links are the sum of each
/// day's: the rollups answer a breakdown exactly as the records would, after the records are gone.
extension LinkStore {
    /// How long after a UTC day ends it is rolled up: the last batches of its visits (a node's
    /// flush that waited for the database) are written by then.
    package static let rollupGrace: Double = 15 * 60

    /// Rolls up every day the records hold that is over (and its grace), from the day after the
    /// last one rolled up; and the last two rolled days again (a node's late batch) when all
    /// their records are still kept (`recordsKeptSince`: no record from then on has been deleted),
    /// so a rollup is never made again from part of its day. Returns the days rolled. Run before
    /// the records past their retention are deleted.
    @discardableResult
    package func rollUpVisits(at date: Date, recordsKeptSince given: Date) async throws(StoreError) -> [Int64] {
        let lastDone = ClickDay.day(of: date.addingTimeInterval(-Self.rollupGrace)) - 1
        let mark = try await rolledThrough()
        // Records before the latest deletion's cutoff may be gone, whatever the retention says now.
        let pruned = try await db.read("SELECT day FROM visit_rollup_marks WHERE name = 'records-deleted-before-second'", []).first?.first?.int
        let kept = max(given.timeIntervalSince1970, Double(pruned ?? Int64.min))
        let first: Int64
        if let mark {
            first = mark - 1
        } else {
            guard let oldest = try await db.read("SELECT MIN(second) FROM visits", []).first?.first?.int else { return [] }
            first = oldest / 86_400
        }
        guard first <= lastDone else { return [] }
        var days: [Int64] = []
        for day in first...lastDone {
            // A rolled day some of whose records may be deleted keeps the rollup it has.
            if let mark, day <= mark, Double(day * 86_400) < kept { continue }
            try await rollUp(day: day)
            days.append(day)
        }
        try await write { () async throws(StoreError) in
            try await db.run("INSERT INTO visit_rollup_marks (name, day) VALUES ('visits', ?) "
                                + "ON CONFLICT (name) DO UPDATE SET day = CASE WHEN visit_rollup_marks.day > excluded.day THEN visit_rollup_marks.day ELSE excluded.day END",
                             [.int(lastDone)])
        }
        return days
    }

    /// The last day rolled up, or nil when none is.
    package func rolledThrough() async throws(StoreError) -> Int64? {
        try await db.read("SELECT day FROM visit_rollup_marks WHERE name = 'visits'", []).first?.first?.int
    }

    /// The rollup of one day, made again from its records in one transaction.
    func rollUp(day: Int64) async throws(StoreError) {
        let range: [SQLValue] = [.int(day * 86_400), .int((day + 1) * 86_400)]
        try await write { () async throws(StoreError) in
            try await db.transaction { tx throws(StoreError) in
                try await tx.run("DELETE FROM visit_rollups WHERE day = ?", [.int(day)])
                for (dimension, expression) in Self.rollupGroups {
                    for (code, group) in [("code", "code, "), ("'*'", "")] {
                        try await tx.run(
                            "INSERT INTO visit_rollups (code, day, dimension, value, visits, uniques) "
                                + "SELECT \(code), \(day), '\(dimension)', COALESCE(\(expression), ''), CAST(SUM(visits) AS BIGINT), COUNT(DISTINCT visitor) "
                                + "FROM visits WHERE bot = 0 AND second >= ? AND second < ? AND code IN (SELECT code FROM links) "
                                + "GROUP BY \(group)COALESCE(\(expression), '') "
                                + "ON CONFLICT (code, dimension, day, value) DO UPDATE SET visits = excluded.visits, uniques = excluded.uniques",
                            range)
                    }
                }
            }
        }
    }

    /// Each breakdown's group as the rollups keep it, and `all` for the day's totals. A city is
    /// kept with its country (`GB\u{1F}London`).
    static var rollupGroups: [(String, String)] {
        Breakdown.allCases.filter { $0 != .day }.map { by in
            (by.rawValue, by == .city ? "CASE WHEN city IS NULL THEN NULL ELSE COALESCE(country, '') || '\u{1F}' || city END" : by.expression)
        } + [("all", "''")]
    }

    /// A breakdown from the rollups of `days` (rolled-up days only): groups (all of them) and totals.
    /// With a tag or domains (and no code), the rollups of the links carrying it, of those
    /// domains, are added up: a visitor's hash is keyed by link, so their uniques add up as the
    /// records' do.
    func rolledBreakdown(_ by: Breakdown, filter: BreakdownFilter, days: ClosedRange<Int64>) async throws(StoreError) -> (rows: [BreakdownRow], visits: Int64, uniques: Int64) {
        let links: String, key: [SQLValue]
        if let (condition, values) = filter.linksCondition {
            links = condition
            key = values + [.int(days.lowerBound), .int(days.upperBound)]
        } else {
            links = "code = ?"
            key = [.text(filter.code ?? "*"), .int(days.lowerBound), .int(days.upperBound)]
        }
        let dimension = by == .day ? "all" : by.rawValue
        let value = by == .day ? "day" : "value"
        let rows = try await db.read(
            "SELECT \(value), CAST(SUM(visits) AS BIGINT), CAST(SUM(uniques) AS BIGINT) FROM visit_rollups "
                + "WHERE \(links) AND dimension = '\(dimension)' AND day >= ? AND day <= ? GROUP BY \(value)", key)
            .map { row -> BreakdownRow in
                let visits = row.count > 1 ? row[1].int ?? 0 : 0, uniques = row.count > 2 ? row[2].int ?? 0 : 0
                if by == .day { return BreakdownRow(value: row.first?.int.map { Timestamp.formatDay($0) }, country: nil, visits: visits, uniques: uniques) }
                let text = row.first?.text ?? ""
                if by == .city, let separator = text.firstIndex(of: "\u{1F}") {
                    let country = String(text[..<separator])
                    return BreakdownRow(value: String(text[text.index(after: separator)...]), country: country.isEmpty ? nil : country, visits: visits, uniques: uniques)
                }
                return BreakdownRow(value: text.isEmpty ? nil : text, country: nil, visits: visits, uniques: uniques)
            }
        let totals = try await db.read(
            "SELECT CAST(SUM(visits) AS BIGINT), CAST(SUM(uniques) AS BIGINT) FROM visit_rollups WHERE \(links) AND dimension = 'all' AND day >= ? AND day <= ?", key)
        return (rows, totals.first?.first?.int ?? 0, totals.first.flatMap { $0.count > 1 ? $0[1].int : nil } ?? 0)
    }
}
