import SwitchyardCore
import Foundation

extension LinkStore {
    /// Rows per INSERT: 7 values each, well under SQLite's and PostgreSQL's bind limits.
    static let visitRowsPerStatement = 400

    /// Writes visit records in `tx`, many rows per statement, in a stable order.
    static func addVisits(_ visits: [Visit: Int64], in tx: any SQLExecutor) async throws(StoreError) {
        let rows = visits.sorted { a, b in
            let (x, y) = (a.key, b.key)
            return (x.code, x.second, x.platform.rawValue, x.referrerHost ?? "", x.address ?? "", x.bot ? 1 : 0)
                < (y.code, y.second, y.platform.rawValue, y.referrerHost ?? "", y.address ?? "", y.bot ? 1 : 0)
        }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + visitRowsPerStatement, rows.count)]
            var binds: [SQLValue] = []
            binds.reserveCapacity(chunk.count * 7)
            for (v, n) in chunk {
                binds += [.text(v.code), .int(v.second), .text(v.platform.rawValue), SQLValue(v.referrerHost), .int(v.bot ? 1 : 0), SQLValue(v.address), .int(n)]
            }
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            try await tx.run("INSERT INTO visits (code, second, platform, referrer_host, bot, address, visits) VALUES " + values, binds)
            start += chunk.count
        }
    }

    /// Deletes visit records older than `date`.
    package func pruneVisits(before date: Date) async throws(StoreError) {
        try await write { () async throws(StoreError) in
            try await db.run("DELETE FROM visits WHERE second < ?", [.int(Int64(date.timeIntervalSince1970.rounded(.down)))])
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

    /// The columns of `visits`, in the order a link's records are read.
    enum VisitColumn: String, SQLColumns {
        case second, platform, referrerHost = "referrer_host", bot, address, visits
    }

    /// A link's visit records, oldest first (for tests and exports).
    package func visits(code: String) async throws(StoreError) -> [(visit: Visit, count: Int64)] {
        try await db.read(
            "SELECT \(VisitColumn.list) FROM visits WHERE code = ? "
                + "ORDER BY second, platform, referrer_host, bot, address", [.text(code)])
            .map { values in
                let row = SQLRow<VisitColumn>(values)
                var v = Visit(code: code, at: Date(timeIntervalSince1970: Double(row.int(.second) ?? 0)), platform: VisitPlatform(stored: row.text(.platform)),
                              referrerHost: row.text(.referrerHost), bot: row.int(.bot) == 1, address: row.text(.address))
                v.second = row.int(.second) ?? 0
                return (v, row.int(.visits) ?? 0)
            }
    }
}
