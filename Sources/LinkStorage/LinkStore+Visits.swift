import SwitchyardCore
import Foundation

extension LinkStore {
    /// Rows per INSERT: 7 values each, well under SQLite's and PostgreSQL's bind limits.
    static let visitRowsPerStatement = 400

    /// Writes visit records in `tx`, many rows per statement, in a stable order.
    static func addVisits(_ visits: [Visit: Int64], in tx: any SQLExecutor) async throws(StoreError) {
        let rows = visits.sorted { a, b in
            (a.key.code, a.key.second, a.key.platform, a.key.referrerHost ?? "", a.key.address ?? "", a.key.bot ? 1 : 0)
                < (b.key.code, b.key.second, b.key.platform, b.key.referrerHost ?? "", b.key.address ?? "", b.key.bot ? 1 : 0)
        }
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + visitRowsPerStatement, rows.count)]
            var binds: [SQLValue] = []
            binds.reserveCapacity(chunk.count * 7)
            for (v, n) in chunk {
                binds += [.text(v.code), .int(v.second), .text(v.platform), SQLValue(v.referrerHost), .int(v.bot ? 1 : 0), SQLValue(v.address), .int(n)]
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
            "SELECT referrer_host, CAST(SUM(visits) AS BIGINT) AS total FROM visits WHERE code = ? AND bot = 0 AND referrer_host IS NOT NULL "
                + "GROUP BY referrer_host ORDER BY total DESC, referrer_host LIMIT ?",
            [.text(code), .int(Int64(limit))])
            .map { (host: $0[0].text ?? "", visits: $0[1].int ?? 0) }
    }

    /// A link's visit records, oldest first (for tests and exports).
    package func visits(code: String) async throws(StoreError) -> [(visit: Visit, count: Int64)] {
        try await db.read(
            "SELECT second, platform, referrer_host, bot, address, visits FROM visits WHERE code = ? "
                + "ORDER BY second, platform, referrer_host, bot, address", [.text(code)])
            .map { row in
                var v = Visit(code: code, at: Date(timeIntervalSince1970: Double(row[0].int ?? 0)), platform: row[1].text ?? "unknown",
                              referrerHost: row[2].text, bot: row[3].int == 1, address: row[4].text)
                v.second = row[0].int ?? 0
                return (v, row[5].int ?? 0)
            }
    }
}
