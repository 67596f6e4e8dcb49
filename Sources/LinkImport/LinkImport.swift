import LinkRequests
import Foundation
import LinkRequests
import LinkConfiguration
import LinkStorage
import SwitchyardCore
import SwitchyardDocuments
import LinkRouting

/// Reads links from CSV, checked exactly as the API checks them: a Firebase Dynamic Links export
/// (`switchyard import fdl`) or Switchyard's own export (`switchyard import csv`). Rows that
/// cannot be used are reported with their line and reason and left out; the rest are stored
/// together, in one transaction (`LinkStore.importLinks`).
package struct LinkImport: Sendable {
    /// A row left out of an import, with its line and why.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The line of the file the row starts on.
        package var line: Int
        /// Why the row cannot be used.
        package var message: String
        /// `line N: message`.
        package var description: String { "line \(line): \(message)" }

        /// A problem with the row that starts on `line`.
        package init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// What a file holds: the links to store (each with its line) and the rows left out.
    package struct Plan: Sendable {
        /// The links to store, ready for `LinkStore.importLinks`.
        package var links: [StoredLink] = []
        /// The file line of each link in `links`, at the same index.
        package var lines: [Int] = []
        /// The rows left out, in file order.
        package var problems: [Problem] = []
        /// Data rows read (the header not counted).
        package var rows = 0
        /// Header names that were not used.
        package var ignoredColumns: [String] = []
        /// Things worth knowing that are not errors (short links on another host).
        package var notes: [String] = []
        /// What an existing link keeps because the file has no column for it (an export of an
        /// earlier version has no `utm` and `tags`).
        package var keeping: LinkStore.ImportKeeping = []
        /// What storing does with a code a stored link has (another shortener's links never
        /// overwrite one).
        package var existing: LinkStore.ImportExisting = .update
        /// Whether each problem's `line` is the place of an item in a JSON list (from 1), not a line.
        package var linesAreItems = false
    }

    /// A file that cannot be imported at all (`invalid-import`): not CSV, no header, missing
    /// columns. Rows that cannot be used are ``Problem``s instead, and the rest is imported.
    package typealias Failure = DomainError<ImportErrors>

    let input: LinkInput

    /// The text of an export file, refused when it is not UTF-8 (a file saved in another
    /// encoding: importing the rows that happen to read would be a guess), saying the line and
    /// the first byte that is no UTF-8 character.
    package static func text(_ bytes: [UInt8]) throws(Failure) -> String {
        switch UTF8Text.decode(bytes) {
        case .success(let text): return text
        case .failure(let invalid): throw Failure("not UTF-8 text: \(invalid) (save the export as UTF-8)")
        }
    }

    /// An importer that checks every row against this configuration, as the API would.
    package init(configuration: ServiceConfiguration) { input = LinkInput(configuration: configuration) }

    // MARK: Firebase Dynamic Links

    /// Header names (compared without case, spaces, `_` or `-`) → what they are. Every Firebase
    /// long-link parameter is taken under its own name (`apn`, `ifl`, `utm_source`, …).
    static let firebaseAliases: [String: String] = [
        "shortlink": "shortLink", "shortdynamiclink": "shortLink", "shorturl": "shortLink",
        "longlink": "longLink", "longdynamiclink": "longLink", "longurl": "longLink",
        "link": "link", "deeplink": "link",
        "linkname": "name", "name": "name",
    ]

    /// The header `import fdl` accepts, for its help and the README.
    package static let firebaseHeaderHelp = """
        shortLink (or "Short link", "Short Dynamic Link"): required, the short link whose path the link keeps; \
        longLink (or "Long link", "Long Dynamic Link"): the long link, whose query gives the parameters; \
        link (or "Deep link") and every Firebase long-link parameter by its own name (apn, afl, ibi, isi, ifl, ipfl, ofl, st, sd, si, efr, \
        utm_source, …): override the long link's; name (or "Link name"): the title when st is empty. \
        Names are compared ignoring case, spaces, _ and -; other columns are ignored and listed.
        """

    static func normalized(_ header: String) -> String {
        String(header.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" })
    }

    /// Paths the service answers itself, at the root.
    static let servicePaths: Set<String> = LinkInput.rootServicePaths

    /// Why an imported short link cannot keep `/code` (``LinkInput/rootPathProblem(_:)``).
    func reservedPath(_ code: String) -> String? { input.rootPathProblem(code) }


    /// Maps a Firebase console export: one link per row, its code the short link's path.
    package func firebase(_ text: String, now: Date) throws(Failure) -> Plan {
        let records = try parse(text)
        guard let header = records.first else { throw Failure("the file is empty; it needs a header row with shortLink and longLink or link") }
        let parameterNames = Dictionary(FirebaseLink.parameters.map { (Self.normalized($0.name), $0.name) }, uniquingKeysWith: { a, _ in a })
        var columns: [(index: Int, name: String)] = []
        var plan = Plan()
        for (i, raw) in header.fields.enumerated() {
            let key = Self.normalized(raw.trimmingCharacters(in: .whitespaces))
            if let name = Self.firebaseAliases[key] ?? parameterNames[key] {
                if columns.contains(where: { $0.name == name }) { throw Failure("line \(header.line): two columns of the header are \(name) (\(raw) is the second)") }
                columns.append((i, name))
            } else if !raw.isEmpty { plan.ignoredColumns.append(raw) }
        }
        let names = Set(columns.map(\.name))
        guard names.contains("shortLink") else {
            // Switchyard's own export (`switchyard export`, the dashboard's CSV) goes back in with `import csv`.
            let given = Set(header.fields.map { Self.normalized($0.trimmingCharacters(in: .whitespaces)) })
            if given.contains("code"), given.contains("kind") {
                throw Failure("line \(header.line): this is Switchyard's own CSV (its header has code, kind, deepLink …), not a Firebase export; import it with `switchyard import csv`")
            }
            throw Failure("line \(header.line): no shortLink column (the header has: \(header.fields.joined(separator: ", "))); accepted: \(Self.firebaseHeaderHelp)")
        }
        guard names.contains("longLink") || names.contains("link") else {
            throw Failure("line \(header.line): needs a longLink or a link column besides shortLink")
        }
        let lastColumnRead = columns.map(\.index).max() ?? 0
        let configuration = input.configuration
        let ownHost = URLComponents(string: configuration.publicURL)?.host?.lowercased()
        let domains = LinkDomains(configuration)
        var otherHosts: [String: Int] = [:]
        var seen: [String: Int] = [:]
        for record in records.dropFirst() {
            plan.rows += 1
            var values: [String: String] = [:]
            for (index, name) in columns where index < record.fields.count {
                let v = record.fields[index].trimmingCharacters(in: .whitespaces)
                if !v.isEmpty { values[name] = v }
            }
            func problem(_ message: String) { plan.problems.append(Problem(line: record.line, message: message)) }
            // A row that ends before a column that is read, or has values past the header's last
            // column (an unquoted comma in a name), was cut or shifted: which value belongs to
            // which column is a guess, so it is left out.
            if record.fields.count <= lastColumnRead || record.fields.dropFirst(header.fields.count).contains(where: { !$0.isEmpty }) {
                problem("\(record.fields.count) fields where the header has \(header.fields.count)"); continue
            }
            guard let short = values["shortLink"] else { problem("shortLink is empty"); continue }
            guard let components = URLComponents(string: short), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  let host = components.host?.lowercased(), !host.isEmpty else {
                problem("shortLink \(LinkInput.excerpt(short)) is not an http(s) URL"); continue
            }
            // The domain whose URL prefix (or host) the short link is under, its code the segment
            // after that; a link on no domain's prefix or host is the first domain's, at the root.
            let mapped = configuration.shortLink(host: host, path: components.percentEncodedPath)
            let domain = mapped?.domain ?? 0
            let code = mapped?.code ?? String(components.path.dropFirst())
            let underPrefix = !(mapped?.prefixPath.isEmpty ?? true)
            guard mapped != nil || components.path.hasPrefix("/") && !code.contains("/"), LinkInput.isImportedCode(code) else {
                let prefixes = domains.configurations.contains { !$0.fdlPrefixes.isEmpty } ? " (after the URL prefix, under one of fdlPrefixes)" : ""
                problem("shortLink \(LinkInput.excerpt(short)): its path must be one segment of 1–64 letters, digits, - or _\(prefixes)"); continue
            }
            if !underPrefix, let reason = domains.inputs[domain].rootPathProblem(code) {
                problem("shortLink path /\(code) \(reason), so the link could never be served there; give it another path"); continue
            }
            let key = domains.key(code: code, domain: domain)
            if let first = seen[key] {
                problem(domain == 0 && !underPrefix ? "shortLink path /\(code) is on line \(first) already"
                        : "shortLink \(LinkInput.excerpt(short)): its code \(code) on \(domains.configurations[domain].domainName) is on line \(first) already"); continue
            }
            if components.query != nil || components.fragment != nil {
                plan.notes.append("line \(record.line): shortLink \(LinkInput.excerpt(short)) has a query or fragment; the link is served at /\(code), and what follows the path is not part of it")
            }
            var pairs: [(String, String)] = []
            if let long = values["longLink"] {
                guard let longComponents = URLComponents(string: long), longComponents.scheme != nil else {
                    problem("longLink \(LinkInput.excerpt(long)) is not a URL"); continue
                }
                pairs += FirebaseLink.queryPairs(longComponents.percentEncodedQuery)
            }
            // A parameter's own column overrides the long link's parameter of that name.
            let given = columns.compactMap { _, name in name != "shortLink" && name != "longLink" && name != "name" ? values[name].map { (name, $0) } : nil }
            pairs = pairs.filter { pair in !given.contains { $0.0 == pair.0 } } + given
            let link: FirebaseLink
            do { link = try FirebaseLink(pairs, input: domains.inputs[domain]) } catch {
                // Every refusal of a Firebase link's parameters names the parameter it is about.
                problem(error.message)
                continue
            }
            var stored = link.storedLink(code: key, now: now)
            if stored.title == nil, let name = values["name"] {
                // The name stands in for the title: the title's limit holds.
                guard name.count <= LinkInput.maximumTitleLength else {
                    problem("name is longer than \(LinkInput.maximumTitleLength) characters (\(name.count)); it would be the link's title"); continue
                }
                do { try LinkInput.checkText(name, field: "name") } catch { problem(error.message); continue }
                stored.title = name
            }
            seen[key] = record.line
            if mapped == nil, host != ownHost { otherHosts[host, default: 0] += 1 }
            plan.links.append(stored)
            plan.lines.append(record.line)
        }
        for (host, n) in otherHosts.sorted(by: { $0.key < $1.key }) {
            plan.notes.append("\(n) short link\(n == 1 ? " was" : "s were") on \(host), not on this service's host \(ownHost ?? "?"): imported under the same path, "
                + "but a link keeps working only if \(host) now points at this service"
                + (host.hasSuffix(".page.link") || host == "page.link" ? " (*.page.link domains stopped with Firebase)" : ""))
        }
        return plan
    }

    // MARK: Switchyard's own CSV

    /// The columns of `switchyard export csv`, in order. `domain` is the name of the link's
    /// domain, empty for the first (every link of a configuration of one domain).
    package static let columns = ["code", "kind", "deepLink", "route", "parameters", "webURL", "appStoreURL", "playStoreURL",
                                 "title", "description", "image", "expiresAt", "maxUses", "createdAt", "clicks", "updatedAt", "utm", "tags", "expiredURL", "domain"]

    /// Every link in `store` as CSV with its header, oldest first, read `pageSize` links at a
    /// time; with how many links it holds.
    /// With `domains`, only the links of those domains (nil in it: the first; see ``LinkKey``).
    package static func export(from store: LinkStore, domains: [String?]? = nil, pageSize: Int = 1000) async throws(StoreError) -> (csv: String, count: Int, protected: Int) {
        var csv = CSVFields.record(columns)
        var cursor: (Int64, String)?
        var count = 0, protected = 0
        while true {
            let page = try await store.links(after: cursor, limit: pageSize, domains: domains)
            csv += export(page, header: false)
            count += page.count
            protected += page.filter { $0.passwordHash != nil }.count
            guard page.count == pageSize, let last = page.last else { return (csv, count, protected) }
            cursor = (LinkStore.millis(last.createdAt), last.code)
        }
    }

    /// Links as CSV records, the header first unless `header` is false (a later page).
    package static func export(_ links: [StoredLink], header: Bool = true) -> String {
        var out = header ? CSVFields.record(columns) : ""
        for link in links {
            out += CSVFields.record([
                CSVFields.spreadsheetSafe(LinkKey.code(of: link.code)), link.kind.rawValue, link.deepLink ?? "", link.route ?? "",
                link.parameters.isEmpty && link.route == nil ? "" : JSONWriter.compact(.object(link.parameters.map { ($0.0, .string($0.1)) })),
                link.webURL ?? "", link.appStoreURL ?? "", link.playStoreURL ?? "", CSVFields.spreadsheetSafe(link.title ?? ""), CSVFields.spreadsheetSafe(link.description ?? ""), link.imageURL ?? "",
                link.expiresAt.map(Self.iso) ?? "", link.maxUses.map(String.init) ?? "", Self.iso(link.createdAt), String(link.clicks),
                link.updatedAt.map(Self.iso) ?? "",
                // The campaign as the API writes it (a JSON object), the tags space-separated.
                link.campaign.isEmpty ? "" : CSVFields.spreadsheetSafe(JSONWriter.compact(link.campaign.json)), link.tags.joined(separator: " "),
                link.expiredURL ?? "", LinkKey.domain(of: link.code) ?? "",
            ])
        }
        return out
    }

    static func iso(_ date: Date) -> String {
        Timestamp.format(date)
    }

    static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    /// Reads `switchyard export csv` output: every field checked as `POST /api/links` checks it;
    /// code, kind, creation time and click count kept as they were.
    package func ownLinks(_ text: String, now: Date) throws(Failure) -> Plan {
        let records = try parse(text)
        guard let header = records.first else { throw Failure("the file is empty; it needs the header \(Self.columns.joined(separator: ","))") }
        var index: [String: Int] = [:]
        var plan = Plan()
        for (i, name) in header.fields.enumerated() {
            if index[name] != nil { throw Failure("line \(header.line): the column \(name) appears twice in the header") }
            // Ignored, its links would be made open to everyone: refused before anything is stored.
            if name == "password" {
                throw Failure("line \(header.line): the column password: import csv does not set passwords; set each with PATCH /api/links/{code} (\"password\") or make the links with POST /api/links/bulk")
            }
            if Self.columns.contains(name) { index[name] = i } else if !name.isEmpty { plan.ignoredColumns.append(name) }
        }
        guard index["code"] != nil else { throw Failure("line \(header.line): no code column; the header is \(Self.columns.joined(separator: ","))") }
        if index["utm"] == nil { plan.keeping.insert(.campaign) }
        if index["tags"] == nil { plan.keeping.insert(.tags) }
        // Each domain's checks, made once: a row is read as a link of its `domain` (empty: the first).
        let domains = LinkDomains(input.configuration)
        var seen: [String: Int] = [:]
        for record in records.dropFirst() {
            plan.rows += 1
            func value(_ name: String) -> String? {
                guard let i = index[name], i < record.fields.count, !record.fields[i].isEmpty else { return nil }
                return record.fields[i]
            }
            func problem(_ message: String) { plan.problems.append(Problem(line: record.line, message: message)) }
            // A row with more or fewer fields than the header was cut or shifted: which value
            // belongs to which column is a guess, so it is left out.
            guard record.fields.count == header.fields.count else {
                problem("\(record.fields.count) fields where the header has \(header.fields.count)"); continue
            }
            let domainName = value("domain")
            guard let domain = domainName.map({ domains.indexes[$0] }) ?? 0 else {
                problem("domain \(JSONWriter.quote(domainName ?? "")) is no domain of this configuration (domains: \(domains.configurations.map(\.domainName).joined(separator: ", ")))"); continue
            }
            let input = domains.inputs[domain]
            // An imported Firebase code may start with - (a formula to a spreadsheet): export guards it.
            let code = value("code").map(CSVFields.spreadsheetText) ?? ""
            let kindText = value("kind") ?? "link"
            guard let kind = LinkKind(rawValue: kindText) else { problem("kind \(JSONWriter.quote(kindText)) is not link, invite, fdl or imported"); continue }
            guard kind.keepsItsPath ? LinkInput.isImportedCode(code) : LinkInput.isChosenCode(code) else {
                problem(kind.keepsItsPath ? "code \(JSONWriter.quote(code)) is not 1–64 ASCII letters, digits, \"-\" and \"_\"" : LinkInput.chosenCodeProblem(code)); continue
            }
            // A Firebase link is served at /code: not on a path the service or a route owns.
            if kind.keepsItsPath, let reason = input.rootPathProblem(code) {
                problem("code \(code): the path /\(code) \(reason), so the link could never be served there"); continue
            }
            let key = domains.key(code: code, domain: domain)
            if let first = seen[key] { problem("code \(code)\(domain == 0 ? "" : " on \(domains.configurations[domain].domainName)") is on line \(first) already"); continue }
            var link: StoredLink
            do throws(APIError) {
                var body: [(String, JSONValue)] = []
                for name in ["deepLink", "route", "webURL", "appStoreURL", "playStoreURL", "title", "description", "image", "expiredURL"] {
                    if let v = value(name) { body.append((name, .string(name == "title" || name == "description" ? CSVFields.spreadsheetText(v) : v))) }
                }
                if let p = value("parameters") {
                    guard let parsed = try? JSONParser.parse(bytes: Array(p.utf8), loneSurrogates: .refuse, duplicateKeys: .refuse), parsed.objectMembers != nil else {
                        problem("parameters must be a JSON object (each name once), as export writes it"); continue
                    }
                    // Parameters belong to a route; without one they would be dropped unseen.
                    guard value("route") != nil else { problem("parameters are given but no route: they belong to a route"); continue }
                    body.append(("parameters", parsed))
                }
                if let m = value("maxUses") {
                    guard let n = Int64(m), n > 0 else { problem("maxUses must be a whole number above 0"); continue }
                    body.append(("maxUses", .number(Double(n), text: m)))
                }
                if let u = value("utm") {
                    guard let parsed = try? JSONParser.parse(bytes: Array(CSVFields.spreadsheetText(u).utf8), loneSurrogates: .refuse, duplicateKeys: .refuse),
                          parsed.objectMembers != nil else {
                        problem("utm must be a JSON object (each name once), as export writes it"); continue
                    }
                    body.append(("utm", parsed))
                }
                if let t = value("tags") { body.append(("tags", .array(t.split(separator: " ").map { .string(String($0)) }))) }
                if body.contains(where: { $0.0 == "deepLink" || $0.0 == "route" }) {
                    link = try input.read(.object(body), now: now)
                } else if kind.keepsItsPath {
                    // An imported Firebase link whose link is not on a configured host: fallbacks only.
                    link = StoredLink(code: code, createdAt: now)
                    let urls: [String: WritableKeyPath<StoredLink, String?>] = ["webURL": \.webURL, "appStoreURL": \.appStoreURL, "playStoreURL": \.playStoreURL, "expiredURL": \.expiredURL]
                    for (name, v) in body {
                        if name == "title" || name == "description" {
                            let text = v.stringValue ?? ""
                            let maximum = name == "title" ? LinkInput.maximumTitleLength : LinkInput.maximumDescriptionLength
                            guard text.count <= maximum else { throw APIError.badRequest(.invalidField, "\(name) is longer than \(maximum) characters", field: name) }
                            try LinkInput.checkText(text, field: name, lineBreaks: name == "description")
                        }
                        else if name == "image" { link.imageURL = try input.checkFallback(v.stringValue ?? "", field: name, requireAllowedHost: false) }
                        else if let path = urls[name] { link[keyPath: path] = try input.checkFallback(v.stringValue ?? "", field: name, requireAllowedHost: true) }
                        // maxUses, utm and tags are read below.
                    }
                    link.title = value("title").map(CSVFields.spreadsheetText); link.description = value("description").map(CSVFields.spreadsheetText)
                    link.maxUses = value("maxUses").flatMap { Int64($0) }
                    if let u = body.first(where: { $0.0 == "utm" })?.1 {
                        guard let utm = try? JSONValueDecoder().decode(LinkRequest.UTM.self, from: u) else {
                            throw APIError.badRequest(.invalidField, "utm must be an object of source, medium, campaign, term and content, each text", field: "utm")
                        }
                        link.campaign = try LinkInput.campaign(utm)
                    }
                    if case .array(let tags)? = body.first(where: { $0.0 == "tags" })?.1 { link.tags = try LinkInput.checkTags(tags.compactMap(\.stringValue)) }
                } else {
                    problem("needs deepLink or route"); continue
                }
            } catch {
                problem("\(error.message)"); continue
            }
            link.code = key
            link.kind = kind
            if kind == .invite {
                // What POST /api/invite makes, and nothing else: the invites route, its fields'
                // parameters and the code parameter holding the code.
                guard let invites = input.configuration.invites else { problem("kind invite, but this configuration has no invites section"); continue }
                guard link.route == invites.route, link.deepLink == nil else {
                    problem("an invite's route is \(JSONWriter.quote(invites.route)) (the invites section's), with no deepLink"); continue
                }
                let known = Set(invites.fields.map(\.parameter) + (invites.codeParameter.map { [$0] } ?? []))
                if let extra = link.parameters.first(where: { !known.contains($0.0) }) {
                    problem("an invite has no parameter \(JSONWriter.quote(extra.0)) (its parameters: \(known.sorted().joined(separator: ", ")))"); continue
                }
                if let p = invites.codeParameter, link.parameters.first(where: { $0.0 == p })?.1 != code {
                    problem("an invite's \(p) parameter is its code (\(code))"); continue
                }
            }
            if let e = value("expiresAt") {
                guard let d = Self.date(e) else { problem("expiresAt \(JSONWriter.quote(e)) is not an ISO 8601 time"); continue }
                link.expiresAt = d
            }
            if let c = value("createdAt") {
                guard let d = Self.date(c) else { problem("createdAt \(JSONWriter.quote(c)) is not an ISO 8601 time"); continue }
                // A link is not made in the future (five minutes allow for clocks apart).
                guard d <= now.addingTimeInterval(300) else { problem("createdAt \(c) is in the future"); continue }
                if let e = link.expiresAt, e < d { problem("expiresAt \(value("expiresAt") ?? "") is before createdAt \(c)"); continue }
                link.createdAt = d
            }
            if let c = value("clicks") {
                guard let n = Int64(c), n >= 0, n <= LinkInput.mostUses else { problem("clicks must be a whole number from 0 to \(LinkInput.mostUses)"); continue }
                link.clicks = n
            }
            if let u = value("updatedAt") {
                guard let d = Self.date(u) else { problem("updatedAt \(JSONWriter.quote(u)) is not an ISO 8601 time"); continue }
                guard d <= now.addingTimeInterval(300) else { problem("updatedAt \(u) is in the future"); continue }
                guard d >= link.createdAt else { problem("updatedAt \(u) is before createdAt"); continue }
                link.updatedAt = d
            }
            seen[key] = record.line
            plan.links.append(link)
            plan.lines.append(record.line)
        }
        return plan
    }

    private func parse(_ text: String) throws(Failure) -> [(line: Int, fields: [String])] {
        do { return try CSV.parse(text) } catch { throw Failure("not CSV: \(error)", cause: error) }
    }
}

/// The domain of ``LinkImport/Failure``.
package enum ImportErrors: SingleCodeErrorDomain {
    /// Every import failure is `invalid-import`.
    package static var code: ErrorCode { .invalidImport }
}
