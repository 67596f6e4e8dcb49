import Foundation
import LinkConfiguration
import LinkRequests
import LinkStorage
import SwitchyardCore

extension LinkImport {
    /// The plan for another shortener's links (``ForeignFormat``): each becomes an `imported`
    /// link served at its old path (`/{code}`), checked as the API checks a link — its target on
    /// the configuration's hosts or `service.redirectHosts` (a target on a host whose route table
    /// routes it also opens the app) — keeping its title, tags, creation time, clicks, expiry and
    /// use limit. A link goes to the domain named `domain`, else to the domain that serves the
    /// host it had, else to the first (said in a note). Stored links are never overwritten: a
    /// code another link has on that domain is a clash (``LinkStore/ImportExisting/keep``).
    package func foreign(_ export: ForeignExport, format: ForeignFormat, domain named: Int?, now: Date) -> Plan {
        var plan = Plan()
        plan.rows = export.rows
        plan.problems = export.problems
        plan.ignoredColumns = export.ignoredColumns
        plan.notes = export.notes
        plan.existing = .keep
        plan.linesAreItems = format.isJSON
        let domains = LinkDomains(input.configuration)
        let targetField = format.targetField
        var seen: [String: Int] = [:]
        var elsewhere: [String: Int] = [:]
        var retagged = 0, tagsLeftOut = 0, titlesCleaned = 0, titlesLeftOut = 0, futureDates = 0, expiredBefore = 0
        let place = plan.linesAreItems ? "item" : "line"
        for foreign in export.links {
            func problem(_ message: String) { plan.problems.append(Problem(line: foreign.line, message: message)) }
            let host = foreign.host.map { $0.lowercased() }
            let index = named ?? host.flatMap { h in domains.configurations.firstIndex { $0.servesHost(h) } } ?? 0
            let input = domains.inputs[index]
            let code = foreign.code
            guard LinkInput.isImportedCode(code) else {
                problem("code \(JSONWriter.quote(code)) is not 1–64 ASCII letters, digits, \"-\" and \"_\"; Switchyard cannot serve it at its old path"); continue
            }
            if let reason = input.rootPathProblem(code) { problem("code \(code): the path /\(code) \(reason), so the link could never be served there"); continue }
            let key = domains.key(code: code, domain: index)
            if let first = seen[key] { problem("code \(code) is on \(place) \(first) already"); continue }
            var link = StoredLink(code: key, createdAt: foreign.createdAt ?? now)
            link.kind = .imported
            do throws(APIError) {
                let target = try input.checkFallback(foreign.target, field: targetField, requireAllowedHost: true)
                link.webURL = target
                // A target the app opens (an https link its route table routes) is its app link too.
                link.deepLink = try? input.checkDeepLink(target, field: targetField)
                // A title is the link's dress, not its way: one that cannot be kept as written is
                // cleaned (line breaks and tabs as spaces, invisible controls out, cut to length),
                // or left out — the link is imported either way.
                if let raw = foreign.title, let title = Self.title(raw) {
                    if title != raw.trimmingCharacters(in: .whitespacesAndNewlines) { titlesCleaned += 1 }
                    if (try? LinkInput.checkText(title, field: "title")) != nil { link.title = title } else { titlesLeftOut += 1 }
                }
                let tags = Array(Self.tags(foreign.tags).prefix(LinkInput.mostTags))
                if tags != foreign.tags { retagged += 1 }
                if tags.count < Set(foreign.tags).count { tagsLeftOut += 1 }
                link.tags = try LinkInput.checkTags(tags)
                if let max = foreign.maxUses {
                    guard (1...LinkInput.mostUses).contains(max) else { throw APIError.badRequest(.invalidMaxUses, "the use limit \(max) is not 1 to \(LinkInput.mostUses)", field: "maxUses") }
                    link.maxUses = max
                }
            } catch {
                problem("\(code): \(error.message)"); continue
            }
            link.clicks = foreign.clicks ?? 0
            // A creation time ahead of now is now; an expiry before the creation is the creation
            // (the link had ended): as `export csv` and `import csv` hold them.
            if link.createdAt > now { link.createdAt = now; futureDates += 1 }
            link.expiresAt = foreign.expiresAt
            if let e = link.expiresAt, e < link.createdAt { link.expiresAt = link.createdAt; expiredBefore += 1 }
            seen[key] = foreign.line
            if named == nil, let host, !domains.configurations[index].servesHost(host) { elsewhere[host, default: 0] += 1 }
            plan.links.append(link)
            plan.lines.append(foreign.line)
        }
        if !elsewhere.isEmpty {
            let hosts = elsewhere.keys.sorted()
            let count = elsewhere.values.reduce(0, +)
            plan.notes.append("\(count) link\(count == 1 ? " was" : "s were") on \(hosts.prefix(5).joined(separator: ", "))\(hosts.count > 5 ? " and \(hosts.count - 5) more hosts" : ""), which no domain of the configuration serves: imported on \(domains.configurations[0].domainName) (give --domain to choose; serve them once the host is one of a domain's)")
        }
        if retagged > 0 { plan.notes.append("the tags of \(retagged) link\(retagged == 1 ? "" : "s") were written as Switchyard's tags are: lowercase, other characters as -, at most \(LinkInput.mostTags) of \(LinkInput.maximumTagLength) characters") }
        if tagsLeftOut > 0 { plan.notes.append("\(tagsLeftOut) link\(tagsLeftOut == 1 ? " lost" : "s lost") tags with no letter or digit Switchyard's tags take (a-z, 0-9), or past the first \(LinkInput.mostTags)") }
        if titlesCleaned > 0 { plan.notes.append("\(titlesCleaned) title\(titlesCleaned == 1 ? " was" : "s were") cleaned: line breaks and tabs as spaces, invisible and direction controls removed, at most \(LinkInput.maximumTitleLength) characters") }
        if titlesLeftOut > 0 { plan.notes.append("\(titlesLeftOut) title\(titlesLeftOut == 1 ? " was" : "s were") left out: not text a page can show") }
        if futureDates > 0 { plan.notes.append("\(futureDates) creation time\(futureDates == 1 ? " was" : "s were") in the future: dated when imported") }
        if expiredBefore > 0 { plan.notes.append("\(expiredBefore) link\(expiredBefore == 1 ? "" : "s") expired before \(expiredBefore == 1 ? "it was" : "they were") made: imported as expired at creation") }
        return plan
    }

