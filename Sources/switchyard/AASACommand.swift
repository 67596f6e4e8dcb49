import ArgumentParser
import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore
import SwitchyardNetwork

struct AASACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Validate, explain, decide and generate apple-app-site-association files.",
        subcommands: [Decide.self, Validate.self, Explain.self, Generate.self, Compare.self]
    )

    /// Reads an AASA leniently (as iOS does) or exits with its findings.
    static func load(_ path: String) throws -> AppSiteAssociation { try FindingOutput.load(path, AppSiteAssociation.read(bytes:)) }

    struct Decide: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decide many cases: one JSON object per stdin line, one result line per case.",
            discussion: """
                Input lines: {"id": …, "aasa": {…}, "domain": "example.com", "appId": "TEAMID.bundle", "url": "https://…"}.
                Output lines: {"id": …, "decision": "match"|"exclude"|"no_match"}, or {"id": …, "error": {"code", "message"}}
                for a broken case; an answer to a case without an id carries "line": N, the stdin line number. The run goes on. \
                Blank and whitespace-only lines are skipped: they give no output line. \
                A decision that passed over entries whose pattern is too large to check (over 10,000 characters \
                and wildcards with its variables: they match nothing) lists them: "patternTooLarge": ["details[0].components[1]", …].
                """
        )

        @Flag(help: "Read JSON Lines from stdin (the only mode).") var jsonl = false

        func run() throws {
            var cases = DecisionCases()
            // A line over the cap (the AASA file limit plus room for the case around it) is never
            // kept in memory; its case still gets its output line, a line-too-long error.
            try DecisionLines.answer(maximumLineBytes: AppSiteAssociation.maximumBytes + (64 << 10)) { cases.answer($0) }
        }
    }

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate an AASA file, or fetch and validate it from https://DOMAIN (hosting checked too).",
            discussion: "Exit status 0 when valid (warnings allowed), 1 on errors."
        )
        @Argument(help: "A file, or an https URL (a bare origin means its /.well-known/apple-app-site-association).") var source: String
        @Flag(help: "One JSON object with every finding.") var json = false
        @Option(help: "A PEM certificate authority to trust when fetching (test servers).") var caFile: String?
        @Flag(help: "Fetch from loopback, private and link-local addresses too (a test server); refused by default.") var allowPrivateAddresses = false

        func run() async throws {
            try await SourceValidation.run(source, wellKnownFile: "apple-app-site-association", maximumBytes: AppSiteAssociation.maximumBytes, caFile: caFile, allowPrivateAddresses: allowPrivateAddresses, json: json) {
                AppSiteAssociation.validate(bytes: $0)
            }
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Explain which detail and component decide a URL for an app.")
        @Argument(help: "The AASA file.") var file: String
        @Argument(help: "The URL.") var url: String
        @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id") var appID: String
        @Option(help: "The domain the file is served for; the URL's host must be it (default: the URL's own host).") var domain: String?
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            let aasa = try AASACommand.load(file)
            if let problem = URLInput.problem(url) {
                Output.error("error: \(Output.escaped(url)): \(problem)")
                throw ExitCode(1)
            }
            let e = aasa.explain(url, for: appID, domain: domain)
            // Text that is no absolute URL, or an https URL without a host, cannot be explained:
            // the note says why, and it is invalid input (status 1). A URL of another scheme
            // ("plur:/x", "mailto:a@b") is simply not a universal link (status 0).
            show(e, aasa)
            if e.isInvalidURL { throw ExitCode(1) }
        }

        func show(_ e: AppSiteAssociation.Explanation, _ aasa: AppSiteAssociation) {
            if json {
                Output.line(JSONWriter.compact(.object([
                    ("decision", .string(e.decision.rawValue)),
                    ("detail", e.decidedBy.map { .int($0.detail) } ?? .null), ("entry", e.decidedBy.map { .int($0.entry) } ?? .null),
                    ("steps", .array(e.steps.map { s in
                        .object([("detail", .int(s.detail)), (s.legacyPath ? "path" : "component", .int(s.entry)), ("failed", s.failed.map { .string($0.rawValue) } ?? .null),
                                 ("patternTooLarge", .bool(s.patternTooLarge))])
                    })),
                    ("note", e.note.map(JSONValue.string) ?? .null),
                ])))
                return
            }
            for s in e.steps {
                let entry = aasa.describe(detail: s.detail, entry: s.entry, legacy: s.legacyPath)
                let place = "\(aasa.detailName(s.detail)).\(s.legacyPath ? "paths" : "components")[\(s.entry)]"
                if let failed = s.failed, s.patternTooLarge {
                    Output.line(Output.escaped("  \(place) \(entry): no — its \"\(failed.rawValue)\" pattern expands to more than \(Glob.maximumSize) characters and wildcards, so it is not compiled and matches nothing [pattern-too-large]"))
                } else if let failed = s.failed {
                    Output.line(Output.escaped("  \(place) \(entry): no — \"\(failed.rawValue)\" does not match"))
                } else {
                    Output.line(Output.escaped("  \(place) \(entry): matches"))
                }
            }
            if let note = e.note { Output.line(Output.escaped("  \(note)")) }
            switch e.decision {
            case .match: Output.line(Output.escaped("match: iOS opens \(url) in \(appID)"))
            case .exclude: Output.line(Output.escaped("exclude: iOS keeps \(url) in the browser (excluded by \(aasa.detailName(e.decidedBy!.detail)) entry \(e.decidedBy!.entry))"))
            case .noMatch: Output.line(Output.escaped("no_match: iOS does not offer \(url) to \(appID)"))
            }
        }
    }

    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare the AASA a site serves with the copy Apple's CDN holds, by decision; exit 1 where they decide differently.",
            discussion: """
                Devices read the AASA from Apple's CDN (https://app-site-association.cdn-apple.com/a/v1/DOMAIN), which can \
                lag the site's file. Both are fetched; the command prints their status, sizes and the CDN's age headers, \
                whether the bytes and the JSON differ (and where), and every URL and app the two copies decide \
                differently. The URLs are --url, or examples of --routes, or examples of both files' components. \
                Exit status 0 when every decision agrees, 1 when one differs, 2 when a copy cannot be fetched.
                """)
        @Argument(help: "The domain (as in applinks:DOMAIN).") var domain: String
        @Option(help: "Where the CDN copies are (the domain is appended).") var cdnBase = "https://app-site-association.cdn-apple.com/a/v1/"
        @Option(help: "Route table (JSON or YAML) whose example URLs are decided.") var routes: String?
        @Option(help: "A URL to decide (repeatable).") var url: [String] = []
        @Option(help: "A PEM certificate authority to trust when fetching (test servers).") var caFile: String?
        @Flag(help: "Fetch from loopback, private and link-local addresses too (a test server); refused by default.") var allowPrivateAddresses = false
        @Flag(help: "One JSON object.") var json = false

        func run() async throws {
            let host = domain.split(separator: ":").first.map(String.init) ?? domain
            guard !domain.isEmpty, URLInput.problem("https://\(domain)/") == nil, !domain.contains("/") else {
                throw ValidationError("DOMAIN must be a host name such as shop.example (no scheme or path)")
            }
            let fetcher = HostingCheck(trustedCAFile: caFile, allowPrivateAddresses: allowPrivateAddresses)
            let siteURL = HostingCheck.location(of: "https://\(domain)", file: "apple-app-site-association")
            let cdnURL = (cdnBase.hasSuffix("/") ? cdnBase : cdnBase + "/") + domain
            async let siteReport = fetcher.fetch(siteURL)
            async let cdnReport = fetcher.fetch(cdnURL)
            let (site, cdn) = await (siteReport, cdnReport)
            for report in [site, cdn] where report.status == nil {
                Output.error(Output.escaped("error: \(report.findings.first?.message ?? "could not fetch \(report.url)")"))
                throw ExitCode(2)
            }
            func parsed(_ report: HostingCheck.Report) -> (JSONValue?, AppSiteAssociation?) {
                guard report.status == 200, let value = try? JSONParser.parse(bytes: report.body) else { return (nil, nil) }
                return (value, AppSiteAssociation.read(value).0)
            }
            let (siteJSON, siteAASA) = parsed(site), (cdnJSON, cdnAASA) = parsed(cdn)
            var urls = url
            if let routes { urls += PlatformComparison.sampleURLs(try loadRouter(routes)) }
            if urls.isEmpty { urls = AASAComparison.sampleURLs(siteAASA, cdnAASA, domain: host) }
            let differences = AASAComparison.decisions(siteAASA, cdnAASA, urls: urls, domain: host)
            let jsonDifferences = siteJSON.flatMap { a in cdnJSON.map { AASAComparison.jsonDifferences(a, $0) } } ?? []
            let ageHeaders = ["age", "cache-control", "last-modified", "date", "etag", "expires"]
            let cacheHeaders = cdn.headers.filter { ageHeaders.contains($0.name.lowercased()) }
            if json {
                func describe(_ r: HostingCheck.Report) -> JSONValue {
                    .object([("url", .string(r.url)), ("status", r.status.map { .int($0) } ?? .null), ("bytes", .int(r.body.count))])
                }
                Output.line(JSONWriter.compact(.object([
                    ("site", describe(site)), ("cdn", describe(cdn)),
                    ("cdnHeaders", .object(cacheHeaders.map { ($0.name.lowercased(), .string($0.value)) })),
                    ("sameBytes", .bool(site.body == cdn.body)), ("jsonDifferences", .array(jsonDifferences.map(JSONValue.string))),
                    ("urls", .int(urls.count)),
                    ("decisionDifferences", .array(differences.map { d in
                        .object([("url", .string(d.url)), ("appId", .string(d.appID)), ("site", .string(d.first.rawValue)), ("cdn", .string(d.second.rawValue))])
                    })),
                ])))
            } else {
                Output.line(Output.escaped("site: \(site.url): \(site.status!), \(site.body.count) bytes"))
                Output.line(Output.escaped("cdn:  \(cdn.url): \(cdn.status!), \(cdn.body.count) bytes"
                    + cacheHeaders.map { ", \($0.name.lowercased()) \($0.value)" }.joined()))
                Output.line(site.body == cdn.body ? "bytes: the same" : "bytes: differ")
                if siteJSON != nil && cdnJSON != nil {
                    Output.line("json: \(jsonDifferences.isEmpty ? "the same" : "\(jsonDifferences.count) difference\(jsonDifferences.count == 1 ? "" : "s") (first: site, second: CDN)")")
                    for line in jsonDifferences { Output.line(Output.escaped("  \(line)")) }
                }
                Output.line("decisions: \(urls.count) URLs, \(differences.count) differ")
                for d in differences { Output.line(Output.escaped("  \(d.url) \(d.appID): site \(d.first.rawValue), cdn \(d.second.rawValue)")) }
            }
            if !differences.isEmpty { throw ExitCode(1) }
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Generate an AASA from a route table.")
        @Option(help: "Route table (JSON or YAML).") var routes: String
        @Option(help: "10-character team ID.") var teamId: String
        @Option(help: "Bundle ID (repeatable).") var bundleId: [String]
        @Flag(help: "Add webcredentials for the same apps.") var webcredentials = false
        @Option(name: .customLong("app-clip"), help: "App Clip app ID (repeatable).") var appClips: [String] = []
        @Option(name: .shortAndLong, help: "Output file (default: stdout).") var output: String?

        func run() throws {
            let router: LinkRouter
            do { router = try LinkRouter(contentsOf: routes) } catch {
                Output.error("error: \(error)")
                throw ExitCode(2)
            }
            let appIDs = bundleId.map { "\(teamId).\($0)" }
            let problems = appIDs.flatMap { AppSiteAssociation.validate(appID: $0) }.filter { $0.severity == .error }
            if let p = problems.first {
                Output.error("error: \(p.message)")
                throw ExitCode(2)
            }
            let text = JSONWriter.pretty(AssociationGenerator.appSiteAssociation(router: router, appIDs: appIDs, webcredentials: webcredentials, appClips: appClips)) + "\n"
            if let output {
                try Output.writeFile(output, Array(text.utf8))
            } else {
                Output.standardOutput(Data(text.utf8))
            }
        }
    }
}

/// Decision cases as JSON Lines on stdin, one answer line each on stdout: `aasa decide --jsonl`
/// and `assetlinks decide --jsonl`. Exit status 1 when any case could not be answered.
enum DecisionLines {
    static func answer(maximumLineBytes: Int, _ answer: (String) -> JSONValue) throws {
        let lines = InputLines([], maximumLineBytes: maximumLineBytes, placeholders: true)
        var failed = 0
        for line in lines {
            var result: JSONValue
            if let problem = lines.problem(line), problem.code == .lineTooLong {
                result = DecisionCases.failure(.null, problem.code, problem.message)
            } else {
                result = answer(line)
            }
            // A case without an id (a line that is not JSON, not an object, or has no "id")
            // is told by its line number, answered or not.
            if case .null? = result["id"], let number = lines.lineNumber, case .object(var members) = result {
                members.insert(("line", .int(number)), at: 1)
                result = .object(members)
            }
            if result["error"] != nil { failed += 1 }
            Output.line(JSONWriter.compact(result))
        }
        try lines.finish()
        if lines.skipped > 0 || failed > 0 { throw ExitCode(1) }
    }
}
