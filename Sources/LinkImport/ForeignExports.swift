import Foundation
import LinkRequests
import SwitchyardCore

/// A link as another shortener's export writes it, read but not yet checked: what Switchyard
/// keeps of it.
package struct ForeignLink: Sendable, Equatable {
    /// Where the link is in the file: its line (CSV, SQL) or its place in the list (JSON, from 1).
    package var line: Int
    /// The short link's path: the code it keeps.
    package var code: String
    /// Where the short link sent people.
    package var target: String
    package var title: String?
    package var tags: [String] = []
    package var createdAt: Date?
    package var clicks: Int64?
    package var expiresAt: Date?
    package var maxUses: Int64?
    /// The host the short link was served on, when the export says (nil: the product's default).
    package var host: String?

    package init(line: Int, code: String, target: String) {
        (self.line, self.code, self.target) = (line, code, target)
    }
}

/// What reading an export gave: its links, the rows that could not be read, and notes about what
/// was not kept.
package struct ForeignExport: Sendable {
    package var links: [ForeignLink] = []
    package var problems: [LinkImport.Problem] = []
    /// Records read (a CSV's header not counted).
    package var rows = 0
    package var notes: [String] = []
    /// Columns of a CSV that were not used.
    package var ignoredColumns: [String] = []
    /// Click counts and creation times that could not be read: the links are kept without them.
    var unreadableCounts = 0, unreadableTimes = 0
}