    /// A title as a page can show it: line breaks and tabs as spaces, other control and
    /// direction-override characters out, cut to ``LinkInput/maximumTitleLength``; nil when
    /// nothing is left.
    static func title(_ raw: String) -> String? {
        let kept = raw.unicodeScalars.compactMap { s -> Unicode.Scalar? in
            if s == "\n" || s == "\r" || s == "\t" { return " " }
            if s.properties.generalCategory == .control || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value) { return nil }
            return s
        }
        var text = String(String.UnicodeScalarView(kept)).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        if text.count > LinkInput.maximumTitleLength { text = String(text.prefix(LinkInput.maximumTitleLength - 1)) + "…" }
        return text.isEmpty ? nil : text
    }

    /// Another shortener's tags as Switchyard's: lowercase letters (accents dropped), digits, `-`,
    /// `_`, `.` and `:`, starting with a letter or digit (every other character a `-`), each once.
    static func tags(_ tags: [String]) -> [String] {
        var out: [String] = []
        for tag in tags {
            var text = String(tag.folding(options: .diacriticInsensitive, locale: nil).lowercased().unicodeScalars.map { s -> Character in
                let ok = (s >= "a" && s <= "z") || (s >= "0" && s <= "9") || s == "-" || s == "_" || s == "." || s == ":"
                return ok ? Character(s) : "-"
            })
            while let first = text.unicodeScalars.first, !((first >= "a" && first <= "z") || (first >= "0" && first <= "9")) { text.removeFirst() }
            text = String(text.prefix(LinkInput.maximumTagLength))
            if !text.isEmpty && !out.contains(text) { out.append(text) }
        }
        return out
    }
}
