import Foundation
import SwitchyardCore

extension ConfigurationTemplate {
    /// Adds this app's domain, named `name`, to the configuration at `configurationPath`
    /// (`switchyard init --add-domain`): its route table is written beside it as
    /// `routes-NAME.yaml`, and the configuration gets a `domains` entry with the domain's apps,
    /// public URL, landing title and route table. A configuration of one domain becomes a
    /// `domains` list first, its own apps, routes, landing pages and public URL moving into the
    /// first entry as written (comments with them); the service's other sections stay as they are.
    /// The result is read as `serve` reads it before the configuration is replaced; nothing is
    /// changed when it does not read. Returns the paths written.
    package func add(as name: String, to configurationPath: String, replacing: Bool) throws(ConfigurationError) -> (configuration: String, routes: String) {
        if let problem = ServiceConfiguration.domainNameProblem(name) { throw ConfigurationError("--add-domain: \(JSONWriter.quote(name)) \(problem)") }
        var template = self
        template.routeTableName = "routes-\(name).yaml"
        let files = try template.files()
        guard let existing = try? String(contentsOfFile: configurationPath, encoding: .utf8) else {
            throw ConfigurationError("\(configurationPath) cannot be read: run switchyard init without --add-domain first, or give --directory where it is")
        }
        let before: ServiceConfiguration
        do { before = try ServiceConfiguration(contentsOf: configurationPath) } catch {
            throw ConfigurationError("\(configurationPath) does not read as serve reads it, so no domain was added: \(error.message)")
        }
        if before.servedDomains.contains(where: { $0.domainName == name }) {
            throw ConfigurationError("--add-domain: \(configurationPath) has a domain named \(name) already")
        }
        let entry = try Self.domainEntry(of: files.configuration, name: name)
        let text = try Self.adding(entry, to: existing, firstName: before.domainName)
        let directory = (configurationPath as NSString).deletingLastPathComponent
        let routesPath = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(template.routeTableName)
        if !replacing, (try? FileManager.default.attributesOfItem(atPath: routesPath)) != nil {
            throw ConfigurationError("\(routesPath) exists already; nothing was written (--force replaces it)")
        }
        // The route table first (the configuration names it), then the configuration as it will
        // be, read back from a file beside it; anything refused leaves both as they were.
        let hadRoutes = FileManager.default.fileExists(atPath: routesPath)
        let previousRoutes = hadRoutes ? try? Data(contentsOf: URL(fileURLWithPath: routesPath)) : nil
        let trial = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(".switchyard-add-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(atPath: trial) }
        do throws(FileError) {
            try DurableFile.write(routesPath, Array(files.routes.utf8))
            try DurableFile.write(trial, Array(text.utf8))
        } catch {
            throw ConfigurationError(.invalidConfiguration, error.message)
        }
        func restoreRoutes() {
            if let previousRoutes { try? previousRoutes.write(to: URL(fileURLWithPath: routesPath)) } else { try? FileManager.default.removeItem(atPath: routesPath) }
        }
        do throws(ConfigurationError) {
            let after = try ServiceConfiguration(contentsOf: trial)
            guard after.servedDomains.count == before.servedDomains.count + 1 else { throw ConfigurationError("the domain was not added as expected") }
        } catch {
            restoreRoutes()
            throw ConfigurationError("with the domain added, the configuration would not read, so nothing was changed: "
                                     + error.message.replacingOccurrences(of: trial, with: configurationPath))
        }
        do throws(FileError) { try DurableFile.write(configurationPath, Array(text.utf8)) } catch {
            restoreRoutes()
            throw ConfigurationError(.invalidConfiguration, error.message)
        }
        return (configurationPath, routesPath)
    }

    /// The keys a domain has (its own, at the top level of a configuration of one domain).
    static let domainKeyNames: Set<String> = Set(ServiceConfiguration.domainKeys.keys)

    /// `text`'s top-level keys, each with the lines it spans (up to the next top-level key).
    static func topLevelBlocks(_ lines: [String]) -> [(key: String, lines: Range<Int>)] {
        var starts: [(String, Int)] = []
        for (i, line) in lines.enumerated() {
            guard let first = line.unicodeScalars.first, CharacterSet.letters.contains(first), let colon = line.firstIndex(of: ":") else { continue }
            starts.append((String(line[..<colon]), i))
        }
        return starts.enumerated().map { n, start in (start.0, start.1..<(n + 1 < starts.count ? starts[n + 1].1 : lines.count)) }
    }

    /// A `domains` list entry (`  - name: NAME` and the domain's keys, indented under it) from
    /// a configuration of one domain's text: its domain keys' blocks, and its `publicURL`.
    static func domainEntry(of text: String, name: String) throws(ConfigurationError) -> [String] {
        let (blocks, publicURL, _) = try split(text)
        var entry = ["  - name: \(name)"]
        if let publicURL { entry.append("    " + publicURL) }
        for block in blocks {
            var lines = block
            while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty || last.hasPrefix("#") { lines.removeLast() }
            entry += lines.map { $0.isEmpty ? "" : "    " + $0 }
        }
        return entry
    }

    /// A configuration of one domain's text taken apart: the blocks of its domain keys (in
    /// order), its `service.publicURL` line (without indentation), and the rest.
    static func split(_ text: String) throws(ConfigurationError) -> (blocks: [[String]], publicURL: String?, rest: [String]) {
        let lines = text.components(separatedBy: "\n")
        var blocks: [[String]] = []
        var publicURL: String?
        var rest: [String] = []
        var position = 0
        for block in topLevelBlocks(lines) {
            rest += lines[position..<block.lines.lowerBound]
            position = block.lines.upperBound
            var body = Array(lines[block.lines])
            if domainKeyNames.contains(block.key) {
                // Comments and blank lines after the block's last line are the file's, not the key's: they stay.
                var end = body.count
                while end > 1, body[end - 1].trimmingCharacters(in: .whitespaces).isEmpty || body[end - 1].hasPrefix("#") { end -= 1 }
                blocks.append(Array(body[..<end]))
                rest += body[end...]
                continue
            }
            if block.key == "service" {
                let head = body[0].trimmingCharacters(in: .whitespaces)
                if head == "service:" || head.hasPrefix("service: #") || head.hasPrefix("service:#") {
                    if let i = body.firstIndex(where: { $0.hasPrefix(" ") && $0.trimmingCharacters(in: .whitespaces).hasPrefix("publicURL:") }) {
                        publicURL = body[i].trimmingCharacters(in: .whitespaces)
                        body.remove(at: i)
                    }
                    // A service section left with nothing in it is no object: its key becomes a
                    // comment, and its comments stay.
                    if !body.dropFirst().contains(where: { let t = $0.trimmingCharacters(in: .whitespaces); return !t.isEmpty && !t.hasPrefix("#") }) {
                        body[0] = "# " + body[0]
                    }
                } else if head.contains("publicURL") {
                    throw ConfigurationError("service: written on one line ({…}), so its publicURL cannot be moved into the first domain; write service as a block (one key per line) and try again")
                }
            }
            rest += body
        }
        rest += lines[position...]
        return (blocks, publicURL, rest)
    }

    /// `existing` (a configuration's text) with `entry` added: at the end of its `domains` list,
    /// or, for a configuration of one domain, as the second entry of a new list whose first is
    /// the configuration's own domain (named `firstName`).
    static func adding(_ entry: [String], to existing: String, firstName: String) throws(ConfigurationError) -> String {
        var lines = existing.components(separatedBy: "\n")
        if let domains = topLevelBlocks(lines).first(where: { $0.key == "domains" }) {
            guard lines[domains.lines.lowerBound].trimmingCharacters(in: .whitespaces) == "domains:" || lines[domains.lines.lowerBound].hasPrefix("domains: #") else {
                throw ConfigurationError("domains: written on one line ([…]), so a domain cannot be added to it; write it as a block (one entry per - line) and try again")
            }
            var end = domains.lines.upperBound
            while end > domains.lines.lowerBound + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty || lines[end - 1].hasPrefix("#") { end -= 1 }
            lines.insert(contentsOf: entry, at: end)
            return lines.joined(separator: "\n")
        }
        let first = try domainEntry(of: existing, name: firstName)
        let (_, _, rest) = try split(existing)
        var out = rest
        while let last = out.last, last.isEmpty { out.removeLast() }
        out += ["", "# The link domains, each with its own apps, routes and landing pages (docs/operator-guide.md#several-domains).",
                "# The first is the domain the configuration served before: its links stay its own.", "domains:"]
        out += first + entry + [""]
        return out.joined(separator: "\n")
    }
}