/// The shorteners whose exports `switchyard import` reads, and how it reads each, from the
/// products' own documentation and code (docs/migrating.md says what each keeps).
package enum ForeignFormat: String, CaseIterable, Sendable {
    /// Shlink's web client export (`short_urls.csv`).
    case shlinkCSV = "shlink-csv"
    /// Shlink's REST API answer, `GET /rest/v3/short-urls`.
    case shlinkJSON = "shlink-json"
    /// Kutt's API answer, `GET /api/v2/links`.
    case kuttJSON = "kutt-json"
    /// YOURLS: the Import/Export plugin's CSV (`source,target,hits`), or the `yourls_url` table as CSV.
    case yourlsCSV = "yourls-csv"
    /// YOURLS: a mysqldump of the `yourls_url` table.
    case yourlsSQL = "yourls-sql"
    /// Bitly's API answer, `GET /v4/groups/{group_guid}/bitlinks`.
    case bitlyJSON = "bitly-json"
    /// Short.io's API answer, `GET /api/links?domain_id=…`.
    case shortioJSON = "shortio-json"

    /// The product's name.
    package var product: String {
        switch self {
        case .shlinkCSV, .shlinkJSON: "Shlink"
        case .kuttJSON: "Kutt"
        case .yourlsCSV, .yourlsSQL: "YOURLS"
        case .bitlyJSON: "Bitly"
        case .shortioJSON: "Short.io"
        }
    }

    /// Whether the format's places are items of a JSON list (else lines of a file).
    package var isJSON: Bool { [.shlinkJSON, .kuttJSON, .bitlyJSON, .shortioJSON].contains(self) }

    /// The name the format gives a link's target, for problems that name it.
    package var targetField: String {
        switch self {
        case .shlinkCSV, .shlinkJSON: "longUrl"
        case .kuttJSON: "target"
        case .yourlsCSV, .yourlsSQL: "url"
        case .bitlyJSON: "long_url"
        case .shortioJSON: "originalURL"
        }
    }

    /// The format of a file of `product`'s, told from its first characters: JSON starts with `{`
    /// or `[`, a dump with SQL (`--`, `/*`, `CREATE`, `INSERT`, …), anything else is CSV.
    package static func detect(product: String, text: String) -> ForeignFormat? {
        let start = text.unicodeScalars.drop { $0 == "\u{FEFF}" || $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        let first = start.first.map(Character.init)
        let head = String(String.UnicodeScalarView(start.prefix(12))).uppercased()
        let json = first == "{" || first == "["
        let sql = head.hasPrefix("--") || head.hasPrefix("/*") || head.hasPrefix("CREATE") || head.hasPrefix("INSERT")
            || head.hasPrefix("DROP") || head.hasPrefix("LOCK") || head.hasPrefix("SET ") || head.hasPrefix("USE ") || head.hasPrefix("REPLACE")
        switch product {
        case "shlink": return json ? .shlinkJSON : .shlinkCSV
        case "kutt": return json ? .kuttJSON : nil
        case "yourls": return sql ? .yourlsSQL : .yourlsCSV
        case "bitly": return json ? .bitlyJSON : nil
        case "shortio": return json ? .shortioJSON : nil
        default: return nil
        }
    }

    /// What the import command of `product` reads, for a file that is none of it.
    package static func reads(product: String) -> String? {
        switch product {
        case "kutt": "Kutt's API answer (GET /api/v2/links) saved as JSON"
        case "bitly": "Bitly's API answer (GET /v4/groups/{group_guid}/bitlinks) saved as JSON; its CSV export is not read, its columns being documented nowhere we could check"
        case "shortio": "Short.io's API answer (GET /api/links?domain_id=…) saved as JSON; its CSV export is not read, its columns being documented nowhere we could check"
        default: nil
        }
    }

    /// Reads `text` in this format.
    package func read(_ text: String) throws(LinkImport.Failure) -> ForeignExport {
        switch self {
        case .shlinkCSV: try ForeignExports.shlinkCSV(text)
        case .shlinkJSON: try ForeignExports.shlinkJSON(ForeignExports.json(text))
        case .kuttJSON: try ForeignExports.kuttJSON(ForeignExports.json(text))
        case .yourlsCSV: try ForeignExports.yourlsCSV(text)
        case .yourlsSQL: try ForeignExports.yourlsSQL(text)
        case .bitlyJSON: try ForeignExports.bitlyJSON(ForeignExports.json(text))
        case .shortioJSON: try ForeignExports.shortioJSON(ForeignExports.json(text))
        }
    }
}

/// The readers of ``ForeignFormat``.
enum ForeignExports {
    typealias Failure = LinkImport.Failure

    // MARK: Shlink

    /// The web client's CSV: `createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits`
    /// (tags joined with `|`), or the earlier `createdAt,shortUrl,longUrl,title,tags,visits`
    /// (tags joined with `,`). The code is `shortCode`, else the path of `shortUrl`.
    static func shlinkCSV(_ text: String) throws(Failure) -> ForeignExport {
        let table = try CSVTable(text, product: "Shlink", required: [["longUrl"], ["shortCode", "shortUrl"]])
        var export = ForeignExport(rows: table.records.count, ignoredColumns: table.ignored(["createdAt", "domain", "shortCode", "shortUrl", "longUrl", "title", "tags", "visits"]))
        // The current client joins tags with |, the earlier one (without domain and shortCode) with ,.
        let separator: Character = table.has("shortCode") ? "|" : ","
        for record in table.records {
            guard let fields = table.fields(record, &export) else { continue }
            let shortURL = fields["shortUrl"].flatMap { URLComponents(string: $0) }
            guard let code = fields["shortCode"] ?? shortURL.map({ String($0.path.drop { $0 == "/" }) }), !code.isEmpty else {
                export.problem(record.line, "no shortCode, and no path in shortUrl"); continue
            }
            guard let target = fields["longUrl"] else { export.problem(record.line, "no longUrl"); continue }
            var link = ForeignLink(line: record.line, code: code, target: target)
            link.title = fields["title"]
            link.tags = fields["tags"].map { $0.split(separator: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
            link.host = fields["domain"] ?? shortURL?.host
            link.createdAt = export.time(fields["createdAt"])
            link.clicks = export.clicks(fields["visits"])
            export.links.append(link)
        }
        export.noteUnreadable()
        return export
    }

    /// `GET /rest/v3/short-urls`: `{"shortUrls": {"data": [ShortUrl, …], "pagination": …}}` (or
    /// the list of ShortUrls alone). Each: `shortCode`, `longUrl`, `dateCreated`, `tags`,
    /// `meta.validUntil` (the expiry), `meta.maxVisits`, `domain`, `title`, and the visits as
    /// `visitsSummary.total` (Shlink 3.4 and later) or `visitsCount` (earlier).
    static func shlinkJSON(_ document: JSONValue) throws(Failure) -> ForeignExport {
        let items = try list(document["shortUrls"]?["data"], in: document,
                             or: "not a Shlink API answer: no shortUrls.data list (GET /rest/v3/short-urls answers {\"shortUrls\": {\"data\": […]}})")
        var export = ForeignExport(rows: items.count)
        if let pages = document["shortUrls"]?["pagination"], let count = pages["pagesCount"]?.wholeNumber, count > 1 {
            export.notes.append("this file is page \(pages["currentPage"]?.wholeNumber ?? 1) of \(count): import every page's file (or ask the API for every link on one page, itemsPerPage=-1)")
        }
        var validSince = 0
        for (i, item) in items.enumerated() {
            let line = i + 1
            guard item.objectMembers != nil else { export.problem(line, "not an object"); continue }
            guard let code = item["shortCode"]?.stringValue, !code.isEmpty else { export.problem(line, "no shortCode"); continue }
            guard let target = item["longUrl"]?.stringValue else { export.problem(line, "\(code): no longUrl"); continue }
            var link = ForeignLink(line: line, code: code, target: target)
            link.title = item["title"]?.stringValue
            link.tags = item["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            link.host = item["domain"]?.stringValue
            link.clicks = export.clicks(item["visitsSummary"]?["total"] ?? item["visitsCount"])
            link.maxUses = item["meta"]?["maxVisits"]?.wholeNumber
            if item["meta"]?["validSince"]?.stringValue != nil { validSince += 1 }
            link.createdAt = export.time(item["dateCreated"]?.stringValue)
            do throws(Failure) {
                link.expiresAt = try item["meta"]?["validUntil"]?.stringValue.map { t throws(Failure) in try date(t, "meta.validUntil") }
            } catch { export.unreadableExpiry(line, code, error); continue }
            export.links.append(link)
        }
        export.noteUnreadable()
        if validSince > 0 { export.notes.append("\(validSince) link\(validSince == 1 ? " has" : "s have") a validSince: Switchyard links work from their creation, so they work at once") }
        return export
    }

    // MARK: Kutt

    /// `GET /api/v2/links`: `{"total", "limit", "skip", "data": [Link, …]}` (or the list alone).
    /// Each: `address` (the code), `target`, `description` (kept as the title), `created_at`,
    /// `expire_in`, `visit_count`, `domain` (nil: the instance's own). Banned and
    /// password-protected links are left out, each said.
    static func kuttJSON(_ document: JSONValue) throws(Failure) -> ForeignExport {
        let items = try list(document["data"], in: document,
                             or: "not a Kutt API answer: no data list (GET /api/v2/links answers {\"total\", \"limit\", \"skip\", \"data\": […]})")
        var export = ForeignExport(rows: items.count)
        if let total = document["total"]?.wholeNumber, total > Int64(items.count) {
            let skip = document["skip"]?.wholeNumber ?? 0
            export.notes.append("this file holds links \(skip + 1)–\(skip + Int64(items.count)) of \(total) (Kutt answers at most 50 at a time): import every page's file (skip=0, 50, 100, …)")
        }
        for (i, item) in items.enumerated() {
            let line = i + 1
            guard item.objectMembers != nil else { export.problem(line, "not an object"); continue }
            guard let code = item["address"]?.stringValue, !code.isEmpty else { export.problem(line, "no address"); continue }
            guard let target = item["target"]?.stringValue else { export.problem(line, "\(code): no target"); continue }
            if item["banned"] == .bool(true) { export.problem(line, "\(code): banned in Kutt; not imported"); continue }
            if item["password"] == .bool(true) { export.protectedLeftOut(line, code, product: "Kutt"); continue }
            var link = ForeignLink(line: line, code: code, target: target)
            link.title = item["description"]?.stringValue
            link.host = item["domain"]?.stringValue
            link.clicks = export.clicks(item["visit_count"])
            link.createdAt = export.time(item["created_at"]?.stringValue)
            do throws(Failure) {
                link.expiresAt = try item["expire_in"]?.stringValue.map { t throws(Failure) in try date(t, "expire_in") }
            } catch { export.unreadableExpiry(line, code, error); continue }
            export.links.append(link)
        }
        export.noteUnreadable()
        return export
    }

    // MARK: Bitly

    /// `GET /v4/groups/{group_guid}/bitlinks`: `{"links": [Bitlink, …], "pagination": …}` (or the
    /// list alone). Each: `id` (`domain/back-half`: the code, and the host it had), `long_url`,
    /// `title`, `tags`, `created_at` (`2024-03-05T14:02:11+0000`), `expiration_at`, and
    /// `custom_bitlinks` — full URLs of the back-halves it was also given, each kept as a link of
    /// its own to the same target. Deleted Bitlinks are left out; the list carries no clicks.
    static func bitlyJSON(_ document: JSONValue) throws(Failure) -> ForeignExport {
        let items = try list(document["links"], in: document,
                             or: "not a Bitly API answer: no links list (GET /v4/groups/{group_guid}/bitlinks answers {\"links\": […], \"pagination\": …})")
        var export = ForeignExport(rows: items.count)
        if let next = document["pagination"]?["next"]?.stringValue, !next.isEmpty {
            export.notes.append("this file is one page of the group's Bitlinks (pagination.next is set): import every page's file (size=100, following next)")
        }
        var archived = 0, aliases = 0
        for (i, item) in items.enumerated() {
            let line = i + 1
            guard item.objectMembers != nil else { export.problem(line, "not an object"); continue }
            guard let id = item["id"]?.stringValue, let slash = id.firstIndex(of: "/"), id.index(after: slash) < id.endIndex else {
                export.problem(line, "no id of the form domain/back-half"); continue
            }
            let code = String(id[id.index(after: slash)...])
            guard let target = item["long_url"]?.stringValue else { export.problem(line, "\(code): no long_url"); continue }
            if item["is_deleted"] == .bool(true) { export.problem(line, "\(code): deleted in Bitly; not imported"); continue }
            var link = ForeignLink(line: line, code: code, target: target)
            link.host = String(id[..<slash])
            link.title = item["title"]?.stringValue
            link.tags = item["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            link.createdAt = export.time(item["created_at"]?.stringValue)
            do throws(Failure) {
                link.expiresAt = try item["expiration_at"]?.stringValue.map { t throws(Failure) in try date(t, "expiration_at") }
            } catch { export.unreadableExpiry(line, code, error); continue }
            if item["archived"] == .bool(true) { archived += 1 }
            export.links.append(link)
            // Its other back-halves lead to the same place: each is a link of its own.
            for custom in item["custom_bitlinks"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                guard let url = URLComponents(string: custom.contains("://") ? custom : "https://" + custom), let host = url.host else {
                    export.problem(line, "\(code): custom back-half \(JSONWriter.quote(custom)) is not a URL"); continue
                }
                let path = String(url.path.drop { $0 == "/" })
                guard !path.isEmpty, path != code || host != link.host else { continue }
                var alias = link
                alias.code = path
                alias.host = host
                export.links.append(alias)
                aliases += 1
            }
        }
        export.noteUnreadable()
        if aliases > 0 { export.notes.append(aliases == 1 ? "1 custom back-half is imported as a link of its own, to the same target" : "\(aliases) custom back-halves are imported as links of their own, to the same target") }
        if archived > 0 { export.notes.append("\(archived) Bitlink\(archived == 1 ? " was" : "s were") archived in Bitly (hidden from its lists): imported, and served as the others") }
        if !export.links.isEmpty { export.notes.append("Bitly's list carries no click counts (its clicks/summary endpoint does): the links start at 0") }
        return export
    }

    // MARK: Short.io

    /// `GET /api/links?domain_id=…`: `{"count", "links": [Link, …], "nextPageToken"}` (or the
    /// list alone). Each: `path` (the code; the root link, with none, is left out), `originalURL`,
    /// `title`, `tags`, `createdAt` and `expiresAt` (ISO 8601 or milliseconds since 1970),
    /// `clicksLimit` (the use limit), and the host from `shortURL`. Links with a password are
    /// left out (the export does not carry it); the list carries no clicks.
    static func shortioJSON(_ document: JSONValue) throws(Failure) -> ForeignExport {
        let items = try list(document["links"], in: document,
                             or: "not a Short.io API answer: no links list (GET /api/links?domain_id=… answers {\"count\", \"links\": […], \"nextPageToken\"})")
        var export = ForeignExport(rows: items.count)
        if let next = document["nextPageToken"]?.stringValue, !next.isEmpty {
            export.notes.append("this file is one page of the domain's links (nextPageToken is set): import every page's file (pageToken=…)")
        }
        for (i, item) in items.enumerated() {
            let line = i + 1
            guard item.objectMembers != nil else { export.problem(line, "not an object"); continue }
            guard let path = item["path"]?.stringValue else { export.problem(line, "no path"); continue }
            guard !path.isEmpty else { export.problem(line, "the domain's root link (no path): Switchyard serves its own root; not imported"); continue }
            guard let target = item["originalURL"]?.stringValue else { export.problem(line, "\(path): no originalURL"); continue }
            if item["hasPassword"] == .bool(true) || (item["password"]?.stringValue).map({ !$0.isEmpty }) == true {
                export.protectedLeftOut(line, path, product: "Short.io"); continue
            }
            var link = ForeignLink(line: line, code: path, target: target)
            link.title = item["title"]?.stringValue
            link.tags = item["tags"]?.arrayValue?.compactMap(\.stringValue) ?? []
            link.host = (item["shortURL"]?.stringValue ?? item["secureShortURL"]?.stringValue).flatMap { URLComponents(string: $0)?.host }
            link.maxUses = item["clicksLimit"]?.wholeNumber.flatMap { $0 > 0 ? $0 : nil }
            link.createdAt = export.time(item["createdAt"])
            do throws(Failure) { link.expiresAt = try date(item["expiresAt"], "expiresAt") } catch { export.unreadableExpiry(line, path, error); continue }
            export.links.append(link)
        }
        export.noteUnreadable()
        if !export.links.isEmpty { export.notes.append("Short.io's list carries no click counts (its statistics API does): the links start at 0") }
        return export
    }

    // MARK: YOURLS

    /// The Import/Export plugin's `source,target,hits` (source `/keyword/`), or the `yourls_url`
    /// table's own columns `keyword,url,title,timestamp,ip,clicks` (times read as UTC).
    static func yourlsCSV(_ text: String) throws(Failure) -> ForeignExport {
        let table = try CSVTable(text, product: "YOURLS", required: [])
        let plugin = table.has("source")
        try table.require(plugin ? [["source"], ["target"]] : [["keyword"], ["url"]], product: "YOURLS")
        let used = plugin ? ["source", "target", "hits"] : ["keyword", "url", "title", "timestamp", "ip", "clicks"]
        var export = ForeignExport(rows: table.records.count, ignoredColumns: table.ignored(used))
        for record in table.records {
            guard let fields = table.fields(record, &export) else { continue }
            let code = (plugin ? fields["source"] : fields["keyword"])?.trimmingCharacters(in: CharacterSet(charactersIn: "/")) ?? ""
            guard !code.isEmpty else { export.problem(record.line, "no keyword"); continue }
            guard let target = plugin ? fields["target"] : fields["url"] else { export.problem(record.line, "no target URL"); continue }
            var link = ForeignLink(line: record.line, code: code, target: target)
            link.title = fields["title"]
            link.clicks = export.clicks(plugin ? fields["hits"] : fields["clicks"])
            link.createdAt = export.time(fields["timestamp"])
            export.links.append(link)
        }
        export.noteUnreadable()
        if !plugin && table.has("timestamp") { export.notes.append("YOURLS's timestamps are read as UTC") }
        return export
    }

    /// A mysqldump of YOURLS's links table (`yourls_url`, or the table of another prefix ending
    /// in `url`): its `INSERT INTO` rows, by the dump's column list, else by its `CREATE TABLE`,
    /// else in YOURLS's order (`keyword`, `url`, `title`, `timestamp`, `ip`, `clicks`). Times are
    /// read as UTC, as mysqldump writes them by default (`SET TIME_ZONE='+00:00'`).
    static func yourlsSQL(_ text: String) throws(Failure) -> ForeignExport {
        var dump = SQLDump(text)
        var columns: [String]? = nil
        var table: String?
        var export = ForeignExport()
        // mysqldump says so in a version comment: /*!40103 SET TIME_ZONE='+00:00' */
        let utc = text.contains("SET TIME_ZONE='+00:00'")
        while let statement = try dump.nextStatement() {
            // What the statement is and names, from its start (an INSERT may be megabytes long).
            let head = statement.head
            let words = head.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map { $0.uppercased() }
            if words.starts(with: ["CREATE", "TABLE"]), let name = SQLDump.tableName(head), name.hasSuffix("url") {
                table = name
                columns = SQLDump.createColumns(statement.text)
            } else if words.starts(with: ["INSERT", "INTO"]) || words.starts(with: ["INSERT", "IGNORE", "INTO"]) || words.starts(with: ["REPLACE", "INTO"]) {
                guard let name = SQLDump.tableName(head), name.hasSuffix("url") else { continue }
                guard table == nil || table == name else { continue }
                table = name
                guard statement.terminated else {
                    throw Failure("line \(statement.line): the dump ends inside this INSERT (no closing ;): it was cut short; dump the table again")
                }
                let rows: (columns: [String]?, rows: [(line: Int, values: [String?])])
                do { rows = try SQLDump.insertRows(statement) } catch {
                    throw Failure("line \(error.line): \(error.message)")
                }
                let names = rows.columns ?? columns ?? ["keyword", "url", "title", "timestamp", "ip", "clicks"]
                for row in rows.rows {
                    export.rows += 1
                    guard row.values.count == names.count else {
                        export.problem(row.line, "\(row.values.count) values where the table has \(names.count) columns"); continue
                    }
                    let value = { (name: String) -> String? in names.firstIndex(of: name).flatMap { row.values[$0] } }
                    guard let code = value("keyword"), !code.isEmpty else { export.problem(row.line, "no keyword"); continue }
                    guard let target = value("url") else { export.problem(row.line, "\(code): no url"); continue }
                    var link = ForeignLink(line: row.line, code: code, target: target)
                    link.title = value("title").flatMap { $0.isEmpty ? nil : $0 }
                    link.clicks = export.clicks(value("clicks"))
                    link.createdAt = export.time(value("timestamp"))
                    export.links.append(link)
                }
            }
        }
        guard table != nil else { throw Failure("no YOURLS links table in the dump: no CREATE TABLE or INSERT INTO of a table named yourls_url (or another prefix's …url)") }
        export.noteUnreadable()
        if export.rows > 0 && !utc { export.notes.append("the dump does not say SET TIME_ZONE='+00:00'; its timestamps are read as UTC") }
        return export
    }

    // MARK: Shared

    static func json(_ text: String) throws(Failure) -> JSONValue {
        do { return try JSONParser.parse(bytes: Array(text.utf8), loneSurrogates: .refuse, duplicateKeys: .refuse) } catch {
            throw Failure("not JSON: \(error)")
        }
    }

    /// A time as the exports write it: RFC 3339 with `Z`, `+02:00` or `+0000`, with or without
    /// fractions of a second, or `YYYY-MM-DD HH:MM:SS` (UTC); read strictly (``Timestamp``).
    static func date(_ text: String, _ field: String) throws(Failure) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var candidates = [trimmed]
        let b = Array(trimmed.utf8)
        if b.count == 10 {
            // A day alone: its midnight, UTC.
            candidates = [trimmed + "T00:00:00Z"]
        } else if b.count == 19, b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "T") {
            // No offset: UTC, as YOURLS's table (and Kutt's on SQLite) hold it.
            candidates = [String(trimmed.prefix(10)) + "T" + String(trimmed.suffix(8)) + "Z"]
        } else if b.count > 5, let sign = trimmed.dropLast(4).last, sign == "+" || sign == "-", trimmed.suffix(4).allSatisfy(\.isASCII), trimmed.suffix(4).allSatisfy(\.isNumber) {
            // +0000 (no colon), as some PHP and Bitly dates write the offset.
            candidates.append(String(trimmed.dropLast(2)) + ":" + String(trimmed.suffix(2)))
        }
        for candidate in candidates { if case .success(let date) = Timestamp.parse(candidate) { return date } }
        throw Failure("\(field) \(JSONWriter.quote(text)) is not a time (ISO 8601, or YYYY-MM-DD HH:MM:SS)")
    }

    /// A time as Short.io's API writes one: ISO 8601 text (``date(_:_:)``) or
    /// milliseconds since 1970; nil for none or `null`.
    static func date(_ value: JSONValue?, _ field: String) throws(Failure) -> Date? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return try date(text, field)
        case .number(let millis, _)? where millis >= 0 && millis < 1e14: return Date(timeIntervalSince1970: millis / 1000)
        case let other?: throw Failure("\(field) \(JSONWriter.compact(other)) is not a time (ISO 8601, or milliseconds since 1970)")
        }
    }

    /// The items of an API answer: the list at `member`, or the document itself when it is the
    /// list alone (a saved answer's items, joined); else refused with `failure`.
    static func list(_ member: JSONValue?, in document: JSONValue, or failure: String) throws(Failure) -> [JSONValue] {
        if let items = document.arrayValue ?? member?.arrayValue { return items }
        throw Failure(failure)
    }

    /// A count as exports write it (`1234`, `1,234`, `1 234`), 0 to ``LinkInput/mostUses``; nil otherwise.
    static func count(_ text: String) -> Int64? {
        let digits = text.filter { $0 != "," && $0 != " " && $0 != "_" && $0 != "'" && $0 != "\u{A0}" }
        guard let n = Int64(digits), (0...LinkInput.mostUses).contains(n) else { return nil }
        return n
    }
}

extension ForeignExport {
    mutating func problem(_ line: Int, _ message: String) { problems.append(LinkImport.Problem(line: line, message: message)) }

    /// A click count (text or a JSON number); one that cannot be read is counted and nil.
    mutating func clicks(_ text: String?) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        if let n = ForeignExports.count(text) { return n }
        unreadableCounts += 1
        return nil
    }

    mutating func clicks(_ value: JSONValue?) -> Int64? {
        guard let value, value != .null else { return nil }
        if let n = value.wholeNumber { return n }
        unreadableCounts += 1
        return nil
    }

    /// A creation time; one that cannot be read (MySQL's `0000-00-00 00:00:00`, `2025-02-30`)
    /// is counted and nil: the link is dated when it is imported.
    mutating func time(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let date = try? ForeignExports.date(text, "") { return date }
        unreadableTimes += 1
        return nil
    }

    /// A creation time written as text or milliseconds (``ForeignExports/date(_:_:)``);
    /// one that cannot be read is counted and nil, as the text form counts one.
    mutating func time(_ value: JSONValue?) -> Date? {
        guard let value, value != .null else { return nil }
        if let date = try? ForeignExports.date(value, "") { return date }
        unreadableTimes += 1
        return nil
    }

    /// Says that the link `code` at `line` is left out because its expiry cannot be read.
    mutating func unreadableExpiry(_ line: Int, _ code: String, _ error: LinkImport.Failure) {
        problem(line, "\(code): \(error.message) (a link whose expiry cannot be read is not imported: it might be live where it ended)")
    }

    /// Says that the link `code` at `line` is left out because `product` protects it with a
    /// password its export does not carry.
    mutating func protectedLeftOut(_ line: Int, _ code: String, product: String) {
        problem(line, "\(code): protected by a password in \(product), which its export does not carry; not imported, so that it is not opened to everyone")
    }

    /// Says how many counts and times were not read.
    mutating func noteUnreadable() {
        if unreadableCounts > 0 {
            notes.append("\(unreadableCounts) click count\(unreadableCounts == 1 ? "" : "s") could not be read (not a whole number from 0 to \(LinkInput.mostUses)): \(unreadableCounts == 1 ? "its link starts" : "those links start") at 0")
        }
        if unreadableTimes > 0 {
            notes.append("\(unreadableTimes) creation time\(unreadableTimes == 1 ? "" : "s") could not be read (such as 0000-00-00 00:00:00): \(unreadableTimes == 1 ? "its link is" : "those links are") dated when imported")
        }
    }
}

