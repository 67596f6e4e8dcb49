import ArgumentParser
import AssociatedDomains
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
    static func load(_ path: String) throws -> AppSiteAssociation {
        try FindingOutput.load(path, maximumBytes: AppSiteAssociation.maximumBytes, AppSiteAssociation.read(bytes:))
    }

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
        @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id (default: the file's only app, when it names one).") var appID: String?
        @Option(help: "The domain the file is served for; the URL's host must be it (default: the URL's own host).") var domain: String?
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            let aasa = try AASACommand.load(file)
            let apps = AASAComparison.appIDs(aasa)
            guard let appID = appID ?? (apps.count == 1 ? apps[0] : nil) else {
                Output.error("error: the file names \(apps.isEmpty ? "no app" : "\(apps.count) apps (\(apps.joined(separator: ", ")))"); give the one to explain with --app-id TEAMID.bundle.id".terminalEscaped)
                throw ExitCode(2)
            }
            try Output.refuseNonURLs([url])
            // A file's patterns times the URL's length bound the work; past it, status 1 and why.
            if let problem = aasa.workProblem(url) {
                // With --json the answer is still one JSON object: the error, as decide gives it.
                if json { Output.line(JSONWriter.compact(.object([("error", .object([("code", .string(ErrorCode.tooMuchWork.name)), ("message", .string(problem))]))]))) }
                Output.error("error: \(problem)")
                throw ExitCode(1)
            }
            let e = aasa.explain(url, for: appID, domain: domain)
            // Text that is no absolute URL, or an https URL without a host, cannot be explained:
            // the note says why, and it is invalid input (status 1). A URL of another scheme
            // ("plur:/x", "mailto:a@b") is simply not a universal link (status 0).
            Output.report(json: json, e.json, lines: e.lines(in: aasa, url: url, appID: appID))
            if e.isInvalidURL { throw ExitCode(1) }
        }
    }

    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare the AASA a site serves with the copy Apple's CDN holds, by decision; exit 1 where they decide differently.",
            discussion: """
                Devices read the AASA from Apple's CDN (https://app-site-association.cdn-apple.com/a/v1/DOMAIN), which can \
                lag the site's file. Both are fetched; the command prints their status, sizes and the CDN's age headers, \
                whether the bytes and the JSON differ (and where), and every URL and app the two copies decide \
                differently. The URLs are --url (on DOMAIN), or the paths of examples of --routes on DOMAIN, or examples of both files' components. \
                Exit status 0 when every decision agrees, 1 when one differs, 2 when a copy cannot be fetched.
                """)
        @Argument(help: "The domain (as in applinks:DOMAIN).") var domain: String
        @Option(help: "Where the CDN copies are (the domain is appended).") var cdnBase = CDNComparison.appleBase
        @Option(help: "Route table (JSON or YAML) whose example URLs are decided.") var routes: String?
        @Option(help: "A URL to decide (repeatable).") var url: [String] = []
        @Option(help: "A PEM certificate authority to trust when fetching (test servers).") var caFile: String?
        @Flag(help: "Fetch from loopback, private and link-local addresses too (a test server); refused by default.") var allowPrivateAddresses = false
        @Flag(help: "One JSON object.") var json = false

        func validate() throws {
            // A host and a port only: "@" would send credentials to the CDN in its path, "#" fetch something else.
            if let problem = CDNComparison.domainProblem(domain) { throw ValidationError(problem) }
            for u in url { if let problem = CDNComparison.urlProblem(u, domain: domain) { throw ValidationError("--url \(HostingCheck.withoutCredentials(u).terminalEscaped): \(problem)") } }
        }

        func run() async throws {
            var urls = url
            if let routes { urls += CDNComparison.moved(PlatformComparison.sampleURLs(try loadRouter(routes)), to: domain) }
            let fetcher = HostingCheck(trustedCAFile: caFile, allowPrivateAddresses: allowPrivateAddresses)
            let comparison: CDNComparison
            switch await CDNComparison.compare(domain: domain, base: cdnBase, urls: urls, fetcher: fetcher) {
            case .failure(let problem):
                Output.error("error: \(problem.message)".terminalEscaped)
                throw ExitCode(2)
            case .success(let compared): comparison = compared
            }
            Output.report(json: json, comparison.json, lines: comparison.lines)
            if !comparison.differences.isEmpty { throw ExitCode(1) }
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

        func validate() throws {
            if let problem = AssociationGenerator.appIDProblem(teamID: teamId, bundleIDs: bundleId, appClips: appClips) { throw ValidationError(problem) }
        }

        func run() throws {
            let router = try loadRouter(routes)
            try AssociationCommands.refuseUnexpressible(router, routes)
            for note in AssociationGenerator.platformDifferences(router: router).dropFirst() { Output.error("note: \(note.path): \(note.message)") }
            let appIDs = bundleId.map { "\(teamId).\($0)" }  // checked in validate()
            let text = JSONWriter.pretty(AssociationGenerator.appSiteAssociation(router: router, appIDs: appIDs, webcredentials: webcredentials, appClips: appClips)) + "\n"
            // iOS ignores a file over the limit: such a file is not written.
            if text.utf8.count > AppSiteAssociation.maximumBytes {
                Output.error("error: the AASA made from \(routes) would be \(text.utf8.count) bytes; iOS ignores files over \(AppSiteAssociation.maximumBytes) bytes (128 KB): serve fewer routes' paths (a catch-all route and the app's own routing), or split them across domains")
                throw ExitCode(2)
            }
            try Output.writeFile(output ?? "-", Array(text.utf8))
        }
    }
}

/// Decision cases as JSON Lines on stdin, one answer line each on stdout (`DecisionCases.answer`);
/// exit status 1 when any case could not be answered.
enum DecisionLines {
    static func answer(maximumLineBytes: Int, _ answer: (String) -> JSONValue) throws {
        let lines = Output.inputs([], maximumLineBytes: maximumLineBytes, placeholders: true)
        let failed = DecisionCases.answer(lines, write: Output.line, answer)
        try lines.finish()
        if lines.skipped > 0 || failed > 0 { throw ExitCode(1) }
    }
}

/// What the generate commands share.
enum AssociationCommands {
    /// Exits 2 naming each route whose path text no association file can say.
    static func refuseUnexpressible(_ router: LinkRouter, _ path: String) throws {
        let problems = AssociationGenerator.patternTextProblems(router)
        guard !problems.isEmpty else { return }
        for problem in problems { Output.error("error: \(path): \(problem)".terminalEscaped) }
        throw ExitCode(2)
    }
}