extension JSONValue {
    /// A whole number of 0 or more, or nil.
    var wholeNumber: Int64? {
        guard case .number(let n, _) = self, n >= 0, n <= Double(LinkInput.mostUses), n == n.rounded() else { return nil }
        return Int64(n)
    }
}

/// A CSV file read by its header: which columns it has, and each record's value by name.
struct CSVTable {
    let header: [String]
    let headerLine: Int
    let records: [(line: Int, fields: [String])]

    init(_ text: String, product: String, required: [[String]]) throws(LinkImport.Failure) {
        let all: [(line: Int, fields: [String])]
        do { all = try CSV.parse(text) } catch { throw LinkImport.Failure("not CSV: \(error)", cause: error) }
        let nonEmpty = all.filter { !($0.fields.count == 1 && $0.fields[0].isEmpty) }
        guard let first = nonEmpty.first else { throw LinkImport.Failure("the file is empty") }
        header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        if header.count == 1, header[0].contains(";") {
            throw LinkImport.Failure("line \(first.line): the header's names are separated by ; — export the file with commas (comma-separated values)")
        }
        for name in header where header.filter({ $0 == name }).count > 1 {
            throw LinkImport.Failure("line \(first.line): the column \(name) appears twice in the header")
        }
        headerLine = first.line
        records = Array(nonEmpty.dropFirst())
        try require(required, product: product)
    }

    /// Refuses a header without one of each list of `required` columns.
    func require(_ required: [[String]], product: String) throws(LinkImport.Failure) {
        for choices in required where !choices.contains(where: header.contains) {
            throw LinkImport.Failure("line \(headerLine): no \(choices.joined(separator: " or ")) column; this is not \(product)'s export as documented (header: \(header.joined(separator: ",")))")
        }
    }

    func has(_ name: String) -> Bool { header.contains(name) }

    /// The header's names this reader does not use.
    func ignored(_ used: [String]) -> [String] { header.filter { !$0.isEmpty && !used.contains($0) } }

    /// A record's non-empty values by column name; nil (and a problem) when it has more or fewer
    /// fields than the header.
    func fields(_ record: (line: Int, fields: [String]), _ export: inout ForeignExport) -> [String: String]? {
        guard record.fields.count == header.count else {
            export.problem(record.line, "\(record.fields.count) fields where the header has \(header.count)")
            return nil
        }
        var values: [String: String] = [:]
        for (name, value) in zip(header, record.fields) where !value.isEmpty { values[name] = value }
        return values
    }
}
